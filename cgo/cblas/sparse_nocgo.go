//go:build !cgo

package cblas

import "github.com/peakbench/peakbench/native"

func (l *Library) hasSparse() bool { return false }

func (l *Library) jobSparse(DType, int, int, int, []int32, []int32, bool, JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}
