//go:build !amd64 || purego

package gemm

import "github.com/peakbench/peakbench/gobackend/isa"

// rowsKernel: no assembly, no row-remainder kernels (the streaming path
// then computes the last rows as a whole tile, clipped).
func rowsKernel[T Float](lvl isa.Level, rows, nr int) kernelFunc[T] { return nil }

// A directFunc is a direct kernel's function (microKernel.direct).
type directFunc[T Float] func(k int, a []T, lda int, b []T, ldb int, alpha, beta T, c []T, ldc int)

// rowsDirectKernel: none without assembly (there is no direct path).
func rowsDirectKernel[T Float](lvl isa.Level, rows, nr int) directFunc[T] { return nil }
