//go:build !cgo

package onednn

import (
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

func (l *Library) gemmImplC(t GEMMType) string { return "" }

func (l *Library) gemmJob(t GEMMType, transA, transB bool, m, n, k int, opt JobOptions) (unsafe.Pointer, error) {
	return nil, native.ErrNoCgo
}
