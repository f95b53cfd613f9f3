package nvidia

import (
	"fmt"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cudnn"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

// Algorithms implements backend.BackendAlgorithms: cuDNN's convolutions
// run the algorithm cudnnFindConvolutionForwardAlgorithm finds fastest,
// recorded as "auto" with the algorithm as the implementation.
func (b *CUDNN) Algorithms(w workload.Workload) []string {
	if w.Op.Kind() == workload.KindConv {
		return []string{"auto"}
	}
	return nil
}

// prepareConv prepares a convolution forward (f32, FMA math). cuDNN's
// pooling and normalizations are not wired: those layer ops are not
// declared, and Prepare refuses them.
func (b *CUDNN) prepareConv(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if cfg.Algorithm != "" && cfg.Algorithm != "auto" {
		return nil, fmt.Errorf("cudnn: %s: unknown algorithm %q (accepted: auto)", w.Op, cfg.Algorithm)
	}
	l := w.Shape.Layer
	g := cudnn.Layer{N: l.N, C: l.C, K: l.K, In: l.In, Window: l.Window, Stride: l.Stride, Pad: l.Pad,
		Dil: l.Dil, Out: l.Out, Rank: l.Rank, NHWC: l.NHWC, Groups: l.Groups}
	job, err := b.lib.PrepareConv(gpurt.F32, g, gpurt.JobOptions{Copies: gpudev.Copies(cfg, w.Bytes(), b.dev)})
	if err != nil {
		return nil, wrap("cudnn", w, err)
	}
	if err := setInputs(job, in.Args[:2]...); err != nil {
		job.Close()
		return nil, wrap("cudnn", w, err)
	}
	return convKernel{kernel{job, b.mon}, cudnn.Algorithm(job)}, nil
}

// convKernel names its algorithm ("auto") and cuDNN's choice.
type convKernel struct {
	kernel
	algo string
}

func (convKernel) Algorithm() string        { return "auto" }
func (k convKernel) Implementation() string { return k.algo }
