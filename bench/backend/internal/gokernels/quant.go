package gokernels

import (
	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/quant"
)

// declareQuant adds the quantization ops, each in its dtypes, to s.
func declareQuant(s backend.Support) backend.Support {
	for _, op := range workload.QuantOps {
		s.Add(op.QuantDTypes(), op)
	}
	return s
}

// quantSet is one buffer set of a quantization workload, each operand in
// its own type; which fields are used depends on the op.
type quantSet struct {
	f32  []float32 // quantize's and convert's x; dequantize's, widen's and qlinear's output
	i8   []int8    // i8 q (quantize's output, dequantize's input); qlinear's i8 x
	u8   []uint8   // u8 q; qlinear's u8 x
	h16  []uint16  // convert's output, widen's input
	w    []int8    // qlinear's weights
	bias []float32 // qlinear's bias
}

// placeAs returns v converted to T in slot's place in mem.
func placeAs[T int8 | uint8 | uint16 | float32](mem *hostmem.Arena, v []float64, slot int, conv func(float64) T) []T {
	out := hostmem.Slice[T](mem, len(v), backend.SlotOffset(slot))
	for i, x := range v {
		out[i] = conv(x)
	}
	return out
}

func toI8(v float64) int8     { return int8(v) }
func toU8(v float64) uint8    { return uint8(v) }
func toF32(v float64) float32 { return float32(v) }

// prepareQuant makes the kernel of a quantization workload: the data's
// scales and zero points are read once (they are parameters, as PyTorch's
// quantize_per_tensor takes them), the tensors placed as the other ops'.
func prepareQuant(lvl isa.Level, feats isa.Feature, w workload.Workload, in workload.Data, cfg backend.Config) backend.Kernel {
	th := max(cfg.Threads, 1)
	s := w.Shape
	n := w.OutputLen()
	u8 := w.DType == workload.U8 || w.DType.OperandDType(0) == workload.U8
	format := quant.BF16
	if w.DType == workload.F16 {
		format = quant.F16
	}
	var scales []float32
	var zps []int32
	if w.Op == workload.Quantize || w.Op == workload.Dequantize {
		for r := range in.Args[1] {
			scales = append(scales, float32(in.Args[1][r]))
			zps = append(zps, int32(in.Args[2][r]))
		}
	}
	sets := make([]quantSet, max(cfg.Copies, 1))
	mem := new(hostmem.Arena)
	per := backend.SetSlots(w, len(in.Args))
	for c := range sets {
		b, in0, out := &sets[c], c*per, c*per+len(in.Args)
		switch w.Op {
		case workload.Quantize:
			b.f32 = placeAs(mem, in.Args[0], in0, toF32)
			if u8 {
				b.u8 = hostmem.Slice[uint8](mem, n, backend.SlotOffset(out))
			} else {
				b.i8 = hostmem.Slice[int8](mem, n, backend.SlotOffset(out))
			}
		case workload.Dequantize:
			if u8 {
				b.u8 = placeAs(mem, in.Args[0], in0, toU8)
			} else {
				b.i8 = placeAs(mem, in.Args[0], in0, toI8)
			}
			b.f32 = backend.PlaceZero[float32](mem, n, out)
		case workload.Convert:
			b.f32 = placeAs(mem, in.Args[0], in0, toF32)
			b.h16 = hostmem.Slice[uint16](mem, n, backend.SlotOffset(out))
		case workload.Widen:
			b.h16 = placeAs(mem, in.Args[0], in0, func(v float64) uint16 { return bits16(format, float32(v)) })
			b.f32 = backend.PlaceZero[float32](mem, n, out)
		case workload.QLinear:
			if u8 {
				b.u8 = placeAs(mem, in.Args[0], in0, toU8)
			} else {
				b.i8 = placeAs(mem, in.Args[0], in0, toI8)
			}
			b.w = placeAs(mem, in.Args[1], in0+1, toI8)
			b.bias = placeAs(mem, in.Args[2], in0+2, toF32)
			b.f32 = backend.PlaceZero[float32](mem, n, out)
		}
	}
	perChannel := w.PerChannel()
	var step func(b *quantSet, iters int)
	switch w.Op {
	case workload.Quantize:
		step = func(b *quantSet, iters int) {
			for range iters {
				switch {
				case perChannel && u8:
					quant.QuantizeRows(lvl, s.N, b.f32, scales, zps, b.u8, th)
				case perChannel:
					quant.QuantizeRows(lvl, s.N, b.f32, scales, zps, b.i8, th)
				case u8:
					quant.Quantize(lvl, b.f32, scales[0], zps[0], b.u8, th)
				default:
					quant.Quantize(lvl, b.f32, scales[0], zps[0], b.i8, th)
				}
			}
		}
	case workload.Dequantize:
		step = func(b *quantSet, iters int) {
			for range iters {
				switch {
				case perChannel && u8:
					quant.DequantizeRows(lvl, s.N, b.u8, scales, zps, b.f32, th)
				case perChannel:
					quant.DequantizeRows(lvl, s.N, b.i8, scales, zps, b.f32, th)
				case u8:
					quant.Dequantize(lvl, b.u8, scales[0], zps[0], b.f32, th)
				default:
					quant.Dequantize(lvl, b.i8, scales[0], zps[0], b.f32, th)
				}
			}
		}
	case workload.Convert:
		step = func(b *quantSet, iters int) {
			for range iters {
				quant.Narrow(lvl, format, b.f32, b.h16, th)
			}
		}
	case workload.Widen:
		step = func(b *quantSet, iters int) {
			for range iters {
				quant.Widen(lvl, format, b.h16, b.f32, th)
			}
		}
	case workload.QLinear:
		sx, sw := float32(in.Args[3][0]), float32(in.Args[3][1])
		step = func(b *quantSet, iters int) {
			for range iters {
				if u8 {
					quant.QLinear(lvl, feats, s.M, s.N, s.K, b.u8, b.w, b.bias, sx, sw, b.f32, th)
				} else {
					quant.QLinear(lvl, feats, s.M, s.N, s.K, b.i8, b.w, b.bias, sx, sw, b.f32, th)
				}
			}
		}
	default:
		panic("gokernels: prepareQuant of " + string(w.Op))
	}
	output := func(c int) []float64 {
		b := &sets[c]
		out := make([]float64, n)
		switch {
		case w.Op == workload.Quantize && u8:
			for i, v := range b.u8 {
				out[i] = float64(v)
			}
		case w.Op == workload.Quantize:
			for i, v := range b.i8 {
				out[i] = float64(v)
			}
		case w.Op == workload.Convert:
			for i, v := range b.h16 {
				out[i] = float64(value16(format, v))
			}
		default:
			for i, v := range b.f32 {
				out[i] = float64(v)
			}
		}
		return out
	}
	k := backend.NewHostBatchKernel(mem, len(sets), func(c, iters int) { step(&sets[c], iters) }, output)
	if w.Op == workload.QLinear {
		name, unit := quant.QLinearKernel[int8](lvl, feats)
		if u8 {
			name, unit = quant.QLinearKernel[uint8](lvl, feats)
		}
		return lowpKernel{HostKernel: k, name: name, unit: unit}
	}
	if (w.Op == workload.Quantize && quant.QuantizeStoresNonTemporal(lvl, n)) || (w.Op == workload.Dequantize && quant.DequantizeStoresNonTemporal(lvl, n)) {
		return nonTemporalKernel{k}
	}
	return k
}

// nonTemporalKernel is a kernel whose stores skip the caches
// (quant.QuantizeStoresNonTemporal, DequantizeStoresNonTemporal,
// elem.StoresNonTemporal): its ceiling is the non-temporal copy's.
type nonTemporalKernel struct{ *backend.HostKernel }

func (nonTemporalKernel) NonTemporalStores() bool { return true }

// bits16 and value16 convert between f32 and a 16-bit format's bits.
func bits16(f quant.Format, v float32) uint16 {
	if f == quant.F16 {
		return quant.F16Bits(v)
	}
	return quant.BF16Bits(v)
}

func value16(f quant.Format, h uint16) float32 {
	if f == quant.F16 {
		return quant.F16Value(h)
	}
	return quant.BF16Value(h)
}
