// Package nn is the neural-network kernels of peakbench's own backends,
// generic over float32 and float64 and split over an explicit number of
// goroutines.
//
// Every function takes an isa.Level: isa.Generic runs the pure-Go kernels
// (the go backend's, and the reference), a higher level the assembly of
// nn_amd64.s (the asm backend's), clamped to what the CPU runs.
package nn

import (
	"math"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

//go:generate go run -C ../_asm . -pkg nn

// impl is a set of kernels: the generic ones, or an assembly set.
type impl = isa.Impl

const (
	implGeneric = isa.ImplGeneric
	implAVX2    = isa.ImplAVX2
	implAVX512  = isa.ImplAVX512
)

// implFor returns the kernels lvl runs (clamped to what the CPU runs).
func implFor(lvl isa.Level) impl {
	return isa.ImplFor(lvl, haveAsm)
}

// Kernel names the kernels a level runs: "generic", "AVX2", or at AVX512
// isa.ZMMKernel's name: the AVX-512 kernel runs while a call's x and y together
// hold at most tune's zmm.math, as elem's kernels do.
func Kernel(lvl isa.Level) string {
	switch implFor(lvl) {
	case implAVX2:
		return "AVX2"
	case implAVX512:
		return isa.ZMMKernel(tune.Current().ZMM.Math)
	}
	return "generic"
}

// Float is the element type: float32, float64 or a type defined on them.
type Float = num.Float

// minSoftmaxPerThread is the least number of elements a goroutine of Softmax
// gets (whole rows): with an exp per element (~8 ns), a few thousand elements
// repay a goroutine's start and join many times over. A variable so tests
// can shrink it.
var minSoftmaxPerThread = 1 << 12

// Softmax sets each row of y to the softmax of the same row of x:
// y[i][j] = exp(x[i][j] - m_i) / Σ_j exp(x[i][j] - m_i), m_i the row's
// maximum, which keeps exp from overflowing whatever the inputs' scale.
// x and y are rows×cols, row-major and contiguous (len ≥ rows·cols); y may
// be x. A row holding NaN or +Inf, or only -Inf, comes out all NaN. Rows
// are split over at most threads goroutines (threads ≥ 1).
//
// The generic kernel computes the exps and the row sum in float64. The
// assembly works in T, in three passes over the row (max; exp and sum; scale
// by 1/sum), with elem's vectorized exp: each result is within
// 5 + |x−m|/2 + Σ_k y_k·|x_k−m|/2 + cols/16 ulps, the |x−m|/2 from rounding
// x − m to T (exp's argument) and the sum over the row from the same in the
// denominator.
func Softmax[T Float](lvl isa.Level, rows, cols int, x, y []T, threads int) {
	switch {
	case rows < 0:
		panic("nn: rows < 0")
	case cols < 0:
		panic("nn: cols < 0")
	case threads < 1:
		panic("nn: threads < 1")
	case len(x) < rows*cols:
		panic("nn: short x")
	case len(y) < rows*cols:
		panic("nn: short y")
	}
	if rows == 0 || cols == 0 {
		return
	}
	k := implFor(tune.Current().MathLevel(lvl, 2*rows*cols*num.Size[T]()))
	minRows := max(1, minSoftmaxPerThread/cols)
	if num.Single(rows, threads, minRows) {
		softmaxRows(k, 0, rows, cols, x, y)
		return
	}
	num.For(rows, threads, 1, minRows, func(_, lo, hi int) {
		softmaxRows(k, lo, hi, cols, x, y)
	})
}

func softmaxRows[T Float](k impl, lo, hi, cols int, x, y []T) {
	for i := lo; i < hi; i++ {
		xr, yr := x[i*cols:(i+1)*cols], y[i*cols:(i+1)*cols]
		if k != implGeneric {
			softmaxAsm(k, xr, yr)
		} else {
			softmaxGeneric(xr, yr)
		}
	}
}

func softmaxGeneric[T Float](x, y []T) {
	y = y[:len(x)]
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v) // the builtin propagates NaN
	}
	mf := float64(m)
	var sum float64
	for i, v := range x {
		e := math.Exp(float64(v) - mf)
		sum += e
		y[i] = T(e)
	}
	// For float32 the exps were rounded to T when stored; recomputing them
	// would cost a second exp per element, while rescaling the stored value
	// adds at most one rounding, well inside float32's tolerance.
	inv := 1 / sum
	for i, v := range y {
		y[i] = T(float64(v) * inv)
	}
}
