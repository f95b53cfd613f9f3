//go:build !cgo

package cublas

import (
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

// Without cgo cuBLAS cannot be opened (no device can be either); the
// methods below are unreachable.

type handle = unsafe.Pointer

func open(gpu unsafe.Pointer, path string) (handle, string, error) {
	return nil, "", &gpurt.LoadError{Library: "libcublas", Path: path, Reason: "cublas: " + native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

func (l *Library) free()       {}
func freeJob(p unsafe.Pointer) {}

func (l *Library) gemm(dt gpurt.DType, ta, tb bool, m, n, k int, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
func (l *Library) gemv(dt gpurt.DType, m, n int, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
func (l *Library) axpy(dt gpurt.DType, n int, alpha float64, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
func (l *Library) dot(dt gpurt.DType, n int, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
