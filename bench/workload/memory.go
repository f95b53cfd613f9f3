package workload

import "math"

// HostBytes estimates the host memory one run of w takes at its peak, in
// bytes, with `kernels` kernels prepared at once (every backend, once per
// algorithm it lists), each holding `sets` copies of its operands (more
// than one with a cold cache), and, when reference is set, the reference
// stream of w's bytes sampled beside them:
//
//	the inputs, in float64 (Data)           8 · inputs
//	each kernel's operands, in w's dtype    size · elements · sets
//	each kernel's output copied back        8 · outputs
//	the float64 reference and its scales    16 · outputs (full verification)
//	transposed gemm operands (verification) 8 · inputs
//	the reference stream                    Bytes
//
// A GPU backend's operands live on the device, but it stages them through
// host memory, so it counts as a CPU one does.
func (w Workload) HostBytes(kernels, sets int, reference bool) float64 {
	if w.Op.Sparse() {
		return w.sparseHostBytes(kernels, sets, reference) // sparse.go
	}
	elems := w.elementCount()
	out := float64(w.outputCount())
	in := elems - out
	if w.Op.Reduces() || w.InPlace() {
		in = elems // the scalar result is no operand; axpy's y is both
	}
	size := float64(w.DType.Size())
	b := 8 * in
	b += float64(max(kernels, 0)) * (size*elems*float64(max(sets, 1)) + 8*out)
	if !(w.Op == GEMM && float64(w.Shape.M)*float64(w.Shape.N)*float64(w.Shape.K) > fullGEMMLimit) {
		b += 16 * out
	}
	if w.Op == GEMM && (w.Shape.TransA || w.Shape.TransB) {
		b += 8 * in
	}
	if reference {
		b += w.Bytes()
	}
	return b
}

// outputCount is OutputLen in float64, for shapes not yet validated.
func (w Workload) outputCount() float64 {
	if w.Op.Quant() {
		return float64(w.quantOutputLen())
	}
	if w.Op.Layer() {
		l := w.Shape.Layer
		return float64(l.N) * float64(l.OutChannels(w.Op)) * float64(l.OutSize(w.Op))
	}
	if w.Op.Fourier() {
		_, out := w.fftCounts()
		return out
	}
	s := w.Shape
	switch w.Op.Kind() {
	case KindMatMul, KindRows:
		return float64(s.M) * float64(s.N)
	case KindMatVec:
		return float64(s.M)
	}
	if w.Op.Reduces() {
		return 1
	}
	return float64(s.N)
}

// Shrink returns the largest workload like w, but smaller, for which fits
// is true, and false when none is: a vector op's element count; gemm's and
// gemv's dimensions in proportion (a square stays square); softmax's rows;
// a layer's batch. It asks fits about O(log size) shapes.
func (w Workload) Shrink(fits func(Workload) bool) (Workload, bool) {
	var (
		top   int
		scale func(v int) Workload
	)
	s := w.Shape
	switch {
	case w.Op.Sparse():
		return w, false // a matrix is not scaled down
	case w.Op.Layer():
		top = s.Layer.N
		scale = func(v int) Workload { x := w; x.Shape.Layer.N = v; return x }
	case w.Op.Kind() == KindRows, w.Op.Fourier(): // softmax's rows, a transform's batch
		top = s.M
		scale = func(v int) Workload { x := w; x.Shape.M = v; return x }
	case w.Op.Kind() == KindVector:
		top = s.N
		scale = func(v int) Workload { x := w; x.Shape.N = v; return x }
	default: // gemm, gemv: every dimension in proportion to the largest
		top = max(s.M, s.N, s.K)
		prop := func(d, v int) int {
			if d == 0 {
				return 0
			}
			return max(int(math.Floor(float64(d)*float64(v)/float64(top))), 1)
		}
		scale = func(v int) Workload {
			x := w
			x.Shape.M, x.Shape.N, x.Shape.K = prop(s.M, v), prop(s.N, v), prop(s.K, v)
			return x
		}
	}
	ok := func(v int) bool { x := scale(v); return x.Validate() == nil && fits(x) }
	if top <= 1 || !ok(1) {
		return w, false
	}
	lo, hi := 1, top-1 // ok(lo); the answer is below top
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return scale(lo), true
}
