//go:build !cgo

package onednn

import (
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// Without cgo oneDNN cannot be opened; the methods below are unreachable.

type handle = struct{}

func open(path string) (handle, string, error) {
	return handle{}, "", &LoadError{Path: path, Reason: native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

func (l *Library) free()                  {}
func (l *Library) setThreads(n int) error { return native.ErrNoCgo }
func (l *Library) threads() int           { return 0 }

func (l *Library) job(op Op, dt DType, rows, cols int, opt JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
