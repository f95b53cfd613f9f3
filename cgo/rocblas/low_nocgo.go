//go:build !cgo

package rocblas

import (
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

// Without cgo rocBLAS cannot be opened (no device can be either); the
// methods below are unreachable.

type handle = unsafe.Pointer

func open(gpu unsafe.Pointer, path string) (handle, string, error) {
	return nil, "", &gpurt.LoadError{Library: "librocblas", Path: path, Reason: "rocblas: " + native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

func (l *Library) free()       {}
func freeJob(p unsafe.Pointer) {}

func (l *Library) gemm(dt gpurt.DType, ta, tb bool, m, n, k int, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
