// Package gokernels is what the go and asm backends share: every workload
// mapped onto peakbench's own kernel packages (gobackend/...) at one
// isa.Level. The go backend passes isa.Generic (the pure-Go kernels), the
// asm backend isa.Best (the assembly for this CPU).
package gokernels

import (
	"unsafe"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/elem"
	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/nn"
	"github.com/peakbench/peakbench/gobackend/reduce"
)

// Declared is what the go and asm backends compute: every op, in f32 and
// f64 (Prepare and PrepareLayer have a kernel for each), gemm in the
// low-precision types of LowpDTypes (PrepareLowp), and the quantization ops
// in their own dtypes (quant.go).
func Declared() backend.Support {
	s := backend.Support{}
	for _, op := range workload.Ops {
		if !op.Quant() {
			s.Add(workload.DTypes, op)
		}
	}
	s.Add(LowpDTypes, workload.GEMM)
	return declareQuant(s)
}

// Prepare makes the kernel of w on in with the kernels of level lvl and
// the extensions feats (qlinear's gemm: gemm.LowpKernel). Every op is
// supported.
func Prepare(lvl isa.Level, feats isa.Feature, w workload.Workload, in workload.Data, cfg backend.Config) backend.Kernel {
	if w.Op.Quant() {
		return prepareQuant(lvl, feats, w, in, cfg) // quant.go
	}
	if w.DType == workload.F32 {
		return prepare[float32](lvl, w, in, cfg)
	}
	return prepare[float64](lvl, w, in, cfg)
}

type buffers[T backend.Float] struct {
	args   [][]T
	out    []T
	scalar T
}

func prepare[T backend.Float](lvl isa.Level, w workload.Workload, in workload.Data, cfg backend.Config) backend.Kernel {
	s := w.Shape
	th := max(cfg.Threads, 1)
	sets := make([]buffers[T], max(cfg.Copies, 1))
	mem := new(hostmem.Arena)
	per := backend.SetSlots(w, len(in.Args))
	for c := range sets {
		set := &sets[c]
		for i, a := range in.Args {
			set.args = append(set.args, backend.Place[T](mem, a, c*per+i))
		}
		if w.Op != workload.AXPY && !w.Op.Reduces() {
			set.out = backend.PlaceZero[T](mem, w.OutputLen(), c*per+len(in.Args))
		}
	}
	alpha := T(in.Alpha)
	// Each step runs its workload n times in its own loop (NewHostBatchKernel),
	// its operands read once before it: on a 4 KiB dot, reading them from
	// the buffers in every call cost ~1 ns of ~22 (a0, a1: the inputs in order).
	var step func(b *buffers[T], n int)
	switch w.Op {
	case workload.GEMM:
		lda, ldb := s.K, s.N
		if s.TransA {
			lda = s.M
		}
		if s.TransB {
			ldb = s.K
		}
		step = func(b *buffers[T], n int) {
			a0, a1 := b.args[0], b.args[1]
			out := b.out
			for range n {
				gemm.Gemm(lvl, s.TransA, s.TransB, s.M, s.N, s.K, 1, a0, lda, a1, ldb, 0, out, s.N, th)
			}
		}
	case workload.GEMV:
		step = func(b *buffers[T], n int) {
			a0, a1 := b.args[0], b.args[1]
			out := b.out
			for range n {
				gemm.Gemv(lvl, false, s.M, s.N, 1, a0, s.N, a1, 1, 0, out, 1, th)
			}
		}
	case workload.AXPY:
		step = func(b *buffers[T], n int) {
			a0, a1 := b.args[0], b.args[1]
			for range n {
				elem.Axpy(lvl, alpha, a0, a1, th)
			}
		}
	case workload.Dot:
		step = func(b *buffers[T], n int) {
			a0, a1 := b.args[0], b.args[1]
			for range n {
				b.scalar = reduce.Dot(lvl, a0, a1, th)
			}
		}
	case workload.Add:
		step = func(b *buffers[T], n int) {
			a0, a1 := b.args[0], b.args[1]
			out := b.out
			for range n {
				elem.Add(lvl, a0, a1, out, th)
			}
		}
	case workload.Mul:
		step = func(b *buffers[T], n int) {
			a0, a1 := b.args[0], b.args[1]
			out := b.out
			for range n {
				elem.Mul(lvl, a0, a1, out, th)
			}
		}
	case workload.Sum:
		step = func(b *buffers[T], n int) {
			a0 := b.args[0]
			for range n {
				b.scalar = reduce.Sum(lvl, a0, th)
			}
		}
	case workload.Max:
		step = func(b *buffers[T], n int) {
			a0 := b.args[0]
			for range n {
				b.scalar = reduce.Max(lvl, a0, th)
			}
		}
	case workload.Softmax:
		step = func(b *buffers[T], n int) {
			a0 := b.args[0]
			out := b.out
			for range n {
				nn.Softmax(lvl, s.M, s.N, a0, out, th)
			}
		}
	case workload.ReLU:
		step = func(b *buffers[T], n int) {
			a0 := b.args[0]
			out := b.out
			for range n {
				elem.ReLU(lvl, a0, out, th)
			}
		}
	case workload.Sigmoid:
		step = func(b *buffers[T], n int) {
			a0 := b.args[0]
			out := b.out
			for range n {
				elem.Sigmoid(lvl, a0, out, th)
			}
		}
	case workload.Tanh:
		step = func(b *buffers[T], n int) {
			a0 := b.args[0]
			out := b.out
			for range n {
				elem.Tanh(lvl, a0, out, th)
			}
		}
	case workload.Exp:
		step = func(b *buffers[T], n int) {
			a0 := b.args[0]
			out := b.out
			for range n {
				elem.Exp(lvl, a0, out, th)
			}
		}
	default:
		panic("gokernels: Prepare of " + string(w.Op))
	}
	output := func(c int) []float64 {
		b := &sets[c]
		switch {
		case w.Op == workload.AXPY:
			return backend.Widen(b.args[1])
		case w.Op.Reduces():
			return []float64{float64(b.scalar)}
		}
		return backend.Widen(b.out)
	}
	k := backend.NewHostBatchKernel(mem, len(sets), func(c, n int) { step(&sets[c], n) }, output)
	switch w.Op {
	case workload.Add, workload.Mul, workload.ReLU, workload.Exp, workload.Tanh, workload.Sigmoid:
		if elem.StoresNonTemporal(lvl, len(in.Args), w.OutputLen(), int(unsafe.Sizeof(alpha))) {
			return nonTemporalKernel{k}
		}
	}
	return k
}
