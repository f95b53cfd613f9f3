// Package elem is the element-wise kernels of the go backend over contiguous
// slices, generic over float32 and float64, split over an explicit number of
// goroutines in chunks whose boundaries are multiples of 64 elements.
//
// Outputs may alias inputs exactly (z == x computes in place); partial
// overlaps are not supported. Length mismatches and threads < 1 panic with
// a message starting "elem: ".
package elem

import (
	"math"

	"github.com/peakbench/peakbench/gobackend/internal/num"
)

// Float is the element type: float32, float64 or a type defined on them.
type Float = num.Float

// align keeps chunk boundaries on 64 elements: whole cache lines at either
// type, so two goroutines never write the same line.
const align = 64

// Below these many elements per goroutine a chunk runs on the caller's
// goroutine instead: starting and joining one costs about a microsecond,
// which is the time of ~16K adds in cache but only ~1K transcendentals.
// Variables so that tests can drive the split with short vectors.
var (
	minChunkCheap = 1 << 14 // Add, Mul, Axpy, ReLU
	minChunkMath  = 1 << 10 // Sigmoid, Tanh, Exp
)

// Add sets z = x + y.
func Add[T Float](x, y, z []T, threads int) {
	check3(x, y, z, threads)
	num.For(len(x), threads, align, minChunkCheap, func(_, lo, hi int) {
		xs, ys, zs := x[lo:hi], y[lo:hi], z[lo:hi]
		ys, zs = ys[:len(xs)], zs[:len(xs)]
		for i, v := range xs {
			zs[i] = v + ys[i]
		}
	})
}

// Mul sets z = x * y.
func Mul[T Float](x, y, z []T, threads int) {
	check3(x, y, z, threads)
	num.For(len(x), threads, align, minChunkCheap, func(_, lo, hi int) {
		xs, ys, zs := x[lo:hi], y[lo:hi], z[lo:hi]
		ys, zs = ys[:len(xs)], zs[:len(xs)]
		for i, v := range xs {
			zs[i] = v * ys[i]
		}
	})
}

// Axpy sets y += alpha·x.
func Axpy[T Float](alpha T, x, y []T, threads int) {
	check2(x, y, threads)
	num.For(len(x), threads, align, minChunkCheap, func(_, lo, hi int) {
		xs, ys := x[lo:hi], y[lo:hi]
		ys = ys[:len(xs)]
		for i, v := range xs {
			ys[i] += alpha * v
		}
	})
}

// ReLU sets y = max(x, 0). NaN stays NaN (as in PyTorch), -0 becomes +0.
func ReLU[T Float](x, y []T, threads int) {
	check2(x, y, threads)
	num.For(len(x), threads, align, minChunkCheap, func(_, lo, hi int) {
		xs, ys := x[lo:hi], y[lo:hi]
		ys = ys[:len(xs)]
		for i, v := range xs {
			if v <= 0 {
				v = 0
			}
			ys[i] = v
		}
	})
}

// Sigmoid sets y = 1/(1+exp(-x)), computed in float64 as s = 1/(1+e) with
// e = exp(-|x|), giving s for x ≥ 0 and e·s = exp(x)/(1+exp(x)) for x < 0:
// exp never overflows, large |x| gives 0 or 1 (never NaN), and small
// results keep their relative accuracy. NaN stays NaN.
func Sigmoid[T Float](x, y []T, threads int) {
	mapMath(x, y, threads, sigmoid)
}

func sigmoid(v float64) float64 {
	e := math.Exp(-math.Abs(v))
	s := 1 / (1 + e)
	// Pick the factor by the sign bit instead of a branch: signs of
	// activations are random, and a mispredicted branch costs about as much
	// as the exp.
	f := [2]float64{1, e}
	return f[math.Float64bits(v)>>63] * s
}

// Tanh sets y = tanh(x), computed in float64.
func Tanh[T Float](x, y []T, threads int) {
	mapMath(x, y, threads, math.Tanh)
}

// Exp sets y = exp(x), computed in float64 (overflow gives +Inf).
func Exp[T Float](x, y []T, threads int) {
	mapMath(x, y, threads, math.Exp)
}

// mapMath applies a float64 function element-wise. f is a plain function
// value: its call costs far less than the transcendental inside.
func mapMath[T Float](x, y []T, threads int, f func(float64) float64) {
	check2(x, y, threads)
	num.For(len(x), threads, align, minChunkMath, func(_, lo, hi int) {
		xs, ys := x[lo:hi], y[lo:hi]
		ys = ys[:len(xs)]
		for i, v := range xs {
			ys[i] = T(f(float64(v)))
		}
	})
}

func check2[T Float](x, y []T, threads int) {
	if len(y) != len(x) {
		panic("elem: len(y) != len(x)")
	}
	if threads < 1 {
		panic("elem: threads < 1")
	}
}

func check3[T Float](x, y, z []T, threads int) {
	if len(y) != len(x) {
		panic("elem: len(y) != len(x)")
	}
	if len(z) != len(x) {
		panic("elem: len(z) != len(x)")
	}
	if threads < 1 {
		panic("elem: threads < 1")
	}
}
