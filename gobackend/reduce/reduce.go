// Package reduce is the reductions of the go backend: Sum, Max and Dot over
// contiguous slices, generic over float32 and float64, split over an explicit
// number of goroutines.
//
// Results are deterministic for a given length and thread count: the split
// depends on nothing else, and per-goroutine partials are combined in order.
// Different thread counts may round differently (Sum, Dot), as with any
// parallel BLAS.
package reduce

import (
	"math"

	"github.com/peakbench/peakbench/gobackend/internal/num"
)

// Float is the element type: float32, float64 or a type defined on them.
type Float = num.Float

// minChunk is the least number of elements a goroutine gets: a reduction
// streams its input once, ~1 element per cycle, so a smaller share costs more
// to start and join than it saves. A variable so tests can shrink it.
var minChunk = 1 << 14

// block is how many elements are summed in T before the partial is added to
// a float64 total. Within a block, 8 accumulators in T keep the adds
// independent (the add latency is 3–4 cycles); across blocks, float64 keeps
// a float32 sum of millions of elements from drifting: the error bound is
// about (block/8)·ε_T·Σ|x| instead of (n/8)·ε_T·Σ|x|.
const block = 256

// Sum returns Σ x[i] (0 for an empty x). NaN or opposite infinities give NaN.
func Sum[T Float](x []T, threads int) T {
	checkThreads(threads)
	parts, _ := num.Chunks(len(x), threads, 64, minChunk)
	partial := make([]float64, max(parts, 1))
	num.For(len(x), threads, 64, minChunk, func(p, lo, hi int) {
		var total float64
		for i := lo; i < hi; i += block {
			total += float64(sumBlock(x[i:min(i+block, hi)]))
		}
		partial[p] = total
	})
	var total float64
	for _, s := range partial {
		total += s
	}
	return T(total)
}

func sumBlock[T Float](x []T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
		s4 += v[4]
		s5 += v[5]
		s6 += v[6]
		s7 += v[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// Dot returns Σ x[i]·y[i] (0 for empty slices), with the same blocking as
// Sum. len(y) must equal len(x).
func Dot[T Float](x, y []T, threads int) T {
	if len(y) != len(x) {
		panic("reduce: len(y) != len(x)")
	}
	checkThreads(threads)
	parts, _ := num.Chunks(len(x), threads, 64, minChunk)
	partial := make([]float64, max(parts, 1))
	num.For(len(x), threads, 64, minChunk, func(p, lo, hi int) {
		var total float64
		for i := lo; i < hi; i += block {
			j := min(i+block, hi)
			total += float64(dotBlock(x[i:j], y[i:j]))
		}
		partial[p] = total
	})
	var total float64
	for _, s := range partial {
		total += s
	}
	return T(total)
}

func dotBlock[T Float](x, y []T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	y = y[:len(x)]
	i := 0
	for ; i+8 <= len(x); i += 8 {
		u := x[i : i+8 : i+8]
		v := y[i : i+8 : i+8]
		s0 += u[0] * v[0]
		s1 += u[1] * v[1]
		s2 += u[2] * v[2]
		s3 += u[3] * v[3]
		s4 += u[4] * v[4]
		s5 += u[5] * v[5]
		s6 += u[6] * v[6]
		s7 += u[7] * v[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// Max returns the largest element of x. If any element is NaN the result is
// NaN (as numpy.max and torch.max, unlike a plain comparison loop, which
// would skip it); +0 counts as larger than -0. An empty x gives -Inf, the
// identity of max.
func Max[T Float](x []T, threads int) T {
	checkThreads(threads)
	parts, _ := num.Chunks(len(x), threads, 64, minChunk)
	partial := make([]T, max(parts, 1))
	partial[0] = T(math.Inf(-1))
	num.For(len(x), threads, 64, minChunk, func(p, lo, hi int) {
		partial[p] = maxOf(x[lo:hi])
	})
	m := partial[0]
	for _, v := range partial[1:] {
		m = max(m, v)
	}
	return m
}

// maxOf uses the builtin max, which propagates NaN and orders ±0, with four
// accumulators so the compare chains run side by side.
func maxOf[T Float](x []T) T {
	m0 := T(math.Inf(-1))
	m1, m2, m3 := m0, m0, m0
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		m0 = max(m0, v[0])
		m1 = max(m1, v[1])
		m2 = max(m2, v[2])
		m3 = max(m3, v[3])
	}
	for ; i < len(x); i++ {
		m0 = max(m0, x[i])
	}
	return max(max(m0, m1), max(m2, m3))
}

func checkThreads(threads int) {
	if threads < 1 {
		panic("reduce: threads < 1")
	}
}
