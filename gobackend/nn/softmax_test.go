package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
	"github.com/peakbench/peakbench/gobackend/tune/tunetest"
)

// levels are the levels this CPU runs that have kernels of their own.
func levels() []isa.Level {
	var ls []isa.Level
	for _, l := range isa.Levels() {
		if l == isa.Generic || implFor(l) != implFor(l-1) {
			ls = append(ls, l)
		}
	}
	return ls
}

func threadSet() []int {
	if numtest.Quick() {
		return []int{1, 3}
	}
	return []int{1, 2, 3, 7}
}

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
	colSet := []int{}
	for c := 0; c <= 140; c++ {
		colSet = append(colSet, c)
	}
	colSet = append(colSet, 1000, 1027)
	for _, lvl := range levels() {
		for _, rows := range []int{0, 1, 2, 3, 5, 17} {
			for _, cols := range colSet {
				if rows*cols > 5000 && rows > 1 {
					continue
				}
				for _, th := range threadSet() {
					for _, scale := range []float64{1, 30} {
						off := (rows + cols + th) % 8
						x := numtest.NewAt[T](rows*cols, off, rnd)
						for i := range x.Data {
							x.Data[i] *= T(scale)
						}
						if cols > 3 && rows > 1 { // a -Inf, and a row of them
							x.Data[cols+2] = T(math.Inf(-1))
						}
						y := numtest.NewAt[T](rows*cols, 7-off, rnd)
						x0 := x.Clone()
						Softmax(lvl, rows, cols, x.Data, y.Data, th)
						x.CheckGuards(t, "x")
						y.CheckGuards(t, "y")
						if numtest.Differ(x.Full, x0.Full) >= 0 {
							t.Fatalf("rows=%d cols=%d: x modified", rows, cols)
						}
						for r := 0; r < rows; r++ {
							xr := make([]float64, cols)
							m := math.Inf(-1)
							for j := range xr {
								xr[j] = float64(x.Data[r*cols+j])
								m = math.Max(m, xr[j])
							}
							want := softmaxRef(xr)
							// The assembly's bound (see Softmax): its
							// exp (1 ulp), x − m rounded in T (|x−m|/2
							// ulps), the sum and the scaling.
							var avg float64
							for j, w := range want {
								avg += w * (xr[j] - m) / 2
							}
							var sum float64
							for j, w := range want {
								got := float64(y.Data[r*cols+j])
								sum += got
								ulps := 5 + (m-xr[j])/2 - avg + float64(cols)/16
								// Tiny results may lose relative accuracy to
								// T's subnormals.
								if math.Abs(got-w) > 2*ulps*eps*w+1e-37 {
									t.Fatalf("%v rows=%d cols=%d threads=%d scale=%v: y[%d][%d] = %v, want %v (%.3g ulp)", lvl, rows, cols, th, scale, r, j, got, w, math.Abs(got-w)/w/eps/2)
								}
							}
							if cols > 0 && math.Abs(sum-1) > float64(cols+2)*eps {
								t.Fatalf("%v rows=%d cols=%d: row %d sums to %v", lvl, rows, cols, r, sum)
							}
						}
						// In place gives the same bits.
						Softmax(lvl, rows, cols, x.Data, x.Data, th)
						if i := numtest.Differ(x.Data, y.Data); i >= 0 {
							t.Fatalf("%v rows=%d cols=%d: in place differs at %d", lvl, rows, cols, i)
						}
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
	for _, lvl := range levels() {
		testStable(t, lvl)
	}
}

func testStable(t *testing.T, lvl isa.Level) {
	x := []float32{1, 2, 3, -1}
	want := make([]float32, 4)
	Softmax(lvl, 1, 4, x, want, 1)
	for _, shift := range []float32{1000, -1000, 1e30} {
		xs := make([]float32, 4)
		for i := range x {
			xs[i] = x[i] + shift
		}
		got := make([]float32, 4)
		Softmax(lvl, 1, 4, xs, got, 1)
		if shift == 1e30 { // the inputs all round to 1e30: uniform
			want = []float32{0.25, 0.25, 0.25, 0.25}
		}
		if i := numtest.Differ(got, want); i >= 0 {
			t.Errorf("%v shift %v: %v, want %v", lvl, shift, got, want)
		}
	}
	inf := math.Inf(1)
	for _, row := range [][]float64{{0, math.NaN(), 1}, {0, inf, 1}, {-inf, -inf, -inf}, {1, 2, 3, 4, 5, 6, 7, 8, math.NaN()}} {
		y := make([]float64, len(row))
		Softmax(lvl, 1, len(row), row, y, 1)
		for _, v := range y {
			if !math.IsNaN(v) {
				t.Errorf("%v: softmax(%v) = %v, want all NaN", lvl, row, y)
				break
			}
		}
	}
	// Far below the maximum underflows to 0, not NaN.
	y := make([]float32, 3)
	Softmax(lvl, 1, 3, []float32{0, -1000, float32(-inf)}, y, 1)
	if want := []float32{1, 0, 0}; numtest.Differ(y, want) >= 0 {
		t.Errorf("%v: softmax(0, -1000, -Inf) = %v, want %v", lvl, y, want)
	}
}

// TestSoftmaxZmmLimit: above tune's zmm.math the AVX512 level runs the
// AVX2 kernel, bit for bit; below, the AVX-512 one, within the bound of
// testSoftmax's check (its sum adds the lanes in another order).
func TestSoftmaxZmmLimit(t *testing.T) {
	if implFor(isa.AVX512) != implAVX512 {
		t.Skip("no AVX-512 kernel here")
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	const rows, cols = 3, 1001
	x := numtest.New[float32](rows*cols, rnd).Data
	want, got := make([]float32, rows*cols), make([]float32, rows*cols)
	Softmax(isa.AVX2, rows, cols, x, want, 1)
	defer tune.Save().Restore()
	tunetest.With(func(p *tune.Params) { p.ZMM = tune.ZMM{Memory: tune.MaxPieceBytes, Math: 8*rows*cols - 1} })
	Softmax(isa.AVX512, rows, cols, x, got, 1)
	if i := numtest.Differ(got, want); i >= 0 {
		t.Fatalf("above the limit: [%d] = %v at AVX512, %v at AVX2", i, got[i], want[i])
	}
	tunetest.With(func(p *tune.Params) { p.ZMM = tune.ZMM{Memory: 0, Math: 8 * rows * cols} })
	Softmax(isa.AVX512, rows, cols, x, got, 1)
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > 8*numtest.Eps[float32]()*float64(want[i]) {
			t.Fatalf("below the limit: [%d] = %v at AVX512, %v at AVX2", i, got[i], want[i])
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
	for _, lvl := range levels() {
		expectPanic(t, "nn: rows < 0", func() { Softmax(lvl, -1, 2, s, s, 1) })
		expectPanic(t, "nn: cols < 0", func() { Softmax(lvl, 2, -1, s, s, 1) })
		expectPanic(t, "nn: threads < 1", func() { Softmax(lvl, 2, 3, s, s, 0) })
		expectPanic(t, "nn: short x", func() { Softmax(lvl, 2, 3, s[:5], s, 1) })
		expectPanic(t, "nn: short y", func() { Softmax(lvl, 2, 3, s, s[:5], 1) })
		Softmax[float32](lvl, 0, 5, nil, nil, 1)
		Softmax[float32](lvl, 5, 0, nil, nil, 1)
	}
}

// BenchmarkSoftmax reports GB/s (x read once, y written once).
func BenchmarkSoftmax(b *testing.B) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, shape := range [][2]int{{64, 1024}, {4096, 1024}} {
		rows, cols := shape[0], shape[1]
		x := numtest.New[float32](rows*cols, rnd).Data
		y := make([]float32, rows*cols)
		for _, lvl := range levels() {
			for _, th := range []int{1, 2} {
				b.Run(fmt.Sprintf("%v/f32/%dx%d/t=%d", lvl, rows, cols, th), func(b *testing.B) {
					b.SetBytes(int64(8 * rows * cols))
					for b.Loop() {
						Softmax(lvl, rows, cols, x, y, th)
					}
				})
			}
		}
	}
}
