package fft

import (
	"math"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// bluestein computes a DFT of any length n as a cyclic convolution of a
// power-of-two length m ≥ 2n−1: with c[j] = e^(sign·πi·j²/n),
//
//	X[k] = c[k] · Σ_j (x[j]·c[j]) · conj(c[k−j])
//
// The chirp's angles come from j² mod 2n, exactly, in float64; the
// transform of conj(c), wrapped to length m, is computed once by the plan,
// with the 1/m of the inverse folded in.
type bluestein[C Complex] struct {
	n     int
	chirp []C
	hHat  []C
	conv  *Plan[C] // forward, length m
	inv   *Plan[C] // inverse, length m
	a, b  []C      // buffers of length m
}

func newBluestein[C Complex](lvl isa.Level, n int, inverse bool, threads int) *bluestein[C] {
	m := 1
	for m < 2*n-1 {
		m *= 2
	}
	sign := -1.0
	if inverse {
		sign = 1
	}
	bl := &bluestein[C]{n: n, chirp: make([]C, n), conv: NewPlan[C](lvl, m, false, threads), inv: NewPlan[C](lvl, m, true, threads),
		a: make([]C, m), b: make([]C, m)}
	h := make([]C, m)
	for j := range n {
		s, c := math.Sincos(math.Pi * float64(j*j%(2*n)) / float64(n))
		bl.chirp[j] = C(complex(c, sign*s))
		h[j] = C(complex(c/float64(m), -sign*s/float64(m)))
		if j > 0 {
			h[m-j] = h[j]
		}
	}
	bl.hHat = make([]C, m)
	bl.conv.Transform(bl.hHat, h)
	return bl
}

func (bl *bluestein[C]) transform(y, x []C) {
	clear(bl.a[bl.n:])
	for j, v := range x {
		bl.a[j] = v * bl.chirp[j]
	}
	bl.conv.Transform(bl.b, bl.a)
	for i, h := range bl.hHat {
		bl.b[i] *= h
	}
	bl.inv.Transform(bl.a, bl.b)
	for k := range y {
		y[k] = bl.a[k] * bl.chirp[k]
	}
}
