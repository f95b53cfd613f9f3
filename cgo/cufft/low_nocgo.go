//go:build !cgo

package cufft

import (
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

// Without cgo cuFFT cannot be opened (no device can be either); job is unreachable.

type handle = unsafe.Pointer

func open(gpu unsafe.Pointer, path string) (handle, string, error) {
	return nil, "", &gpurt.LoadError{Library: "libcufft", Path: path, Reason: "cufft: " + native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

func (l *Library) free()       {}
func freeJob(p unsafe.Pointer) {}

func (l *Library) job(dt gpurt.DType, s Spec, opt gpurt.JobOptions) (unsafe.Pointer, int64, error) {
	return nil, 0, native.ErrNoCgo
}
