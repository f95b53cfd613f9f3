package fft

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// Real is the element type of a real transform's input: float32 with
// complex64, float64 with complex128.
type Real interface{ ~float32 | ~float64 }

// RealPlan is the forward transform of n real values into its n/2+1
// non-redundant outputs (X[k] for k ≤ n/2; the rest are their conjugates).
//
// An even n runs as a complex transform of h = n/2 points on the input
// read as pairs, z[j] = x[2j] + i·x[2j+1], half the work of an n-point
// complex transform, then one O(n) pass that splits Z into the transforms
// of the even and odd samples and joins them: with W = e^(−2πi/n),
//
//	X[k]   = ½(Z[k] + conj Z[h−k]) − ½i·W^k·(Z[k] − conj Z[h−k])
//	X[h−k] = the conjugate of the same with the second term's sign flipped
//
// so each pass step reads Z[k] and Z[h−k] and writes both in place. An
// odd n runs the n-point complex transform of the input as it is.
type RealPlan[R Real, C Complex] struct {
	n       int
	threads int
	half    *Plan[C] // even n
	tw      []R      // even n: −½i·W^k for k ≤ n/4, interleaved (re, im)
	full    *Plan[C] // odd n
	cx      []C      // odd n: the input as complex values, then its transform
	cy      []C
}

// NewRealPlan returns the plan of an n-point real transform run on up to
// threads goroutines; lvl is clamped to what the CPU runs.
func NewRealPlan[R Real, C Complex](lvl isa.Level, n, threads int) *RealPlan[R, C] {
	var r R
	var c C
	if 2*unsafe.Sizeof(r) != unsafe.Sizeof(c) {
		panic(fmt.Sprintf("fft: real plan of %T values into %T", r, c))
	}
	if n < 1 {
		panic(fmt.Sprintf("fft: length %d", n))
	}
	p := &RealPlan[R, C]{n: n, threads: max(threads, 1)}
	if n%2 == 1 {
		p.full = NewPlan[C](lvl, n, false, threads)
		p.cx, p.cy = make([]C, n), make([]C, n)
		return p
	}
	p.half = NewPlan[C](lvl, n/2, false, threads)
	p.tw = splitTwiddles[R](n)
	return p
}

// splitTwiddles is the split pass's table for n reals: −½i·W^k for
// k ≤ n/4, interleaved (re, im). The vectors of the split start at k = 1:
// the table is placed so that W^1 starts a cache line, and a zmm load of
// it does not straddle two (f64 1 Ki: the split took 0.80–0.98× the time
// of one with W^0 on the line's start, two runs, Ice Lake VM), with one
// value of padding past the end for the f64 kernels' last load
// (splitVec).
func splitTwiddles[R Real](n int) []R {
	quarter := n / 4
	var r R
	size := int(unsafe.Sizeof(r))
	buf := make([]R, 2*(quarter+1)+1+64/size)
	off := (64 - int(uintptr(unsafe.Pointer(&buf[2])))%64) % 64 / size
	tw := buf[off : off+2*(quarter+1) : off+2*(quarter+1)+1]
	for k := range quarter + 1 {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		// −½i·(c − i·s) = (−s − i·c)/2
		tw[2*k], tw[2*k+1] = R(-s/2), R(-c/2)
	}
	return tw
}

// Len is the transform's length n (the number of real inputs).
func (p *RealPlan[R, C]) Len() int { return p.n }

// Kernel names the code the complex transform runs (Plan.Kernel): of n/2
// points for an even n, of n for an odd one.
func (p *RealPlan[R, C]) Kernel() string {
	if p.full != nil {
		return p.full.Kernel()
	}
	return p.half.Kernel()
}

// Transform sets y (n/2+1 values) to the transform of x (n values; not
// overlapping y). It uses the plan's buffers: one call at a time per plan.
func (p *RealPlan[R, C]) Transform(y []C, x []R) {
	if len(x) != p.n || len(y) != p.n/2+1 {
		panic(fmt.Sprintf("fft: real Transform of %d into %d with a plan of %d", len(x), len(y), p.n))
	}
	if p.full != nil {
		for i, v := range x {
			p.cx[i] = C(complex(float64(v), 0))
		}
		p.full.Transform(p.cy, p.cx)
		copy(y, p.cy)
		return
	}
	h := p.n / 2
	p.half.Transform(y[:h], unsafe.Slice((*C)(unsafe.Pointer(&x[0])), h))
	splitReal(p.half.lvl, unsafe.Slice((*R)(unsafe.Pointer(&y[0])), 2*(h+1)), p.tw, p.threads)
}

// splitReal turns Z, the h-point transform of the pairs (in y's first h
// values, interleaved re, im), into X[0…h] in place; tw holds −½i·W^k.
// The steps k = 1…h/2 are independent (each reads and writes Z[k] and
// Z[h−k]): a pass over fft.share bytes or more (pastCache) is shared
// between threads.
func splitReal[R Real](lvl isa.Level, y, tw []R, threads int) {
	h := len(y)/2 - 1
	re, im := y[0], y[1]
	y[0], y[1] = re+im, 0
	y[2*h], y[2*h+1] = re-im, 0
	steps := h / 2
	if !pastCache(int(unsafe.Sizeof(y[0])), len(y)*int(unsafe.Sizeof(y[0])), steps, threads) || num.Single(steps, threads, minSplitSteps) {
		splitSteps(lvl, y, tw, 0, steps)
		return
	}
	num.For(steps, threads, 1, minSplitSteps, func(_, lo, hi int) { splitSteps(lvl, y, tw, lo, hi) })
}

// minSplitSteps is the fewest steps of a piece of a shared split pass:
// a few microseconds of work, against a num.For handoff's one or two.
const minSplitSteps = 4096

// splitSteps runs the split's steps k = 1+c for c0 ≤ c < c1: the
// assembly's vectors at lvl (splitVec), and what they leave in Go.
func splitSteps[R Real](lvl isa.Level, y, tw []R, c0, c1 int) {
	c0 = splitVec(lvl, y, tw, c0, c1)
	h := len(y)/2 - 1
	// lo walks up from Z[1+c0], hi down from Z[h−1−c0], two values a
	// step; the slices let the compiler drop the bounds checks from the
	// loop.
	lo, hi, tw := y[2+2*c0:2+2*c1], y[2*(h-c1):2*(h-c0)], tw[2+2*c0:2+2*c1]
	for k := 0; k+1 < len(tw); k += 2 {
		j := len(hi) - 2 - k
		ar, ai := lo[k], lo[k+1]
		br, bi := hi[j], hi[j+1]
		sr, si := (ar+br)/2, (ai-bi)/2 // ½(Z[k] + conj Z[h−k])
		dr, di := ar-br, ai+bi         // Z[k] − conj Z[h−k]
		tr, ti := tw[k], tw[k+1]
		pr, pi := tr*dr-ti*di, tr*di+ti*dr
		lo[k], lo[k+1] = sr+pr, si+pi
		hi[j], hi[j+1] = sr-pr, pi-si
	}
}
