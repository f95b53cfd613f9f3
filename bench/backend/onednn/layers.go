package onednn

import (
	"fmt"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/onednn"
)

var layerOps = map[workload.Op]onednn.LayerOp{
	workload.Conv1D:          onednn.Conv,
	workload.Conv2D:          onednn.Conv,
	workload.Conv3D:          onednn.Conv,
	workload.MaxPool:         onednn.MaxPool,
	workload.AvgPool:         onednn.AvgPool,
	workload.AdaptiveAvgPool: onednn.AdaptiveAvgPool,
	workload.BatchNorm:       onednn.BatchNorm,
	workload.LayerNorm:       onednn.LayerNorm,
	workload.GroupNorm:       onednn.GroupNorm,
}

// convAlgorithms are the convolution algorithms the backend offers, by the
// name results record: oneDNN left to choose (dnnl_convolution_auto: direct
// or Winograd; its choice is the result's implementation).
var convAlgorithms = map[string]onednn.ConvAlgorithm{"auto": onednn.ConvAuto}

// Algorithms implements backend.BackendAlgorithms: convolutions run with
// oneDNN's automatic choice of algorithm, recorded as "auto".
func (b *Backend) Algorithms(w workload.Workload) []string {
	if w.Op.Kind() == workload.KindConv {
		return []string{"auto"}
	}
	return nil
}

// prepareLayer prepares a layer op: convolution, pooling (adaptive when
// its windows tile the input), batch and layer normalization, in f32
// (Declared: oneDNN 2.x has no group normalization).
func (b *Backend) prepareLayer(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	op := layerOps[w.Op]
	alg := cfg.Algorithm
	if w.Op.Kind() == workload.KindConv && alg == "" {
		alg = "auto"
	}
	ca, ok := convAlgorithms[alg]
	if !ok && alg != "" {
		return nil, fmt.Errorf("onednn: %s: unknown algorithm %q (accepted: auto)", w.Op, alg)
	}
	l := w.Shape.Layer
	g := onednn.Layer{N: l.N, C: l.C, K: l.K, In: l.In, Window: l.Window, Stride: l.Stride, Pad: l.Pad,
		Dil: l.Dil, Out: l.Out, Rank: l.Rank, NHWC: l.NHWC, Groups: l.Groups}
	opt := onednn.LayerOptions{
		JobOptions: jobOptions(cfg),
		Algorithm:  ca,
		Epsilon:    workload.NormEpsilon,
	}
	job, err := b.lib.PrepareLayer(op, onednn.F32, g, opt)
	if err != nil {
		return nil, wrap(w, err)
	}
	nargs, output := job.Args()
	for i := 0; i < nargs && i != output && i < len(in.Args); i++ {
		if err := job.SetInput(i, in.Args[i]); err != nil {
			job.Close()
			return nil, wrap(w, err)
		}
	}
	return layerKernel{kernel{job}, alg, onednn.Implementation(job)}, nil
}

// layerKernel names its algorithm and oneDNN's implementation.
type layerKernel struct {
	kernel
	algorithm, impl string
}

func (k layerKernel) Algorithm() string      { return k.algorithm }
func (k layerKernel) Implementation() string { return k.impl }
