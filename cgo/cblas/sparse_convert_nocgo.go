//go:build !cgo

package cblas

import "github.com/peakbench/peakbench/native"

func (l *Library) hasSparseConversions() bool { return false }

func (l *Library) jobSparseConversion(SparseConversion, DType, int, int, int, JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}
