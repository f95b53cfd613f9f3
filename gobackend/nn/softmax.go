// Package nn is the neural-network kernels of the go backend, generic over
// float32 and float64 and split over an explicit number of goroutines.
package nn

import (
	"math"

	"github.com/peakbench/peakbench/gobackend/internal/num"
)

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
// be x. The exps and the row sum are computed in float64. A row holding NaN
// or +Inf, or only -Inf, comes out all NaN. Rows are split over at
// most threads goroutines (threads ≥ 1).
func Softmax[T Float](rows, cols int, x, y []T, threads int) {
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
	minRows := max(1, minSoftmaxPerThread/cols)
	num.For(rows, threads, 1, minRows, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			softmaxRow(x[i*cols:(i+1)*cols], y[i*cols:(i+1)*cols])
		}
	})
}

func softmaxRow[T Float](x, y []T) {
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
