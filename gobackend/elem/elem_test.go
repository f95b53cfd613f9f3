package elem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
)

var threadSet = []int{1, 2, 3, 7}

// lengths are every length 0..70 plus a few that give several 64-element
// chunks and a ragged last one.
func lengths() []int {
	var ls []int
	for n := 0; n <= 70; n++ {
		ls = append(ls, n)
	}
	return append(ls, 128, 129, 1000, 4099)
}

// withSmallChunks lets the tests split even short vectors over goroutines.
func withSmallChunks(f func()) {
	c, m := minChunkCheap, minChunkMath
	minChunkCheap, minChunkMath = 1, 1
	defer func() { minChunkCheap, minChunkMath = c, m }()
	f()
}

// specials are spliced into the random inputs: the transcendentals must
// handle them (sigmoid of ±1000 must not be NaN).
var specials = []float64{0, math.Copysign(0, -1), 1, -1, 30, -30, 100, -100, 1000, -1000, math.Inf(1), math.Inf(-1), math.NaN()}

func input[T Float](n int, rnd *rand.Rand, scale float64, withSpecials bool) numtest.Guarded[T] {
	g := numtest.New[T](n, rnd)
	for i := range g.Data {
		g.Data[i] *= T(scale)
		if withSpecials && i%5 == 2 {
			g.Data[i] = T(specials[(i/5)%len(specials)])
		}
	}
	return g
}

// close reports whether got is within tol·|want| (plus an absolute floor
// for results near zero) of want, NaN matching NaN and infinities exactly.
func close(got, want, tol, floor float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return math.IsNaN(got) == math.IsNaN(want) && (math.IsNaN(got) || got == want)
	}
	return math.Abs(got-want) <= tol*math.Abs(want)+floor
}

type binOp struct {
	name string
	f    func(x, y, z []float64, threads int)
	f32  func(x, y, z []float32, threads int)
	ref  func(x, y float64) float64
}

func testBinary[T Float](t *testing.T, run func(x, y, z []T, threads int), ref func(x, y float64) float64) {
	rnd := rand.New(rand.NewPCG(1, 2))
	withSmallChunks(func() {
		for _, n := range lengths() {
			for _, th := range threadSet {
				x, y, z := input[T](n, rnd, 4, true), input[T](n, rnd, 4, true), input[T](n, rnd, 1, false)
				x0, y0 := x.Clone(), y.Clone()
				run(x.Data, y.Data, z.Data, th)
				x.CheckGuards(t, "x")
				y.CheckGuards(t, "y")
				z.CheckGuards(t, "z")
				if numtest.Differ(x.Full, x0.Full) >= 0 || numtest.Differ(y.Full, y0.Full) >= 0 {
					t.Fatalf("n=%d threads=%d: input modified", n, th)
				}
				for i := range z.Data {
					// One operation rounded once: the float64 result
					// rounded to T is exact for + and ×.
					want := T(ref(float64(x.Data[i]), float64(y.Data[i])))
					if numtest.Differ(z.Data[i:i+1], []T{want}) >= 0 {
						t.Fatalf("n=%d threads=%d: z[%d] = %v, want %v", n, th, i, z.Data[i], want)
					}
				}
				// In place: z aliases x.
				run(x.Data, y.Data, x.Data, th)
				if i := numtest.Differ(x.Data, z.Data); i >= 0 {
					t.Fatalf("n=%d threads=%d: in place differs at %d", n, th, i)
				}
			}
		}
	})
}

func TestAdd(t *testing.T) {
	add := func(x, y float64) float64 { return x + y }
	testBinary(t, Add[float64], add)
	testBinary(t, Add[float32], add)
}

func TestMul(t *testing.T) {
	mul := func(x, y float64) float64 { return x * y }
	testBinary(t, Mul[float64], mul)
	testBinary(t, Mul[float32], mul)
}

func testAxpy[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	eps := numtest.Eps[T]()
	withSmallChunks(func() {
		for _, alpha := range []float64{0, 1, -0.5, 2} {
			for _, n := range lengths() {
				for _, th := range threadSet {
					x, y := input[T](n, rnd, 1, false), input[T](n, rnd, 1, false)
					x0, y0 := x.Clone(), y.Clone()
					Axpy(T(alpha), x.Data, y.Data, th)
					x.CheckGuards(t, "x")
					y.CheckGuards(t, "y")
					if numtest.Differ(x.Full, x0.Full) >= 0 {
						t.Fatalf("n=%d threads=%d: x modified", n, th)
					}
					for i, got := range y.Data {
						xv, yv := float64(x0.Data[i]), float64(y0.Data[i])
						want := yv + alpha*xv
						// Two roundings, of alpha·x and of the sum.
						if tol := 2 * eps * (math.Abs(yv) + math.Abs(alpha*xv)); math.Abs(float64(got)-want) > tol {
							t.Fatalf("alpha=%v n=%d threads=%d: y[%d] = %v, want %v", alpha, n, th, i, got, want)
						}
					}
				}
			}
		}
	})
}

func TestAxpy(t *testing.T) {
	testAxpy[float64](t)
	testAxpy[float32](t)
}

func testUnary[T Float](t *testing.T, name string, run func(x, y []T, threads int), ref func(float64) float64, scale, ulps float64) {
	rnd := rand.New(rand.NewPCG(5, 6))
	eps := numtest.Eps[T]()
	// Results that underflow T's normal range lose relative accuracy.
	floor := 0x1p-1022
	if eps > 0x1p-30 {
		floor = 0x1p-126
	}
	withSmallChunks(func() {
		for _, n := range lengths() {
			for _, th := range threadSet {
				x, y := input[T](n, rnd, scale, true), input[T](n, rnd, 1, false)
				x0 := x.Clone()
				run(x.Data, y.Data, th)
				x.CheckGuards(t, "x")
				y.CheckGuards(t, "y")
				if numtest.Differ(x.Full, x0.Full) >= 0 {
					t.Fatalf("%s n=%d threads=%d: x modified", name, n, th)
				}
				for i, got := range y.Data {
					// Compare with the reference rounded to T so that
					// overflow and underflow match T's range.
					want := float64(T(ref(float64(x.Data[i]))))
					if !close(float64(got), want, ulps*eps, floor) {
						t.Fatalf("%s n=%d threads=%d: f(%v) = %v, want %v", name, n, th, x.Data[i], got, want)
					}
				}
				// In place.
				run(x.Data, x.Data, th)
				if i := numtest.Differ(x.Data, y.Data); i >= 0 {
					t.Fatalf("%s n=%d threads=%d: in place differs at %d", name, n, th, i)
				}
			}
		}
	})
}

func relu(v float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	return math.Max(v, 0)
}

// sigmoidRef is the textbook formula, fine in float64 for |x| ≤ 700 and
// given by its limits beyond.
func sigmoidRef(v float64) float64 {
	switch {
	case v > 700:
		return 1
	case v < -700:
		return math.Exp(v) // underflows to 0 like the kernel
	}
	return 1 / (1 + math.Exp(-v))
}

func TestUnary(t *testing.T) {
	// Each result is a float64 function rounded once to T: within 1 ulp of
	// T, plus the few float64 ulps of the function itself.
	testUnary(t, "relu64", ReLU[float64], relu, 4, 0)
	testUnary(t, "relu32", ReLU[float32], relu, 4, 0)
	testUnary(t, "sigmoid64", Sigmoid[float64], sigmoidRef, 8, 8)
	testUnary(t, "sigmoid32", Sigmoid[float32], sigmoidRef, 8, 2)
	testUnary(t, "tanh64", Tanh[float64], math.Tanh, 4, 4)
	testUnary(t, "tanh32", Tanh[float32], math.Tanh, 4, 2)
	testUnary(t, "exp64", Exp[float64], math.Exp, 4, 4)
	testUnary(t, "exp32", Exp[float32], math.Exp, 4, 2)
}

func TestSpecialValues(t *testing.T) {
	x := []float32{-1000, 1000, float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.Copysign(0, -1))}
	y := make([]float32, len(x))
	Sigmoid(x, y, 1)
	if want := []float32{0, 1, 0, 1, 0.5}; numtest.Differ(y, want) >= 0 {
		t.Errorf("Sigmoid(%v) = %v, want %v", x, y, want)
	}
	ReLU(x, y, 1)
	if want := []float32{0, 1000, 0, float32(math.Inf(1)), 0}; numtest.Differ(y, want) >= 0 || math.Signbit(float64(y[4])) {
		t.Errorf("ReLU(%v) = %v, want %v (and +0)", x, y, want)
	}
	Exp(x, y, 1)
	if want := []float32{0, float32(math.Inf(1)), 0, float32(math.Inf(1)), 1}; numtest.Differ(y, want) >= 0 {
		t.Errorf("Exp(%v) = %v, want %v", x, y, want)
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
	expectPanic(t, "elem: len(y) != len(x)", func() { Add(a, b, a, 1) })
	expectPanic(t, "elem: len(z) != len(x)", func() { Mul(a, a, b, 1) })
	expectPanic(t, "elem: threads < 1", func() { Add(a, a, a, 0) })
	expectPanic(t, "elem: len(y) != len(x)", func() { Axpy(1, a, b, 1) })
	expectPanic(t, "elem: len(y) != len(x)", func() { ReLU(a, b, 1) })
	expectPanic(t, "elem: len(y) != len(x)", func() { Sigmoid(a, b, 1) })
	expectPanic(t, "elem: threads < 1", func() { Exp(a, a, -1) })
}

// Benchmarks report bytes moved per second: every input read once, the
// output written once (Axpy: x and y read, y written).

func benchOp[T Float](b *testing.B, n int, bytesPerElem int, f func()) {
	b.SetBytes(int64(n * bytesPerElem))
	for b.Loop() {
		f()
	}
}

func BenchmarkElem(b *testing.B) {
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1 << 12, 1 << 16, 1 << 22} {
		x, y, z := input[float32](n, rnd, 1, false).Data, input[float32](n, rnd, 1, false).Data, make([]float32, n)
		xd, yd, zd := input[float64](n, rnd, 1, false).Data, input[float64](n, rnd, 1, false).Data, make([]float64, n)
		for _, th := range []int{1, 2} {
			name := fmt.Sprintf("n=%d/t=%d", n, th)
			b.Run("Add/f32/"+name, func(b *testing.B) { benchOp[float32](b, n, 12, func() { Add(x, y, z, th) }) })
			b.Run("Add/f64/"+name, func(b *testing.B) { benchOp[float64](b, n, 24, func() { Add(xd, yd, zd, th) }) })
			b.Run("Axpy/f32/"+name, func(b *testing.B) { benchOp[float32](b, n, 12, func() { Axpy(0.5, x, y, th) }) })
			b.Run("Axpy/f64/"+name, func(b *testing.B) { benchOp[float64](b, n, 24, func() { Axpy(0.5, xd, yd, th) }) })
			b.Run("Sigmoid/f32/"+name, func(b *testing.B) { benchOp[float32](b, n, 8, func() { Sigmoid(x, z, th) }) })
		}
	}
}
