//go:build !cgo

package cblas

import "github.com/peakbench/peakbench/native"

func (l *Library) jobConv(dt DType, g Layer, opt JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}
