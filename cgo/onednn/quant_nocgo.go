//go:build !cgo

package onednn

import (
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

func (l *Library) quantJob(s QuantSpec, opt JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
