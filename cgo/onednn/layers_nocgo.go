//go:build !cgo

package onednn

import (
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

func (l *Library) layerJob(op LayerOp, dt DType, g Layer, opt LayerOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
