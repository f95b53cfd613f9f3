package workload

import (
	"math"
	"math/rand/v2"
)

// Data holds a workload's inputs. Values are float64 but exactly
// representable in the workload's dtype, so a backend converting them loses
// nothing and the reference sees the very numbers the backend saw.
//
// Args, by op:
//
//	gemm     A, B   (A m×k, or k×m when TransA; B k×n, or n×k when TransB; row-major, tight)
//	gemv     A (m×n), x (n)
//	axpy     x, y   (y is also the output)
//	dot, add, mul   x, y
//	others   x
//	layer ops  see newLayerData (layer_ref.go)
//	quantization ops  see quantOperands (quant.go)
//	fft, ifft  x, interleaved complex (re, im); rfft x real (newFFTData, fft_ref.go)
//	spmv, spmm  the matrix's values (nnz, in SparseMatrix's order), x (cols) or X (cols×k)
//	csr2coo, coo2csr, csr2csc  the matrix's values (the pattern is SparseMatrix's)
type Data struct {
	Alpha float64 // axpy's scalar; 1 elsewhere
	Args  [][]float64
	// Unquantized holds what a quantized input stands for, for the
	// accuracy figures (QuantError): qlinear's x and W before
	// quantization. Kernels never see it.
	Unquantized [][]float64
}

// NewData makes the workload's inputs from seed. The same seed gives the
// same inputs on every machine. Values are never all zero: uniform in
// [-1, 1), or [-8, 8) for the ops whose interesting range is wider.
func (w Workload) NewData(seed uint64) Data {
	if w.Op.Layer() {
		return w.newLayerData(seed) // layer_ref.go
	}
	if w.Op.Quant() {
		return w.newQuantData(seed) // quant_data.go
	}
	if w.Op.Fourier() {
		return w.newFFTData(seed) // fft_ref.go
	}
	if w.Op.Sparse() {
		return w.newSparseData(seed) // sparse.go
	}
	rng := rand.New(rand.NewPCG(seed, uint64(len(w.Op))<<32^uint64(w.DType.Size())))
	scale := 1.0
	if w.Op.Transcendental() {
		scale = 8
	}
	fill := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = w.DType.Round(scale * (2*rng.Float64() - 1))
		}
		return v
	}
	// The integer types take their whole range: lo ≤ v ≤ hi.
	fillInts := func(n, lo, hi int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(lo + rng.IntN(hi-lo+1))
		}
		return v
	}
	s := w.Shape
	d := Data{Alpha: 1}
	switch {
	case w.Op == GEMM && w.DType == I8:
		d.Args = [][]float64{fillInts(s.M*s.K, -128, 127), fillInts(s.K*s.N, -128, 127)}
		return d
	case w.Op == GEMM && w.DType == U8S8:
		d.Args = [][]float64{fillInts(s.M*s.K, 0, 255), fillInts(s.K*s.N, -128, 127)}
		return d
	}
	switch w.Op {
	case GEMM:
		d.Args = [][]float64{fill(s.M * s.K), fill(s.K * s.N)}
	case GEMV:
		d.Args = [][]float64{fill(s.M * s.N), fill(s.N)}
	case AXPY:
		d.Alpha = w.DType.Round(0.75)
		d.Args = [][]float64{fill(s.N), fill(s.N)}
	case Dot, Add, Mul:
		d.Args = [][]float64{fill(s.N), fill(s.N)}
	case Softmax:
		d.Args = [][]float64{fill(s.M * s.N)}
	default:
		d.Args = [][]float64{fill(s.N)}
	}
	return d
}

// Round rounds v to the nearest value of the type, ties to even
// (tf32: to f32's range with 11 significant bits; the integer types: to
// the nearest integer, saturated to their range (u8s8: see OperandDType); e4m3, which has no
// infinities, saturates to ±448).
func (d DType) Round(v float64) float64 {
	switch d {
	case I8:
		return math.Max(-128, math.Min(127, math.RoundToEven(v)))
	case U8:
		return math.Max(0, math.Min(255, math.RoundToEven(v)))
	case I32:
		return math.Max(math.MinInt32, math.Min(math.MaxInt32, math.RoundToEven(v)))
	case E4M3:
		r := roundTo(v, 4, -6, 464) // 464: beyond it rounds above 448
		return math.Max(-448, math.Min(448, r))
	case E5M2:
		return roundTo(v, 3, -14, 57344)
	case F32:
		return float64(float32(v))
	case F16:
		return roundTo(v, 11, -14, 65504)
	case BF16:
		return roundTo(v, 8, -126, math.MaxFloat32)
	case TF32:
		return roundTo(v, 11, -126, math.MaxFloat32)
	}
	return v
}

// roundTo rounds v to the binary format with p significant bits, least
// normal exponent emin (subnormals below it, in steps of 2^(emin-p+1)) and
// largest finite value top (beyond it ±Inf, as rounding to nearest does
// from top + half an ulp on), ties to even. The arithmetic is exact: p ≤ 24.
func roundTo(v float64, p, emin int, top float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	_, e := math.Frexp(v) // |v| = f·2^e, f in [0.5, 1): the leading bit is 2^(e-1)
	q := max(e-1, emin) - (p - 1)
	r := math.Ldexp(math.RoundToEven(math.Ldexp(v, -q)), q)
	if math.Abs(r) > top {
		return math.Copysign(math.Inf(1), v)
	}
	return r
}

// ToF32 converts to float32 (exact for Data made for an f32 workload).
func ToF32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// FromF32 widens to float64.
func FromF32(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// sigmoid is the logistic function, stable for large |x|.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
