//go:build !cgo

package cublas

import (
	"unsafe"

	"github.com/peakbench/peakbench/cgo/cuda"
	"github.com/peakbench/peakbench/native"
)

// Without cgo cuBLAS cannot be opened (no device can be either); the
// methods below are unreachable.

type handle = unsafe.Pointer

func open(gpu unsafe.Pointer, path string) (handle, string, error) {
	return nil, "", &cuda.LoadError{Library: "libcublas", Path: path, Reason: "cublas: " + native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

func (l *Library) free()       {}
func freeJob(p unsafe.Pointer) {}

func (l *Library) gemm(dt cuda.DType, ta, tb bool, m, n, k int, opt cuda.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
func (l *Library) gemv(dt cuda.DType, m, n int, opt cuda.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
func (l *Library) axpy(dt cuda.DType, n int, alpha float64, opt cuda.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
func (l *Library) dot(dt cuda.DType, n int, opt cuda.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
