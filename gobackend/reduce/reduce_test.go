package reduce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
)

var threadSet = []int{1, 2, 3, 7}

func lengths() []int {
	var ls []int
	for n := 0; n <= 70; n++ {
		ls = append(ls, n)
	}
	return append(ls, 255, 256, 257, 1000, 5003)
}

// withSmallChunks lets the tests split even short vectors over goroutines.
func withSmallChunks(f func()) {
	old := minChunk
	minChunk = 1
	defer func() { minChunk = old }()
	f()
}

// tol is the error bound of a blocked sum of n terms of total magnitude mag:
// at most block/8 + 3 roundings in T per term inside a block, float64 after.
func tol[T Float](n int, mag, want float64) float64 {
	eps := numtest.Eps[T]()
	return float64(min(n, block)/8+4)*eps*mag + eps*math.Abs(want)
}

func testSumDot[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	withSmallChunks(func() {
		for _, n := range lengths() {
			for _, th := range threadSet {
				x, y := numtest.New[T](n, rnd), numtest.New[T](n, rnd)
				x0, y0 := x.Clone(), y.Clone()
				s := Sum(x.Data, th)
				d := Dot(x.Data, y.Data, th)
				x.CheckGuards(t, "x")
				y.CheckGuards(t, "y")
				if numtest.Differ(x.Full, x0.Full) >= 0 || numtest.Differ(y.Full, y0.Full) >= 0 {
					t.Fatalf("n=%d threads=%d: input modified", n, th)
				}
				var ws, ms, wd, md float64
				for i := range x.Data {
					xv, yv := float64(x.Data[i]), float64(y.Data[i])
					ws += xv
					ms += math.Abs(xv)
					wd += xv * yv
					md += math.Abs(xv * yv)
				}
				if e := math.Abs(float64(s) - ws); e > tol[T](n, ms, ws) {
					t.Fatalf("n=%d threads=%d: Sum = %v, want %v", n, th, s, ws)
				}
				if e := math.Abs(float64(d) - wd); e > tol[T](n, md, wd) {
					t.Fatalf("n=%d threads=%d: Dot = %v, want %v", n, th, d, wd)
				}
				// Same length and threads: the same bits.
				if s2, d2 := Sum(x.Data, th), Dot(x.Data, y.Data, th); s2 != s || d2 != d {
					t.Fatalf("n=%d threads=%d: not deterministic: %v %v then %v %v", n, th, s, d, s2, d2)
				}
			}
		}
	})
}

func TestSumDot(t *testing.T) {
	testSumDot[float64](t)
	testSumDot[float32](t)
}

// TestSumFloat32Long checks the float64 carry across blocks: a float32
// running sum of a million 0.1s is off by about 1%.
func TestSumFloat32Long(t *testing.T) {
	x := make([]float32, 1<<20)
	for i := range x {
		x[i] = 0.1
	}
	want := float64(float32(0.1)) * float64(len(x))
	for _, th := range threadSet {
		if got := Sum(x, th); math.Abs(float64(got)-want) > 1e-5*want {
			t.Errorf("threads=%d: Sum = %v, want %v", th, got, want)
		}
	}
}

func testMax[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	withSmallChunks(func() {
		for _, n := range lengths() {
			for _, th := range threadSet {
				x := numtest.New[T](n, rnd)
				x0 := x.Clone()
				got := Max(x.Data, th)
				x.CheckGuards(t, "x")
				if numtest.Differ(x.Full, x0.Full) >= 0 {
					t.Fatalf("n=%d threads=%d: input modified", n, th)
				}
				want := math.Inf(-1)
				for _, v := range x.Data {
					want = max(want, float64(v))
				}
				if float64(got) != want {
					t.Fatalf("n=%d threads=%d: Max = %v, want %v", n, th, got, want)
				}
				// A NaN anywhere wins.
				if n > 0 {
					i := rnd.IntN(n)
					x.Data[i] = T(math.NaN())
					if got := Max(x.Data, th); got == got {
						t.Fatalf("n=%d threads=%d: NaN at %d: Max = %v, want NaN", n, th, i, got)
					}
				}
			}
		}
	})
}

func TestMax(t *testing.T) {
	testMax[float64](t)
	testMax[float32](t)
	negZero := float32(math.Copysign(0, -1))
	if m := Max([]float32{negZero, 0, negZero}, 1); m != 0 || math.Signbit(float64(m)) {
		t.Errorf("Max(-0, +0, -0) = %v, want +0", m)
	}
	if m := Max([]float64{math.Inf(-1)}, 1); !math.IsInf(m, -1) {
		t.Errorf("Max(-Inf) = %v", m)
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

func TestPanics(t *testing.T) {
	a, b := make([]float64, 3), make([]float64, 4)
	expectPanic(t, "reduce: len(y) != len(x)", func() { Dot(a, b, 1) })
	expectPanic(t, "reduce: threads < 1", func() { Sum(a, 0) })
	expectPanic(t, "reduce: threads < 1", func() { Max(a, 0) })
	expectPanic(t, "reduce: threads < 1", func() { Dot(a, a, 0) })
	if s, d, m := Sum[float32](nil, 1), Dot[float32](nil, nil, 2), Max[float64](nil, 3); s != 0 || d != 0 || !math.IsInf(m, -1) {
		t.Errorf("empty: Sum %v Dot %v Max %v, want 0 0 -Inf", s, d, m)
	}
}

var sink float64

// Benchmarks report GB/s of input read.
func BenchmarkReduce(b *testing.B) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1 << 12, 1 << 16, 1 << 22} {
		x, y := numtest.New[float32](n, rnd).Data, numtest.New[float32](n, rnd).Data
		xd := numtest.New[float64](n, rnd).Data
		for _, th := range []int{1, 2} {
			name := fmt.Sprintf("n=%d/t=%d", n, th)
			b.Run("Sum/f32/"+name, func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					sink += float64(Sum(x, th))
				}
			})
			b.Run("Sum/f64/"+name, func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					sink += Sum(xd, th)
				}
			})
			b.Run("Dot/f32/"+name, func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					sink += float64(Dot(x, y, th))
				}
			})
			b.Run("Max/f32/"+name, func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					sink += float64(Max(x, th))
				}
			})
		}
	}
}
