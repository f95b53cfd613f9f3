package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// newFFTData fills an FFT's input: interleaved complex values (real ones
// for rfft), uniform in [-1, 1) in each part, rounded to the dtype.
func (w Workload) newFFTData(seed uint64) Data {
	rng := rand.New(rand.NewPCG(seed, uint64(len(w.Op))<<32^uint64(w.DType.Size())))
	in, _ := w.fftCounts()
	x := make([]float64, int(in))
	for i := range x {
		x[i] = w.DType.Round(2*rng.Float64() - 1)
	}
	return Data{Alpha: 1, Args: [][]float64{x}}
}

// fftReference computes the transforms of d in float64, as interleaved
// complex values in the layout of a kernel's Output: each transform's
// rows (rfft: each row's N/2+1 outputs) one after another.
func (w Workload) fftReference(d Data) []float64 {
	s := w.Shape
	rows, n, pts := s.FFTRows(), s.N, s.FFTPoints()
	sign := -1.0
	if w.Op == IFFT {
		sign = 1
	}
	outRow := n
	if w.Op == RFFT {
		outRow = s.fftHalf()
	}
	x := d.Args[0]
	ref := make([]float64, 0, 2*s.M*rows*outRow)
	plan := newRefDFT(n, sign)
	colPlan := newRefDFT(rows, sign)
	buf := make([]complex128, pts)
	col := make([]complex128, rows)
	for b := range s.M {
		for i := range buf {
			if w.Op == RFFT {
				buf[i] = complex(x[b*pts+i], 0)
			} else {
				buf[i] = complex(x[2*(b*pts+i)], x[2*(b*pts+i)+1])
			}
		}
		for r := range rows {
			copy(buf[r*n:(r+1)*n], plan.transform(buf[r*n:(r+1)*n]))
		}
		if rows > 1 {
			for c := range n {
				for r := range rows {
					col[r] = buf[r*n+c]
				}
				for r, v := range colPlan.transform(col) {
					buf[r*n+c] = v
				}
			}
		}
		for r := range rows {
			for _, v := range buf[r*n : r*n+outRow] {
				ref = append(ref, real(v), imag(v))
			}
		}
	}
	return ref
}

// verifyFFT compares each transform of out with the reference by the L2
// norm of the difference relative to that of the reference (fftTolULPs).
func (w Workload) verifyFFT(d Data, out []float64) Check {
	ref := w.fftReference(d)
	tol := w.Shape.fftTolULPs() * w.DType.Epsilon()
	c := Check{OK: true, Tolerance: tol, Method: "l2 per transform"}
	per := len(ref) / w.Shape.M
	for b := range w.Shape.M {
		var diff, norm float64
		for i := b * per; i < (b+1)*per; i++ {
			e := out[i] - ref[i]
			diff += e * e
			norm += ref[i] * ref[i]
		}
		rel := math.Sqrt(diff / max(norm, math.SmallestNonzeroFloat64))
		if math.IsNaN(rel) || math.IsInf(rel, 0) {
			rel = math.MaxFloat64
		}
		c.MaxRelErr = max(c.MaxRelErr, rel)
		if rel > tol && c.OK {
			c.OK = false
			c.Detail = fmt.Sprintf("transform %d of %d: L2 error %.3g of its norm, tolerance %.3g", b, w.Shape.M, rel, tol)
		}
	}
	return c
}

// refDFT is a float64 DFT of one length and direction: mixed radix
// (decimation in time over the smallest prime factor first) with every
// twiddle computed directly from its angle, and Bluestein's algorithm for a
// prime factor above refDirectMax, whose O(p²) sum would take too long.
type refDFT struct {
	n     int
	sign  float64
	tw    []complex128 // tw[k] = e^(sign·2πi·k/n)
	blue  *bluestein   // n itself a large prime
	inner *refDFT      // the power-of-two DFT Bluestein convolves with
}

// refDirectMax is the largest prime factor the reference sums directly.
const refDirectMax = 64

func newRefDFT(n int, sign float64) *refDFT {
	r := &refDFT{n: n, sign: sign, tw: make([]complex128, n)}
	for k := range r.tw {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		r.tw[k] = complex(c, sign*s)
	}
	if p := smallestFactor(n); p == n && n > refDirectMax {
		r.blue = newBluestein(n, sign)
	}
	return r
}

// transform returns the DFT of x (len n) in a new slice.
func (r *refDFT) transform(x []complex128) []complex128 {
	out := make([]complex128, r.n)
	if r.blue != nil {
		r.blue.transform(out, x)
		return out
	}
	r.rec(out, x, 1, r.n, 1)
	return out
}

// rec writes the DFT of the m points in[0], in[stride], … into out (len
// m), m dividing n; twiddles of m are tw[k·(n/m)].
func (r *refDFT) rec(out, in []complex128, stride, m, twStride int) {
	if m == 1 {
		out[0] = in[0]
		return
	}
	p := smallestFactor(m)
	if p == m && m > refDirectMax {
		sub := newRefDFT(m, r.sign)
		x := make([]complex128, m)
		for i := range x {
			x[i] = in[i*stride]
		}
		copy(out, sub.transform(x))
		return
	}
	q := m / p
	for j := range p { // the p sub-transforms of length q, each in its block of out
		r.rec(out[j*q:(j+1)*q], in[j*stride:], stride*p, q, twStride*p)
	}
	y := make([]complex128, p)
	for k := range q {
		for j := range p {
			y[j] = out[j*q+k]
		}
		for t := range p { // X[k + t·q] = Σ_j W_m^(j·(k+t·q)) Y_j[k]
			var s complex128
			for j := range p {
				s += r.tw[(j*(k+t*q)%m)*twStride] * y[j]
			}
			out[k+t*q] = s
		}
	}
}

// smallestFactor returns n's smallest prime factor (n itself when prime).
func smallestFactor(n int) int {
	for p := 2; p*p <= n; p++ {
		if n%p == 0 {
			return p
		}
	}
	return n
}

// bluestein computes a DFT of any length n as a convolution of length
// m ≥ 2n−1, a power of two: X[k] = c[k]·Σ_j (x[j]·c[j])·conj(c[k−j]), with
// c[j] = e^(sign·πi·j²/n) (its angle taken from j² mod 2n, exactly).
type bluestein struct {
	n, m  int
	chirp []complex128 // c[j], j < n
	hHat  []complex128 // the DFT of conj(c) wrapped to length m
	fwd   *refDFT
	inv   *refDFT
}

func newBluestein(n int, sign float64) *bluestein {
	m := 1
	for m < 2*n-1 {
		m *= 2
	}
	b := &bluestein{n: n, m: m, chirp: make([]complex128, n), fwd: newRefDFT(m, -1), inv: newRefDFT(m, 1)}
	h := make([]complex128, m)
	for j := range n {
		s, c := math.Sincos(math.Pi * float64(j*j%(2*n)) / float64(n))
		b.chirp[j] = complex(c, sign*s)
		h[j] = complex(c, -sign*s)
		if j > 0 {
			h[m-j] = h[j]
		}
	}
	b.hHat = b.fwd.transform(h)
	return b
}

func (b *bluestein) transform(out, x []complex128) {
	a := make([]complex128, b.m)
	for j := range b.n {
		a[j] = x[j] * b.chirp[j]
	}
	aHat := b.fwd.transform(a)
	for i := range aHat {
		aHat[i] *= b.hHat[i]
	}
	conv := b.inv.transform(aHat)
	scale := complex(1/float64(b.m), 0)
	for k := range b.n {
		out[k] = conv[k] * scale * b.chirp[k]
	}
}
