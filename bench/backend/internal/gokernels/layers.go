package gokernels

import (
	"fmt"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/conv"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// The convolution algorithms of the go and asm backends, the default first.
const (
	Im2colGEMM = "im2col+gemm" // conv.Lowered: im2col, then gemm.Gemm
	Direct     = "direct"      // conv.DirectConv: in place, a small gemm.Gemm per output row and filter tap
)

// LayerAlgorithms lists the algorithms the go and asm backends offer for w:
// both for convolutions, the one way (nil) for everything else.
func LayerAlgorithms(w workload.Workload) []string {
	if w.Op.Kind() == workload.KindConv {
		return []string{Im2colGEMM, Direct}
	}
	if w.Op == workload.SpMV {
		return SpMVAlgorithms // sparse.go
	}
	return nil
}

// PrepareLayer makes the kernel of a layer op (conv, pools, norms) with the
// gobackend/conv kernels at level lvl, in f32 or f64.
func PrepareLayer(lvl isa.Level, w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	alg := cfg.Algorithm
	if w.Op.Kind() == workload.KindConv {
		if alg == "" {
			alg = Im2colGEMM
		}
		if alg != Im2colGEMM && alg != Direct {
			return nil, fmt.Errorf("%s: unknown convolution algorithm %q (accepted: %s, %s)", w.Op, alg, Im2colGEMM, Direct)
		}
	} else if alg != "" {
		return nil, fmt.Errorf("%s: no algorithm %q (it has one way)", w.Op, alg)
	}
	switch w.DType {
	case workload.F32:
		return prepareLayer[float32](lvl, w, in, cfg, alg), nil
	case workload.F64:
		return prepareLayer[float64](lvl, w, in, cfg, alg), nil
	}
	return nil, fmt.Errorf("%s %s: %w", w.Op, w.DType, backend.ErrUnsupported)
}

// layerKernel is a HostKernel that names its algorithm.
type layerKernel struct {
	*backend.HostKernel
	algorithm string
}

func (k layerKernel) Algorithm() string { return k.algorithm }

func prepareLayer[T backend.Float](lvl isa.Level, w workload.Workload, in workload.Data, cfg backend.Config, alg string) backend.Kernel {
	l := w.Shape.Layer
	th := max(cfg.Threads, 1)
	type set struct {
		args [][]T
		out  []T
	}
	sets := make([]set, max(cfg.Copies, 1))
	mem := new(hostmem.Arena)
	per := backend.SetSlots(w, len(in.Args))
	for c := range sets {
		for i, a := range in.Args {
			sets[c].args = append(sets[c].args, backend.Place[T](mem, a, c*per+i))
		}
		sets[c].out = backend.PlaceZero[T](mem, w.OutputLen(), c*per+len(in.Args))
	}
	p := conv.Params{N: l.N, C: l.C, K: l.K, In: l.In, Window: l.Window, Stride: l.Stride, Pad: l.Pad, Dil: l.Dil, NHWC: l.NHWC}
	sp := l.InSize()
	var step func(s *set)
	switch w.Op {
	case workload.Conv1D, workload.Conv2D, workload.Conv3D:
		if alg == Direct {
			dc := conv.NewDirectConv[T](p)
			step = func(s *set) { dc.Run(lvl, s.args[0], s.args[1], s.out, th) }
		} else {
			low := conv.NewLowered[T](p)
			step = func(s *set) { low.Run(lvl, s.args[0], s.args[1], s.out, th) }
		}
	case workload.MaxPool, workload.AvgPool, workload.AdaptiveAvgPool:
		kind := map[workload.Op]conv.PoolKind{workload.MaxPool: conv.Max, workload.AvgPool: conv.Avg, workload.AdaptiveAvgPool: conv.AdaptiveAvg}[w.Op]
		p.K = 0
		step = func(s *set) { conv.Pool(lvl, kind, p, l.Out, s.args[0], s.out, th) }
	case workload.BatchNorm:
		step = func(s *set) {
			a := s.args
			conv.BatchNorm(l.N, l.C, sp, l.NHWC, a[0], a[1], a[2], a[3], a[4], s.out, workload.NormEpsilon, th)
		}
	case workload.LayerNorm:
		step = func(s *set) {
			conv.LayerNorm(lvl, l.N, l.C*sp, s.args[0], s.args[1], s.args[2], s.out, workload.NormEpsilon, th)
		}
	case workload.GroupNorm:
		step = func(s *set) {
			conv.GroupNorm(lvl, l.N, l.C, sp, l.Groups, l.NHWC, s.args[0], s.args[1], s.args[2], s.out, workload.NormEpsilon, th)
		}
	default:
		panic("gokernels: PrepareLayer of " + string(w.Op))
	}
	if w.Op.Kind() != workload.KindConv {
		alg = ""
	}
	hk := backend.NewHostKernel(mem, len(sets), func(c int) { step(&sets[c]) }, func(c int) []float64 { return backend.Widen(sets[c].out) })
	return layerKernel{hk, alg}
}
