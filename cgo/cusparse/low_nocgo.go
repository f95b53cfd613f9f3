//go:build !cgo

package cusparse

import (
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

// Without cgo cuSPARSE cannot be opened (no device can be either); job is unreachable.

type handle = unsafe.Pointer

func open(gpu unsafe.Pointer, path string) (handle, string, error) {
	return nil, "", &gpurt.LoadError{Library: "libcusparse", Path: path, Reason: "cusparse: " + native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

func (l *Library) free()       {}
func freeJob(p unsafe.Pointer) {}

func (l *Library) job(dt gpurt.DType, rows, cols, k int, rowPtr, colIdx []int32, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}

func conversionsOf(h handle) (has [3]bool) { return has }

func (l *Library) convertJob(op Conversion, dt gpurt.DType, rows, cols, nnz int, ptr, idx []int32, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
