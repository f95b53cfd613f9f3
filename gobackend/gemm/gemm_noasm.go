//go:build !amd64 || purego

package gemm

import "github.com/peakbench/peakbench/gobackend/isa"

// asmKernel: no assembly on this platform or under the purego tag.
func asmKernel[T Float](lvl isa.Level) (microKernel[T], bool) { return microKernel[T]{}, false }

func asmNarrowKernel[T Float](lvl isa.Level) (microKernel[T], bool) { return microKernel[T]{}, false }

func asmWideKernel[T Float](lvl isa.Level) (microKernel[T], bool) { return microKernel[T]{}, false }

const haveGemvAsm = false

func dotAsm[T Float](gemvImpl, []T, []T) float64 { panic("gemm: no assembly") }
func axpyAsm[T Float](gemvImpl, T, []T, []T)     { panic("gemm: no assembly") }
func dot4Asm[T Float](int, []T, int, []T) [4]T   { panic("gemm: no assembly") }
func axpy4Asm[T Float](*[4]T, []T, int, []T)     { panic("gemm: no assembly") }
