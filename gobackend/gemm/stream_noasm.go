//go:build !amd64 || purego

package gemm

import "github.com/peakbench/peakbench/gobackend/isa"

// rowsKernel: no assembly, no row-remainder kernels (the streaming path
// then computes the last rows as a whole tile, clipped).
func rowsKernel[T Float](lvl isa.Level, rows, nr int) kernelFunc[T] { return nil }
