package workload

import (
	"fmt"
	"math"
)

// qlinearTolULPs bounds qlinear's error in f32 roundoffs (2^-24), relative
// to |scale_x·scale_w·acc| + |bias|: the integer sum is exact, and after it
// come four f32 roundings (acc to f32, scale_x·scale_w, the product, the
// bias's add) in whichever order a library takes them, plus margin. An
// integer sum off by one shows wherever |acc| < 2^24/5, which holds for
// the normal data NewData makes.
const qlinearTolULPs = 5

// verifyQuant checks a quantization op's output. convert, widen and
// dequantize are exact against their rounding references; quantize is
// exact but for an element whose x·(1/scale) lands on (or, for a library
// that divides instead or adds the zero point before rounding, within f32
// rounding of) a half-integer, which may be one step off: libraries that
// round half away from zero (PyTorch's reference quantizer, std::round) do
// so there, and so does oneDNN's reorder, which rounds x·(1/scale) + zp to
// even (an odd zero point moves the even neighbour). qlinear is checked within
// qlinearTolULPs, on every row or, past fullGEMMLimit multiply-adds, on a
// spread sample of rows.
func (w Workload) verifyQuant(d Data, out []float64) Check {
	switch w.Op {
	case Quantize:
		return w.verifyQuantize(d, out)
	case QLinear:
		rows := qlinearRows(w)
		ref, scale := w.qlinearRef(d, rows)
		got := make([]float64, 0, len(ref))
		for _, i := range rows {
			got = append(got, out[i*w.Shape.N:(i+1)*w.Shape.N]...)
		}
		c := compare(got, ref, scale, qlinearTolULPs*F32.Epsilon())
		c.Method = "full"
		if len(rows) < w.Shape.M {
			c.Method = fmt.Sprintf("sampled rows (%d of %d)", len(rows), w.Shape.M)
		}
		return c
	}
	ref := w.quantElementRef(d)
	c := compare(out, ref, absOf(ref), 0)
	c.Method = "full"
	return c
}

// quantElementRef is the exact result of dequantize, convert and widen.
func (w Workload) quantElementRef(d Data) []float64 {
	x := d.Args[0]
	ref := make([]float64, len(x))
	switch w.Op {
	case Dequantize:
		cols := w.Shape.N
		for i, q := range x {
			r := i / cols
			ref[i] = DequantizeValue(q, d.Args[1][r], d.Args[2][r])
		}
	case Convert:
		for i, v := range x {
			ref[i] = w.DType.Round(v)
		}
	case Widen:
		copy(ref, x)
	}
	return ref
}

// verifyQuantize checks quantize exactly, but for one step at a tie. Its
// MaxRelErr is the largest difference in steps (quantization levels), and
// its tolerance one step, which only a tie may take.
func (w Workload) verifyQuantize(d Data, out []float64) Check {
	x, scales, zps := d.Args[0], d.Args[1], d.Args[2]
	cols := w.Shape.N
	c := Check{OK: true, Tolerance: 1, Method: "full"}
	ties := 0
	for i, o := range out {
		r := i / cols
		ref := QuantizeValue(x[i], scales[r], zps[r], w.DType)
		if o == ref {
			continue
		}
		diff := math.Abs(o - ref)
		if math.IsNaN(diff) {
			diff = math.MaxFloat64
		}
		c.MaxRelErr = math.Max(c.MaxRelErr, diff)
		if diff == 1 && nearTie(x[i], scales[r], zps[r]) {
			ties++
			continue
		}
		if c.OK {
			c.OK = false
			c.Detail = fmt.Sprintf("element %d is %g, want %g (x = %g, scale %g, zero point %g)", i, o, ref, x[i], scales[r], zps[r])
		}
	}
	if c.OK && ties > 0 {
		c.Detail = fmt.Sprintf("%d elements on a rounding tie one step off (rounded half away from zero, or with the zero point added before rounding)", ties)
	}
	return c
}

// nearTie reports whether x/scale is a half-integer, or within the f32
// roundings by which x·(1/scale), x/scale and, for a library that adds the
// zero point before rounding (oneDNN's reorder), fl32(x·(1/scale) + zp)
// differ (2^-21 relative to |x/scale| + |zp|).
func nearTie(x, scale, zp float64) bool {
	p := x / scale
	return math.Abs(math.Abs(p-math.Floor(p))-0.5) <= 0x1p-21*math.Max(math.Abs(p)+math.Abs(zp), 1)
}

// qlinearRows lists the rows of y verified and measured for accuracy:
// every row, or past fullGEMMLimit multiply-adds an even spread of them
// with the first and the last.
func qlinearRows(w Workload) []int {
	s := w.Shape
	keep := s.M
	if work := float64(s.M) * float64(s.N) * float64(s.K); work > fullGEMMLimit {
		keep = max(2, int(float64(s.M)*fullGEMMLimit/work))
	}
	rows := make([]int, 0, keep)
	for i := range keep {
		rows = append(rows, i*(s.M-1)/max(keep-1, 1))
	}
	return rows
}

// qlinearRef returns y's rows (concatenated) and each element's error
// scale: scale_x·scale_w·acc + bias with acc the exact integer sum.
func (w Workload) qlinearRef(d Data, rows []int) (ref, scale []float64) {
	s := w.Shape
	xq, wq, bias, sc := d.Args[0], d.Args[1], d.Args[2], d.Args[3]
	acc := rowsTimesT(xq, wq, rows, s.N, s.K)
	ref, scale = make([]float64, len(acc)), make([]float64, len(acc))
	sxw := sc[0] * sc[1]
	for i, a := range acc {
		b := bias[i%s.N]
		ref[i] = sxw*a + b
		scale[i] = math.Abs(sxw*a) + math.Abs(b)
	}
	return ref, scale
}

// rowsTimesT returns the given rows of a·bᵀ (a m×k, b n×k, row-major),
// concatenated; exact for the integer operands of qlinear (|sums| < 2^53).
func rowsTimesT(a, b []float64, rows []int, n, k int) []float64 {
	c := make([]float64, len(rows)*n)
	parallelRows(len(rows), func(r int) {
		ai, ci := a[rows[r]*k:(rows[r]+1)*k], c[r*n:(r+1)*n]
		for j := range n {
			bj := b[j*k : (j+1)*k]
			var sum float64
			for p, v := range ai {
				sum += v * bj[p]
			}
			ci[j] = sum
		}
	})
	return c
}

// QuantAccuracy is how far a quantization result is from the f32 values
// it stands for.
type QuantAccuracy struct {
	// SQNRdB is the signal-to-quantization-noise ratio,
	// 10·log10(Σ x² / Σ (x − x̂)²); +Inf where x̂ = x.
	SQNRdB float64
	// MaxAbsErr is the largest |x − x̂|.
	MaxAbsErr float64
}

// QuantError measures a quantize, convert or qlinear output against the
// f32 input it stands for: quantize's x against dequantize(q) with the
// same scales, convert's x against its bf16 or f16 value, qlinear's output
// against the f32 layer on the unquantized x and W (on qlinearRows). The
// other ops have no such error (dequantize and widen are exact); ok is
// false for them.
func (w Workload) QuantError(d Data, out []float64) (acc QuantAccuracy, ok bool) {
	if len(out) != w.OutputLen() {
		return acc, false
	}
	var signal, noise []float64
	switch w.Op {
	case Quantize:
		x, scales, zps := d.Args[0], d.Args[1], d.Args[2]
		signal, noise = x, make([]float64, len(x))
		for i, v := range x {
			r := i / w.Shape.N
			noise[i] = v - scales[r]*(out[i]-zps[r])
		}
	case Convert:
		signal, noise = d.Args[0], make([]float64, len(out))
		for i, v := range signal {
			noise[i] = v - out[i]
		}
	case QLinear:
		if len(d.Unquantized) != 2 {
			return acc, false
		}
		s := w.Shape
		rows := qlinearRows(w)
		signal = rowsTimesT(d.Unquantized[0], d.Unquantized[1], rows, s.N, s.K)
		noise = make([]float64, len(signal))
		for r, i := range rows {
			for j := range s.N {
				e := r*s.N + j
				signal[e] += d.Args[2][j]
				noise[e] = signal[e] - out[i*s.N+j]
			}
		}
	default:
		return acc, false
	}
	var sig, err float64
	for i, v := range signal {
		sig += v * v
		err += noise[i] * noise[i]
		acc.MaxAbsErr = math.Max(acc.MaxAbsErr, math.Abs(noise[i]))
	}
	acc.SQNRdB = 10 * math.Log10(sig/err)
	return acc, true
}

// quantReference is the float64 result of a quantization op on d.
func (w Workload) quantReference(d Data) []float64 {
	switch w.Op {
	case Quantize:
		return quantizeRows(d.Args[0], d.Args[1], d.Args[2], w.DType)
	case QLinear:
		rows := make([]int, w.Shape.M)
		for i := range rows {
			rows[i] = i
		}
		ref, _ := w.qlinearRef(d, rows)
		return ref
	}
	return w.quantElementRef(d)
}
