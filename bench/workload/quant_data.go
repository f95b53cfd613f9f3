package workload

import (
	"math"
	"math/rand/v2"
)

// newQuantData makes a quantization workload's inputs (quantOperands lists
// them). Values are normally distributed, as networks' weights and
// activations roughly are, and f32; scales and zero points are chosen from
// each channel's range as PyTorch's MinMaxObserver chooses them, so nothing
// saturates. qlinear's x_q and W_q are such quantizations of f32 values
// kept in Unquantized.
func (w Workload) newQuantData(seed uint64) Data {
	rng := rand.New(rand.NewPCG(seed, uint64(len(w.Op))<<32^uint64(w.DType.Size())))
	normal := func(n int, sigma float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(float32(sigma * rng.NormFloat64()))
		}
		return v
	}
	s, n := w.Shape, w.quantLen()
	d := Data{Alpha: 1}
	switch w.Op {
	case Quantize, Dequantize:
		x := normal(n, 1)
		scales, zps := chooseScales(x, w.quantRows(), w.DType)
		if w.Op == Quantize {
			d.Args = [][]float64{x, scales, zps}
			return d
		}
		d.Args = [][]float64{quantizeRows(x, scales, zps, w.DType), scales, zps}
	case Convert:
		d.Args = [][]float64{normal(n, 1)}
	case Widen:
		x := normal(n, 1)
		for i, v := range x {
			x[i] = w.DType.Round(v)
		}
		d.Args = [][]float64{x}
	case QLinear:
		// Activations after a ReLU (|x|) for u8, signed ones for i8;
		// weights of a layer with k inputs (σ = 1/√k).
		xf := normal(s.M*s.K, 1)
		xType := w.DType.OperandDType(0)
		if xType == U8 {
			for i, v := range xf {
				xf[i] = math.Abs(v)
			}
		}
		wf := normal(s.N*s.K, 1/math.Sqrt(float64(s.K)))
		sx, zx := chooseScales(xf, 1, xType)
		sw, zw := chooseScales(wf, 1, I8)
		bias := normal(s.N, 0.1)
		d.Args = [][]float64{quantizeRows(xf, sx, zx, xType), quantizeRows(wf, sw, zw, I8), bias, {sx[0], sw[0]}}
		d.Unquantized = [][]float64{xf, wf}
	}
	return d
}

// chooseScales returns a scale (f32) and a zero point for each of rows
// equal rows of x: i8 symmetric, scale max|x|/127 and zero point 0; u8
// asymmetric over [min(x, 0), max(x, 0)], scale (max − min)/255 and zero
// point −min/scale rounded, as PyTorch's MinMaxObserver.
func chooseScales(x []float64, rows int, dt DType) (scales, zps []float64) {
	cols := len(x) / rows
	scales, zps = make([]float64, rows), make([]float64, rows)
	for r := range rows {
		lo, hi := 0.0, 0.0
		for _, v := range x[r*cols : (r+1)*cols] {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		var s float64
		if dt == U8 {
			s = (hi - lo) / 255
		} else {
			s = math.Max(-lo, hi) / 127
		}
		if s == 0 {
			s = 1 // an all-zero row
		}
		scales[r] = float64(float32(s))
		if dt == U8 {
			zps[r] = U8.Round(-lo / scales[r])
		}
	}
	return scales, zps
}

// quantizeRows quantizes rows of x, each with its scale and zero point.
func quantizeRows(x, scales, zps []float64, dt DType) []float64 {
	cols := len(x) / len(scales)
	q := make([]float64, len(x))
	for i, v := range x {
		r := i / cols
		q[i] = QuantizeValue(v, scales[r], zps[r], dt)
	}
	return q
}

// QuantMultiplier is what x is multiplied by to quantize it: 1/scale
// rounded to f32, as vector kernels (fbgemm's inverse scale, oneDNN's
// reorder scale) do instead of dividing.
func QuantMultiplier(scale float64) float32 { return 1 / float32(scale) }

// QuantizeValue is the reference quantization of x:
// clamp(rne(fl32(x·QuantMultiplier(scale))) + zp) to dt's range (i8
// −128…127, u8 0…255), rounding half to even as VCVTPS2DQ does in the
// default rounding mode, and as oneDNN does.
func QuantizeValue(x, scale, zp float64, dt DType) float64 {
	p := float32(float32(x) * QuantMultiplier(scale))
	return dt.Round(math.RoundToEven(float64(p)) + zp)
}

// DequantizeValue is the reference dequantization: fl32(scale·(q − zp)),
// one f32 rounding (q − zp is an exact small integer).
func DequantizeValue(q, scale, zp float64) float64 {
	return float64(float32(scale) * float32(q-zp))
}
