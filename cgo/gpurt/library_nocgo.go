//go:build !cgo

package gpurt

import (
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// Without cgo no library can be opened; the methods below are unreachable.

type libHandle = unsafe.Pointer

func openLibrary(gpu unsafe.Pointer, name, path string) (libHandle, string, error) {
	return nil, "", &LoadError{Library: "lib" + name, Path: path, Reason: name + ": " + native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

func (l *Library) free()              {}
func freeLibraryJob(p unsafe.Pointer) {}

func (l *Library) job(dt DType, params []int64, opt JobOptions, reported []int64) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}

func registeredLibraries() []string { return nil }
