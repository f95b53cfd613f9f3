package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
)

func softmaxRef(x []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	y := make([]float64, len(x))
	var s float64
	for i, v := range x {
		y[i] = math.Exp(v - m)
		s += y[i]
	}
	for i := range y {
		y[i] /= s
	}
	return y
}

func testSoftmax[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	eps := numtest.Eps[T]()
	old := minSoftmaxPerThread
	minSoftmaxPerThread = 1 // split even tiny inputs over goroutines
	defer func() { minSoftmaxPerThread = old }()
	for _, rows := range []int{0, 1, 2, 3, 5, 17, 33} {
		for cols := 0; cols <= 70; cols++ {
			for _, th := range []int{1, 2, 3, 7} {
				for _, scale := range []float64{1, 30} {
					x := numtest.New[T](rows*cols, rnd)
					for i := range x.Data {
						x.Data[i] *= T(scale)
					}
					y := numtest.New[T](rows*cols, rnd)
					x0 := x.Clone()
					Softmax(rows, cols, x.Data, y.Data, th)
					x.CheckGuards(t, "x")
					y.CheckGuards(t, "y")
					if numtest.Differ(x.Full, x0.Full) >= 0 {
						t.Fatalf("rows=%d cols=%d: x modified", rows, cols)
					}
					for r := 0; r < rows; r++ {
						xr := make([]float64, cols)
						for j := range xr {
							xr[j] = float64(x.Data[r*cols+j])
						}
						want := softmaxRef(xr)
						var sum float64
						for j, w := range want {
							got := float64(y.Data[r*cols+j])
							sum += got
							// exp and the division each add a few roundings
							// in T; tiny results may lose relative accuracy
							// to T's subnormals.
							if math.Abs(got-w) > 4*eps*w+1e-37 {
								t.Fatalf("rows=%d cols=%d threads=%d scale=%v: y[%d][%d] = %v, want %v", rows, cols, th, scale, r, j, got, w)
							}
						}
						if cols > 0 && math.Abs(sum-1) > float64(cols+2)*eps {
							t.Fatalf("rows=%d cols=%d: row %d sums to %v", rows, cols, r, sum)
						}
					}
					// In place gives the same bits.
					Softmax(rows, cols, x.Data, x.Data, th)
					if i := numtest.Differ(x.Data, y.Data); i >= 0 {
						t.Fatalf("rows=%d cols=%d: in place differs at %d", rows, cols, i)
					}
				}
			}
		}
	}
}

func TestSoftmax(t *testing.T) {
	testSoftmax[float64](t)
	testSoftmax[float32](t)
}

// TestSoftmaxStable: shifting a row changes nothing, however far; without
// the max subtraction exp(1000) overflows to +Inf and the row to NaN.
func TestSoftmaxStable(t *testing.T) {
	x := []float32{1, 2, 3, -1}
	want := make([]float32, 4)
	Softmax(1, 4, x, want, 1)
	for _, shift := range []float32{1000, -1000, 1e30} {
		xs := make([]float32, 4)
		for i := range x {
			xs[i] = x[i] + shift
		}
		got := make([]float32, 4)
		Softmax(1, 4, xs, got, 1)
		if shift == 1e30 { // the inputs all round to 1e30: uniform
			want = []float32{0.25, 0.25, 0.25, 0.25}
		}
		if i := numtest.Differ(got, want); i >= 0 {
			t.Errorf("shift %v: %v, want %v", shift, got, want)
		}
	}
	y := make([]float64, 3)
	Softmax(1, 3, []float64{0, math.NaN(), 1}, y, 1)
	for _, v := range y {
		if !math.IsNaN(v) {
			t.Errorf("row with NaN: %v, want all NaN", y)
			break
		}
	}
}

func expectPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		if r := recover(); r != want {
			t.Fatalf("panic %v, want %q", r, want)
		}
	}()
	f()
}

func TestSoftmaxPanics(t *testing.T) {
	s := make([]float64, 6)
	expectPanic(t, "nn: rows < 0", func() { Softmax(-1, 2, s, s, 1) })
	expectPanic(t, "nn: cols < 0", func() { Softmax(2, -1, s, s, 1) })
	expectPanic(t, "nn: threads < 1", func() { Softmax(2, 3, s, s, 0) })
	expectPanic(t, "nn: short x", func() { Softmax(2, 3, s[:5], s, 1) })
	expectPanic(t, "nn: short y", func() { Softmax(2, 3, s, s[:5], 1) })
	Softmax[float32](0, 5, nil, nil, 1)
}

// BenchmarkSoftmax reports GB/s (x read once, y written once).
func BenchmarkSoftmax(b *testing.B) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, shape := range [][2]int{{64, 1024}, {4096, 1024}} {
		rows, cols := shape[0], shape[1]
		x := numtest.New[float32](rows*cols, rnd).Data
		y := make([]float32, rows*cols)
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("f32/%dx%d/t=%d", rows, cols, th), func(b *testing.B) {
				b.SetBytes(int64(8 * rows * cols))
				for b.Loop() {
					Softmax(rows, cols, x, y, th)
				}
			})
		}
	}
}
