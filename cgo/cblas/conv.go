package cblas

import (
	"fmt"

	"github.com/peakbench/peakbench/native"
)

// Layer is the geometry of a convolution (see native.Layer).
type Layer = native.Layer

// PrepareConv prepares a convolution y = x ⋆ w computed by im2col and the
// library's GEMM, both inside every timed iteration (include/peakbench.h,
// pb_cblas_job_conv): for each sample, the input values each output
// position sees are copied into a column buffer the job owns (in C, one
// thread), then one cblas_?gemm multiplies it with the filter. Arguments:
// 0 x, 1 w, 2 y (the output), in g's layout.
func (l *Library) PrepareConv(dt DType, g Layer, opt JobOptions) (*Job, error) {
	l.check()
	if err := l.checkJob("conv", dt, opt, g.N, g.C, g.K); err != nil {
		return nil, err
	}
	if g.Rank < 1 || g.Rank > 3 {
		return nil, fmt.Errorf("cblas: %s: conv: rank %d (accepted: 1 to 3)", l.name, g.Rank)
	}
	return l.job(func() (jobPtr, error) { return l.jobConv(dt, g, opt) })
}
