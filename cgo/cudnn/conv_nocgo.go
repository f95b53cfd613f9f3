//go:build !cgo

package cudnn

import (
	"unsafe"

	"github.com/peakbench/peakbench/cgo/cuda"
	"github.com/peakbench/peakbench/native"
)

type jobPtr = unsafe.Pointer

func (l *Library) convJob(dt cuda.DType, g Layer, opt cuda.JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}
