package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Check is the outcome of verifying one output against the reference.
//
// The error of element i is |out[i] − ref[i]| / scale[i], where scale[i] is
// the magnitude the computation worked with (Σ|a||b| for a dot product, |ref|
// for a function value), so cancellation cannot make a correct result look
// wrong. Tolerance is a rigorous bound for correct IEEE arithmetic in any
// summation order (γ_k ≈ k·ε for k terms) or, for transcendental functions,
// a fixed number of ulps.
type Check struct {
	OK        bool
	MaxRelErr float64 // largest element error; math.MaxFloat64 for a NaN or Inf output
	Tolerance float64
	Method    string // "full", or "projection+sampled" for large gemm
	Detail    string // the first failing element, when not OK
}

// fullGEMMLimit is the largest m·n·k checked element by element; larger
// products are checked by projection (C·t against A·(B·t)) plus sampled
// elements, which costs O(mn + nk + mk) instead of O(mnk).
const fullGEMMLimit = 1 << 27

// transcendentalULPs bounds the error allowed in exp, tanh and sigmoid, in
// units of the type's roundoff: vector math libraries promise 1–4 ulp.
const transcendentalULPs = 64

// Verify checks out, a kernel's output, against the float64 reference.
func (w Workload) Verify(d Data, out []float64) Check {
	if len(out) != w.OutputLen() {
		return Check{MaxRelErr: math.MaxFloat64, Method: "full",
			Detail: fmt.Sprintf("output has %d elements, want %d", len(out), w.OutputLen())}
	}
	if w.Op.Layer() {
		return w.verifyLayer(d, out) // layer_ref.go
	}
	if w.Op.Quant() {
		return w.verifyQuant(d, out) // quant_ref.go
	}
	if w.Op.Fourier() {
		return w.verifyFFT(d, out) // fft_ref.go
	}
	if w.Op.SparseConversion() {
		return w.verifyConversion(d, out) // sparse_convert.go
	}
	if w.Op == GEMM && float64(w.Shape.M)*float64(w.Shape.N)*float64(w.Shape.K) > fullGEMMLimit {
		return w.verifyProjected(d, out)
	}
	ref, scale, tol := w.reference(d)
	c := compare(out, ref, scale, tol*w.DType.Epsilon())
	c.Method = "full"
	return c
}

// Reference returns the float64 result of the workload on d.
func (w Workload) Reference(d Data) []float64 {
	if w.Op.Quant() {
		return w.quantReference(d) // quant_ref.go
	}
	if w.Op.SparseConversion() {
		return w.ConversionReference(d) // sparse_convert.go
	}
	ref, _, _ := w.reference(d)
	return ref
}

// reference computes the exact-as-float64 result, each element's error
// scale, and the tolerance in units of the dtype's roundoff.
func (w Workload) reference(d Data) (ref, scale []float64, tolULPs float64) {
	if w.Op.Layer() {
		return w.layerReference(d)
	}
	if w.Op.Fourier() {
		ref := w.fftReference(d)
		return ref, absOf(ref), w.Shape.fftTolULPs()
	}
	if w.Op.Sparse() {
		return w.sparseReference(d) // sparse.go
	}
	s := w.Shape
	x := d.Args[0]
	n := len(x)
	switch w.Op {
	case GEMM:
		a, b := w.plainOperands(d)
		ref, scale = matmul(a, b, s.M, s.N, s.K)
		return ref, scale, w.gemmTolULPs()
	case GEMV:
		ref, scale = matmul(d.Args[0], d.Args[1], s.M, 1, s.N)
		return ref, scale, float64(s.N) + 2
	case Dot, Sum:
		var sum, abs float64
		for i, v := range x {
			if w.Op == Dot {
				v *= d.Args[1][i]
			}
			sum += v
			abs += math.Abs(v)
		}
		return []float64{sum}, []float64{abs}, float64(n) + 2
	case Max:
		m := math.Inf(-1)
		for _, v := range x {
			m = math.Max(m, v)
		}
		return []float64{m}, []float64{math.Abs(m)}, 0
	case Softmax:
		ref = make([]float64, len(x))
		for r := 0; r < s.M; r++ {
			row, o := x[r*s.N:(r+1)*s.N], ref[r*s.N:(r+1)*s.N]
			m := math.Inf(-1)
			for _, v := range row {
				m = math.Max(m, v)
			}
			var sum float64
			for j, v := range row {
				o[j] = math.Exp(v - m)
				sum += o[j]
			}
			for j := range o {
				o[j] /= sum
			}
		}
		return ref, absOf(ref), transcendentalULPs + float64(s.N)
	}
	ref, scale = make([]float64, n), make([]float64, n)
	tol := 2.0
	for i, v := range x {
		switch w.Op {
		case AXPY:
			p := d.Alpha * v
			ref[i], scale[i] = p+d.Args[1][i], math.Abs(p)+math.Abs(d.Args[1][i])
		case Add:
			y := d.Args[1][i]
			ref[i], scale[i] = v+y, math.Abs(v)+math.Abs(y)
		case Mul:
			ref[i] = v * d.Args[1][i]
			scale[i] = math.Abs(ref[i])
		case ReLU:
			ref[i], scale[i] = math.Max(v, 0), math.Abs(v)
		case Sigmoid:
			ref[i], tol = sigmoid(v), transcendentalULPs
		case Tanh:
			ref[i], tol = math.Tanh(v), transcendentalULPs
		case Exp:
			ref[i], tol = math.Exp(v), transcendentalULPs
		}
		if w.Op.Transcendental() {
			scale[i] = math.Abs(ref[i])
		}
	}
	return ref, scale, tol
}

func absOf(v []float64) []float64 {
	a := make([]float64, len(v))
	for i, x := range v {
		a[i] = math.Abs(x)
	}
	return a
}

// gemmTolULPs is a gemm's tolerance in units of the dtype's roundoff ε,
// relative to Σ|a||b|. f32 and f64: γ_k ≈ (k+2)·ε for k products summed in
// the type, in any order. f16, bf16, tf32 and fp8: the inputs are exact in
// the type (NewData rounds to it) and so are their products in f32 (at
// most 2·11 significant bits); tensor cores and AMX sum them in f32 but may
// truncate instead of rounding, so the sum is off by at most (k+2)·2^-23
// relative to Σ|a||b|; the f32 output's rounding is within the 2ε added for
// margin: tolerance (k+2)·2^-23 + 2ε. The integer types are exact: 0.
func (w Workload) gemmTolULPs() float64 {
	k := float64(w.Shape.K)
	switch {
	case w.DType.Integer():
		return 0
	case w.DType.GEMMOnly():
		return (k+2)*0x1p-23/w.DType.Epsilon() + 2
	}
	return k + 2
}

// compare measures out against ref; tol is relative to scale.
func compare(out, ref, scale []float64, tol float64) Check {
	c := Check{OK: true, Tolerance: tol}
	for i, o := range out {
		var e float64
		switch {
		case math.IsNaN(o) || math.IsInf(o, 0):
			if o == ref[i] { // an infinite reference matched exactly
				continue
			}
			e = math.MaxFloat64
		case o == ref[i]:
			continue
		default:
			// A zero scale means an exact result was expected.
			e = math.Abs(o-ref[i]) / math.Max(scale[i], math.SmallestNonzeroFloat64)
		}
		if e > c.MaxRelErr {
			c.MaxRelErr = e
		}
		if e > tol && c.OK {
			c.OK = false
			c.Detail = fmt.Sprintf("element %d is %g, want %g", i, o, ref[i])
		}
	}
	return c
}

// plainOperands returns op(A) (m×k) and op(B) (k×n) as row-major matrices.
func (w Workload) plainOperands(d Data) (a, b []float64) {
	s := w.Shape
	a, b = d.Args[0], d.Args[1]
	if s.TransA {
		a = transpose(a, s.K, s.M)
	}
	if s.TransB {
		b = transpose(b, s.N, s.K)
	}
	return a, b
}

// transpose returns the cols×rows transpose of a rows×cols matrix.
func transpose(a []float64, rows, cols int) []float64 {
	t := make([]float64, len(a))
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			t[j*rows+i] = a[i*cols+j]
		}
	}
	return t
}

// matmul returns a·b and |a|·|b| for a m×k, b k×n, parallel over rows.
func matmul(a, b []float64, m, n, k int) (c, abs []float64) {
	c, abs = make([]float64, m*n), make([]float64, m*n)
	parallelRows(m, func(i int) {
		ci, ai := c[i*n:(i+1)*n], abs[i*n:(i+1)*n]
		for p := 0; p < k; p++ {
			av := a[i*k+p]
			aa := math.Abs(av)
			bp := b[p*n : (p+1)*n]
			for j, bv := range bp {
				ci[j] += av * bv
				ai[j] += aa * math.Abs(bv)
			}
		}
	})
	return c, abs
}

// parallelRows calls f for every row in [0, m) on all CPUs.
func parallelRows(m int, f func(i int)) {
	workers := min(runtime.NumCPU(), m)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < m; i += workers {
				f(i)
			}
		})
	}
	wg.Wait()
}

// verifyProjected checks a large gemm output C by comparing C·t with
// A·(B·t) for a random vector t, and by recomputing the first and last rows
// and columns and a random sample of elements exactly. The projection catches
// systematic errors (wrong transpose, stride or block) anywhere in C; the
// sampled elements catch local ones with the rigorous per-element bound.
func (w Workload) verifyProjected(d Data, out []float64) Check {
	s := w.Shape
	m, n, k := s.M, s.N, s.K
	a, b := w.plainOperands(d)
	eps := w.DType.Epsilon()
	tol := w.gemmTolULPs() * eps
	rng := rand.New(rand.NewPCG(uint64(m*n), uint64(k)))
	t := make([]float64, n)
	for j := range t {
		t[j] = 0.5 + rng.Float64()
		if w.DType.Integer() {
			// Small integers keep C·t and A·(B·t) exact in float64
			// (|C|·Σ|t| < 2^53), so an integer gemm is checked exactly.
			t[j] = float64(1 + rng.IntN(4))
		}
		if rng.IntN(2) == 0 {
			t[j] = -t[j]
		}
	}
	// u = B·t and |B|·|t| (k), then A·u and |A|·(|B|·|t|) (m).
	u, uAbs := matmul(b, t, k, 1, n)
	ref, scale := make([]float64, m), make([]float64, m)
	got := make([]float64, m)
	parallelRows(m, func(i int) {
		for p := 0; p < k; p++ {
			ref[i] += a[i*k+p] * u[p]
			scale[i] += math.Abs(a[i*k+p]) * uAbs[p]
		}
		for j := 0; j < n; j++ {
			got[i] += out[i*n+j] * t[j]
		}
	})
	c := compare(got, ref, scale, tol)
	c.Method = "projection+sampled"
	if !c.OK {
		c.Detail = "projection C·t differs from A·(B·t): " + c.Detail
		return c
	}
	// Exact elements: first and last rows and columns, and a random sample.
	type ij struct{ i, j int }
	var cells []ij
	for j := 0; j < n; j++ {
		cells = append(cells, ij{0, j}, ij{m - 1, j})
	}
	for i := 0; i < m; i++ {
		cells = append(cells, ij{i, 0}, ij{i, n - 1})
	}
	for range 4096 {
		cells = append(cells, ij{rng.IntN(m), rng.IntN(n)})
	}
	for _, e := range cells {
		var r, sc float64
		for p := 0; p < k; p++ {
			r += a[e.i*k+p] * b[p*n+e.j]
			sc += math.Abs(a[e.i*k+p] * b[p*n+e.j])
		}
		o := out[e.i*n+e.j]
		cc := compare([]float64{o}, []float64{r}, []float64{sc}, tol)
		c.MaxRelErr = math.Max(c.MaxRelErr, cc.MaxRelErr)
		if !cc.OK {
			c.OK = false
			c.Detail = fmt.Sprintf("element (%d,%d) is %g, want %g", e.i, e.j, o, r)
			break
		}
	}
	return c
}
