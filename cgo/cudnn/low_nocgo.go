//go:build !cgo

package cudnn

import (
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

// Without cgo cuDNN cannot be opened (no device can be either); the
// methods below are unreachable.

type handle = unsafe.Pointer

func open(gpu unsafe.Pointer, path string) (handle, string, error) {
	return nil, "", &gpurt.LoadError{Library: "libcudnn", Path: path, Reason: "cudnn: " + native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

func (l *Library) free()       {}
func freeJob(p unsafe.Pointer) {}

func (l *Library) job(op Op, dt gpurt.DType, rows, cols int, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
