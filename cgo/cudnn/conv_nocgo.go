//go:build !cgo

package cudnn

import (
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

type jobPtr = unsafe.Pointer

func (l *Library) convJob(dt gpurt.DType, g Layer, opt gpurt.JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}
