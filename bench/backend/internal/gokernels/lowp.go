package gokernels

import (
	"fmt"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// LowpDTypes are the low-precision gemm dtypes the go and asm backends
// compute (gemm.GemmBF16, GemmF16, GemmI8, GemmU8S8). tf32 and the 8-bit
// floats have no kernel of ours.
var LowpDTypes = []workload.DType{workload.BF16, workload.F16, workload.I8, workload.U8S8}

// lowpTypes maps the dtypes to gemm's.
var lowpTypes = map[workload.DType]gemm.LowType{
	workload.BF16: gemm.BF16, workload.F16: gemm.F16, workload.I8: gemm.I8, workload.U8S8: gemm.U8S8,
}

// LowpKernel names the micro-kernel and compute unit of dt's gemm at lvl
// with feats (gemm.LowpKernel).
func LowpKernel(dt workload.DType, lvl isa.Level, feats isa.Feature) (name, unit string) {
	return gemm.LowpKernel(lowpTypes[dt], lvl, feats)
}

// lowpKernel is a host kernel that names its micro-kernel and unit.
type lowpKernel struct {
	*backend.HostKernel
	name, unit string
}

// ComputeUnit implements backend.KernelComputeUnit: the unit the
// micro-kernel's arithmetic runs on ("" for the pure-Go integer kernel:
// scalar code on no unit peakbench measures).
func (k lowpKernel) ComputeUnit() string { return k.unit }

// Implementation implements backend.KernelImplementation: the
// micro-kernel, e.g. "bf16gemm14x32AVX512BF16".
func (k lowpKernel) Implementation() string { return k.name }

// lowpSet is one set of a low-precision gemm's operands, in their storage
// types: bf16 and f16 as uint16 bits, C as float32 or int32.
type lowpSet struct {
	a16, b16 []uint16
	a8, b8   []int8
	au8      []uint8
	cf       []float32
	ci       []int32
}

// PrepareLowp makes the kernel of a low-precision gemm w (a dtype of
// LowpDTypes) with the kernels of lvl and feats.
func PrepareLowp(lvl isa.Level, feats isa.Feature, w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	typ, ok := lowpTypes[w.DType]
	if !ok || w.Op != workload.GEMM {
		return nil, fmt.Errorf("gokernels: %s %s: %w", w.Op, w.DType, backend.ErrUnsupported)
	}
	s := w.Shape
	th := max(cfg.Threads, 1)
	mem := new(hostmem.Arena)
	sets := make([]lowpSet, max(cfg.Copies, 1))
	per := backend.SetSlots(w, len(in.Args))
	for c := range sets {
		set := &sets[c]
		slot := func(i int) int { return backend.SlotOffset(c*per + i) }
		switch typ {
		case gemm.BF16, gemm.F16:
			conv := gemm.BF16Bits
			if typ == gemm.F16 {
				conv = gemm.F16Bits
			}
			set.a16, set.b16 = place16(mem, in.Args[0], slot(0), conv), place16(mem, in.Args[1], slot(1), conv)
			set.cf = hostmem.Slice[float32](mem, s.M*s.N, slot(2))
		default:
			if typ == gemm.I8 {
				set.a8 = place8[int8](mem, in.Args[0], slot(0))
			} else {
				set.au8 = place8[uint8](mem, in.Args[0], slot(0))
			}
			set.b8 = place8[int8](mem, in.Args[1], slot(1))
			set.ci = hostmem.Slice[int32](mem, s.M*s.N, slot(2))
		}
	}
	lda, ldb := s.K, s.N
	if s.TransA {
		lda = s.M
	}
	if s.TransB {
		ldb = s.K
	}
	m, n, k, tA, tB := s.M, s.N, s.K, s.TransA, s.TransB
	var step func(b *lowpSet, iters int)
	switch typ {
	case gemm.BF16:
		step = func(b *lowpSet, iters int) {
			for range iters {
				gemm.GemmBF16(lvl, feats, tA, tB, m, n, k, b.a16, lda, b.b16, ldb, b.cf, n, th)
			}
		}
	case gemm.F16:
		step = func(b *lowpSet, iters int) {
			for range iters {
				gemm.GemmF16(lvl, feats, tA, tB, m, n, k, b.a16, lda, b.b16, ldb, b.cf, n, th)
			}
		}
	case gemm.I8:
		step = func(b *lowpSet, iters int) {
			for range iters {
				gemm.GemmI8(lvl, feats, tA, tB, m, n, k, b.a8, lda, b.b8, ldb, b.ci, n, th)
			}
		}
	case gemm.U8S8:
		step = func(b *lowpSet, iters int) {
			for range iters {
				gemm.GemmU8S8(lvl, feats, tA, tB, m, n, k, b.au8, lda, b.b8, ldb, b.ci, n, th)
			}
		}
	}
	output := func(c int) []float64 {
		b := &sets[c]
		if b.cf != nil {
			return backend.Widen(b.cf)
		}
		out := make([]float64, len(b.ci))
		for i, v := range b.ci {
			out[i] = float64(v)
		}
		return out
	}
	name, unit := gemm.LowpKernel(typ, lvl, feats)
	hk := backend.NewHostBatchKernel(mem, len(sets), func(c, n int) { step(&sets[c], n) }, output)
	return lowpKernel{HostKernel: hk, name: name, unit: unit}, nil
}

// place16 stores v (values exact in bf16 or f16) as bits.
func place16(mem *hostmem.Arena, v []float64, off int, conv func(float32) uint16) []uint16 {
	out := hostmem.Slice[uint16](mem, len(v), off)
	for i, x := range v {
		out[i] = conv(float32(x))
	}
	return out
}

// place8 stores v (integers in T's range) as T.
func place8[T int8 | uint8](mem *hostmem.Arena, v []float64, off int) []T {
	out := hostmem.Slice[T](mem, len(v), off)
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}
