package cudnn

import (
	"fmt"
	"strings"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

// Layer is the geometry of a convolution (see native.Layer).
type Layer = native.Layer

// PrepareConv prepares a convolution forward, y = x ⋆ w (cross-correlation,
// no bias), in g's layout, f32 with CUDNN_FMA_MATH (no TF32): the
// algorithm is the fastest cudnnFindConvolutionForwardAlgorithm measures on
// the device (the heuristic's first when that fails), with the workspace it
// needs allocated once (include/peakbench.h, pb_cudnn_conv_job). Arguments:
// 0 x, 1 w, 2 y. Algorithm(job) names the algorithm chosen.
func (l *Library) PrepareConv(dt gpurt.DType, g Layer, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if g.Rank < 1 || g.Rank > 3 || g.N < 1 || g.C < 1 || g.K < 1 {
		return nil, fmt.Errorf("cudnn: conv: bad geometry %v", g)
	}
	if opt.Copies < 0 || opt.Copies > maxCopies {
		return nil, fmt.Errorf("cudnn: conv: copies %d outside [1, %d]", opt.Copies, maxCopies)
	}
	return l.MakeJob(func() (jobPtr, error) { return l.convJob(dt, g, opt) })
}

// Algorithm returns the convolution algorithm a PrepareConv job runs, as
// cuDNN names it without its prefix ("IMPLICIT_PRECOMP_GEMM"), or "".
func Algorithm(j *gpurt.Job) string {
	_, a, ok := strings.Cut(j.String(), "algo=")
	if !ok {
		return ""
	}
	return a
}
