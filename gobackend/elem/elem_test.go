package elem

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

// The tests run every kernel at every level this CPU supports, over every
// length 0..140 and a few longer ones, slices starting at element offsets
// 0..7, with NaN guards around every buffer: a stray write, or a changed
// input, fails. Add, Mul and ReLU must give the exact result (one rounding)
// at every level; the transcendentals must be within MaxULP.

func threadSet() []int {
	if numtest.Quick() {
		return []int{1, 3}
	}
	return []int{1, 2, 3, 7}
}

// lengths are every length 0..140 plus a few that give several 64-element
// chunks and a ragged last one.
func lengths() []int {
	var ls []int
	for n := 0; n <= 140; n++ {
		ls = append(ls, n)
	}
	return append(ls, 257, 1000, 4099)
}

// specials are spliced into the random inputs: the kernels must handle
// them (sigmoid of ±1000 must not be NaN).
var specials = []float64{0, math.Copysign(0, -1), 1, -1, 30, -30, 100, -100, 1000, -1000,
	math.Inf(1), math.Inf(-1), math.NaN(), 0x1p-1074, -0x1p-149, 88.7, -87.5, 709.7, -745}

func input[T Float](n, off int, rnd *rand.Rand, scale float64, withSpecials bool) numtest.Guarded[T] {
	g := numtest.NewAt[T](n, off, rnd)
	for i := range g.Data {
		g.Data[i] *= T(scale)
		if withSpecials && i%5 == 2 {
			g.Data[i] = T(specials[(i/5)%len(specials)])
		}
	}
	return g
}

// levels are the levels this CPU runs that have kernels of their own (a
// level without any runs the next lower one's).
func levels() []isa.Level {
	var ls []isa.Level
	for _, l := range isa.Levels() {
		if l == isa.Generic || implFor(l) != implFor(l-1) {
			ls = append(ls, l)
		}
	}
	return ls
}

// forCases runs f over every level, length, offset and thread count,
// under the tune parameters' extremes, with ordinary stores and with
// non-temporal ones (nontemporal.elem 0: every call's output, from its
// first 64-byte line), the AVX512 level's AVX-512 kernels at every size
// (zmm.* at their largest; the AVX2 level runs the AVX2 kernels).
func forCases(t *testing.T, f func(lvl isa.Level, n, off, th int)) {
	defer tune.Save().Restore()
	for _, p := range tunetest.Extremes() {
		p.ZMM = tune.ZMM{Memory: tune.MaxPieceBytes, Math: tune.MaxPieceBytes}
		for _, nt := range []int{tune.MaxPieceBytes, 0} {
			p.NonTemporal.Elem = nt
			tune.Apply(p, "test")
			forCasesOnce(t, f)
		}
	}
}

func forCasesOnce(t *testing.T, f func(lvl isa.Level, n, off, th int)) {
	for _, lvl := range levels() {
		for _, n := range lengths() {
			for _, off := range numtest.Offsets() {
				for _, th := range threadSet() {
					f(lvl, n, off, th)
					if t.Failed() {
						return
					}
				}
			}
		}
	}
}

func testBinary[T Float](t *testing.T, name string, run func(lvl isa.Level, x, y, z []T, threads int), ref func(x, y float64) float64) {
	rnd := rand.New(rand.NewPCG(1, 2))
	forCases(t, func(lvl isa.Level, n, off, th int) {
		x, y, z := input[T](n, off, rnd, 4, true), input[T](n, 7-off, rnd, 4, true), input[T](n, off/2, rnd, 1, false)
		x0, y0 := x.Clone(), y.Clone()
		run(lvl, x.Data, y.Data, z.Data, th)
		x.CheckGuards(t, "x")
		y.CheckGuards(t, "y")
		z.CheckGuards(t, "z")
		if numtest.Differ(x.Full, x0.Full) >= 0 || numtest.Differ(y.Full, y0.Full) >= 0 {
			t.Fatalf("%s %v n=%d off=%d threads=%d: input modified", name, lvl, n, off, th)
		}
		for i := range z.Data {
			// One operation rounded once: the float64 result rounded
			// to T is exact for + and ×.
			want := T(ref(float64(x.Data[i]), float64(y.Data[i])))
			if numtest.Differ(z.Data[i:i+1], []T{want}) >= 0 {
				t.Fatalf("%s %v n=%d off=%d threads=%d: z[%d] = %v, want %v", name, lvl, n, off, th, i, z.Data[i], want)
			}
		}
		// In place: z aliases x.
		run(lvl, x.Data, y.Data, x.Data, th)
		if i := numtest.Differ(x.Data, z.Data); i >= 0 {
			t.Fatalf("%s %v n=%d off=%d threads=%d: in place differs at %d", name, lvl, n, off, th, i)
		}
	})
}

func TestAdd(t *testing.T) {
	add := func(x, y float64) float64 { return x + y }
	testBinary(t, "add64", Add[float64], add)
	testBinary(t, "add32", Add[float32], add)
}

func TestMul(t *testing.T) {
	mul := func(x, y float64) float64 { return x * y }
	testBinary(t, "mul64", Mul[float64], mul)
	testBinary(t, "mul32", Mul[float32], mul)
}

func testAxpy[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	eps := numtest.Eps[T]()
	for _, alpha := range []float64{0, 1, -0.5, 2} {
		forCases(t, func(lvl isa.Level, n, off, th int) {
			x, y := input[T](n, off, rnd, 1, false), input[T](n, (off+5)%8, rnd, 1, false)
			x0, y0 := x.Clone(), y.Clone()
			Axpy(lvl, T(alpha), x.Data, y.Data, th)
			x.CheckGuards(t, "x")
			y.CheckGuards(t, "y")
			if numtest.Differ(x.Full, x0.Full) >= 0 {
				t.Fatalf("%v n=%d threads=%d: x modified", lvl, n, th)
			}
			for i, got := range y.Data {
				xv, yv := float64(x0.Data[i]), float64(y0.Data[i])
				want := yv + alpha*xv
				// At most two roundings, of alpha·x and of the sum.
				if tol := 2 * eps * (math.Abs(yv) + math.Abs(alpha*xv)); math.Abs(float64(got)-want) > tol {
					t.Fatalf("%v alpha=%v n=%d threads=%d: y[%d] = %v, want %v", lvl, alpha, n, th, i, got, want)
				}
			}
		})
	}
}

func TestAxpy(t *testing.T) {
	testAxpy[float64](t)
	testAxpy[float32](t)
}

type unaryFn[T Float] func(lvl isa.Level, x, y []T, threads int)

// testUnary checks a function against its reference within MaxULP (exactly
// for relu), on random inputs spliced with specials, then in place.
func testUnary[T Float](t *testing.T, name string, run unaryFn[T], ref func(float64) float64, scale float64) {
	rnd := rand.New(rand.NewPCG(5, 6))
	var z T
	f64 := numtest.Eps[T]() < 0x1p-30
	forCases(t, func(lvl isa.Level, n, off, th int) {
		bound := 0.0
		if name != "relu" {
			bound = MaxULP(lvl, name, f64)
		}
		x, y := input[T](n, off, rnd, scale, true), input[T](n, off^5, rnd, 1, false)
		x0 := x.Clone()
		run(lvl, x.Data, y.Data, th)
		x.CheckGuards(t, "x")
		y.CheckGuards(t, "y")
		if numtest.Differ(x.Full, x0.Full) >= 0 {
			t.Fatalf("%s %v n=%d threads=%d: x modified", name, lvl, n, th)
		}
		for i, got := range y.Data {
			want := ref(float64(x.Data[i]))
			var e float64
			if f64 && name != "relu" {
				hi, lo, k := refDD(name, float64(x.Data[i]))
				e = ulpErr64(float64(got), hi, lo, k)
				want = math.Ldexp(hi, k)
			} else if f64 {
				e = ulpErr64(float64(got), want, 0, 0)
			} else {
				e = ulpErr32(float32(got), want)
			}
			if e > bound || (bound == 0 && math.Signbit(float64(got)) != math.Signbit(want) && !math.IsNaN(want)) {
				t.Fatalf("%s %v n=%d off=%d threads=%d: f(%v) = %v, want %v (%.3g ulp > %g) %T", name, lvl, n, off, th, x.Data[i], got, want, e, bound, z)
			}
		}
		// In place.
		run(lvl, x.Data, x.Data, th)
		if i := numtest.Differ(x.Data, y.Data); i >= 0 {
			t.Fatalf("%s %v n=%d off=%d threads=%d: in place differs at %d", name, lvl, n, off, th, i)
		}
	})
}

func relu(v float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	return math.Max(v, 0)
}

func TestUnary(t *testing.T) {
	testUnary(t, "relu", ReLU[float64], relu, 4)
	testUnary(t, "relu", ReLU[float32], relu, 4)
	// float32 results are compared with math's functions (within 1 ulp of
	// float64), float64 ones with the double-double reference of
	// accuracy_test.go.
	testUnary(t, "sigmoid", Sigmoid[float32], sigmoidRef, 8)
	testUnary(t, "tanh", Tanh[float32], math.Tanh, 4)
	testUnary(t, "exp", Exp[float32], math.Exp, 4)
	testUnary(t, "sigmoid", Sigmoid[float64], sigmoidRef, 8)
	testUnary(t, "tanh", Tanh[float64], math.Tanh, 4)
	testUnary(t, "exp", Exp[float64], math.Exp, 4)
}

// sigmoidRef is the logistic function in float64, stable for large |x|.
func sigmoidRef(v float64) float64 {
	if v >= 0 {
		return 1 / (1 + math.Exp(-v))
	}
	e := math.Exp(v)
	return e / (1 + e)
}

func TestSpecialValues(t *testing.T) {
	for _, lvl := range isa.Levels() {
		inf, nan := math.Inf(1), math.NaN()
		x := []float32{-1000, 1000, float32(-inf), float32(inf), float32(math.Copysign(0, -1)), float32(nan)}
		y := make([]float32, len(x))
		Sigmoid(lvl, x, y, 1)
		if want := []float32{0, 1, 0, 1, 0.5, float32(nan)}; numtest.Differ(y, want) >= 0 {
			t.Errorf("%v: Sigmoid(%v) = %v, want %v", lvl, x, y, want)
		}
		ReLU(lvl, x, y, 1)
		if want := []float32{0, 1000, 0, float32(inf), 0, float32(nan)}; numtest.Differ(y, want) >= 0 || math.Signbit(float64(y[4])) {
			t.Errorf("%v: ReLU(%v) = %v, want %v (and +0)", lvl, x, y, want)
		}
		Exp(lvl, x, y, 1)
		if want := []float32{0, float32(inf), 0, float32(inf), 1, float32(nan)}; numtest.Differ(y, want) >= 0 {
			t.Errorf("%v: Exp(%v) = %v, want %v", lvl, x, y, want)
		}
		Tanh(lvl, x, y, 1)
		if want := []float32{-1, 1, -1, 1, 0, float32(nan)}; numtest.Differ(y, want) >= 0 || !math.Signbit(float64(y[4])) {
			t.Errorf("%v: Tanh(%v) = %v, want %v (and -0)", lvl, x, y, want)
		}
		xd := []float64{-1000, 1000, -inf, inf, math.Copysign(0, -1), nan, 710, -746}
		yd := make([]float64, len(xd))
		Exp(lvl, xd, yd, 1)
		if want := []float64{0, inf, 0, inf, 1, nan, inf, 0}; numtest.Differ(yd, want) >= 0 {
			t.Errorf("%v: Exp(%v) = %v, want %v", lvl, xd, yd, want)
		}
		Tanh(lvl, xd, yd, 1)
		if want := []float64{-1, 1, -1, 1, 0, nan, 1, -1}; numtest.Differ(yd, want) >= 0 || !math.Signbit(yd[4]) {
			t.Errorf("%v: Tanh(%v) = %v, want %v (and -0)", lvl, xd, yd, want)
		}
		Sigmoid(lvl, xd, yd, 1)
		if want := []float64{0, 1, 0, 1, 0.5, nan, 1, 0}; numtest.Differ(yd, want) >= 0 {
			t.Errorf("%v: Sigmoid(%v) = %v, want %v", lvl, xd, yd, want)
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

func TestPanics(t *testing.T) {
	a, b := make([]float64, 3), make([]float64, 4)
	for _, lvl := range isa.Levels() {
		expectPanic(t, "elem: len(y) != len(x)", func() { Add(lvl, a, b, a, 1) })
		expectPanic(t, "elem: len(z) != len(x)", func() { Mul(lvl, a, a, b, 1) })
		expectPanic(t, "elem: threads < 1", func() { Add(lvl, a, a, a, 0) })
		expectPanic(t, "elem: len(y) != len(x)", func() { Axpy(lvl, 1, a, b, 1) })
		expectPanic(t, "elem: len(y) != len(x)", func() { ReLU(lvl, a, b, 1) })
		expectPanic(t, "elem: len(y) != len(x)", func() { Sigmoid(lvl, a, b, 1) })
		expectPanic(t, "elem: threads < 1", func() { Exp(lvl, a, a, -1) })
	}
	expectPanic(t, "elem: MaxULP: unknown function log", func() { MaxULP(isa.Generic, "log", false) })
}

func TestKernel(t *testing.T) {
	if got := Kernel(isa.Generic); got != "generic" {
		t.Errorf("Kernel(Generic) = %q", got)
	}
	if got := MathKernel(isa.Generic); got != "generic" {
		t.Errorf("MathKernel(Generic) = %q", got)
	}
	if implFor(isa.AVX2) == implAVX2 {
		if got := Kernel(isa.AVX2); got != "AVX2" {
			t.Errorf("Kernel(AVX2) = %q", got)
		}
	}
	if implFor(isa.AVX512) == implAVX512 {
		defer tunetest.With(func(p *tune.Params) { p.ZMM = tune.ZMM{Memory: 16 << 20, Math: 64 << 20} })()
		if got, want := Kernel(isa.AVX512), "AVX512 (AVX2 above 16 MiB)"; got != want {
			t.Errorf("Kernel(AVX512) = %q, want %q", got, want)
		}
		if got, want := MathKernel(isa.AVX512), "AVX512 (AVX2 above 64 MiB)"; got != want {
			t.Errorf("MathKernel(AVX512) = %q, want %q", got, want)
		}
	}
}

// TestZmmMathBits checks that the AVX-512 Exp, Tanh and Sigmoid give the
// AVX2 kernels' bits (the same operations in wider vectors, which is what
// lets them share MaxULP's bounds), over every float32 bit pattern with a
// stride (every 7919th; 999983rd when quick) and float64 patterns spread
// over every binade, at every length mod the vector width.
func TestZmmMathBits(t *testing.T) {
	if implFor(isa.AVX512) != implAVX512 {
		t.Skip("no AVX-512 kernels here")
	}
	stride := uint64(7919)
	if numtest.Quick() {
		stride = 999983
	}
	var x32 []float32
	for _, v := range specials {
		x32 = append(x32, float32(v))
	}
	for b := uint64(0); b < 1<<32; b += stride {
		x32 = append(x32, math.Float32frombits(uint32(b)))
	}
	var x64 []float64
	x64 = append(x64, specials...)
	for b := uint64(12345); len(x64) < len(x32); b += ^uint64(0) / uint64(len(x32)) {
		x64 = append(x64, math.Float64frombits(b))
	}
	for _, fn := range []string{"exp", "tanh", "sigmoid"} {
		o := fnOps[fn]
		// Lengths that end in every tail length, 0 to 16 lanes.
		for n := len(x32) - 17; n <= len(x32); n++ {
			want, got := make([]float32, n), make([]float32, n)
			unaryKernel(implAVX2, o, x32[:n], want, false)
			unaryKernel(implAVX512, o, x32[:n], got, false)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s f32 n=%d: f(%v) = %v at AVX512, %v at AVX2", fn, n, x32[i], got[i], want[i])
				}
			}
		}
		for n := len(x64) - 9; n <= len(x64); n++ {
			want, got := make([]float64, n), make([]float64, n)
			unaryKernel(implAVX2, o, x64[:n], want, false)
			unaryKernel(implAVX512, o, x64[:n], got, false)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s f64 n=%d: f(%v) = %v at AVX512, %v at AVX2", fn, n, x64[i], got[i], want[i])
				}
			}
		}
	}
}

// TestZmmLimit checks Add, Axpy and Exp at isa.AVX512 on both sides of
// tune's zmm.memory and zmm.math against AVX2: both kernels give the same
// bits, so this checks the results; isa's TestForBytes and tune's
// TestLevels check which level is picked.
func TestZmmLimit(t *testing.T) {
	if implFor(isa.AVX512) != implAVX512 {
		t.Skip("no AVX-512 kernels here")
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	x, y := numtest.New[float32](5003, rnd).Data, numtest.New[float32](5003, rnd).Data
	defer tune.Save().Restore()
	for _, limit := range []int{0, 12 * len(x)} {
		tunetest.With(func(p *tune.Params) { p.ZMM = tune.ZMM{Memory: limit, Math: limit} }) // put back by the deferred Restore
		for _, th := range threadSet() {
			want, got := make([]float32, len(x)), make([]float32, len(x))
			Add(isa.AVX2, x, y, want, th)
			Add(isa.AVX512, x, y, got, th)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("limit %d, threads=%d: Add at AVX512 [%d] = %v, AVX2 %v", limit, th, i, got[i], want[i])
				}
			}
			copy(want, y)
			copy(got, y)
			Axpy(isa.AVX512, 0.5, x, got, th)
			Axpy(isa.AVX2, 0.5, x, want, th)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("limit %d, threads=%d: Axpy at AVX512 [%d] = %v, AVX2 %v", limit, th, i, got[i], want[i])
				}
			}
			Exp(isa.AVX512, x, got, th)
			Exp(isa.AVX2, x, want, th)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("limit %d, threads=%d: Exp at AVX512 [%d] = %v, AVX2 %v", limit, th, i, got[i], want[i])
				}
			}
		}
	}
}

// Benchmarks report bytes moved per second: every input read once, the
// output written once (Axpy: x and y read, y written). Working sets: 4 KiB,
// 256 KiB, 4 MiB and 64 MiB of float32 input (L1, L2, L3, DRAM on the
// development machine).

func benchOp(b *testing.B, n int, bytesPerElem int, f func()) {
	b.SetBytes(int64(n * bytesPerElem))
	for b.Loop() {
		f()
	}
}

func BenchmarkElem(b *testing.B) {
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1 << 10, 1 << 16, 1 << 20, 1 << 24} {
		x, y, z := input[float32](n, 0, rnd, 1, false).Data, input[float32](n, 0, rnd, 1, false).Data, make([]float32, n)
		xd, yd, zd := input[float64](n, 0, rnd, 1, false).Data, input[float64](n, 0, rnd, 1, false).Data, make([]float64, n)
		for _, lvl := range isa.Levels() {
			for _, th := range []int{1, 2} {
				name := fmt.Sprintf("%v/n=%d/t=%d", lvl, n, th)
				b.Run("Add/f32/"+name, func(b *testing.B) { benchOp(b, n, 12, func() { Add(lvl, x, y, z, th) }) })
				b.Run("Add/f64/"+name, func(b *testing.B) { benchOp(b, n, 24, func() { Add(lvl, xd, yd, zd, th) }) })
				b.Run("Axpy/f32/"+name, func(b *testing.B) { benchOp(b, n, 12, func() { Axpy(lvl, 0.5, x, y, th) }) })
				b.Run("Axpy/f64/"+name, func(b *testing.B) { benchOp(b, n, 24, func() { Axpy(lvl, 0.5, xd, yd, th) }) })
				b.Run("ReLU/f32/"+name, func(b *testing.B) { benchOp(b, n, 8, func() { ReLU(lvl, x, z, th) }) })
				if n <= 1<<20 {
					b.Run("Exp/f32/"+name, func(b *testing.B) { benchOp(b, n, 8, func() { Exp(lvl, x, z, th) }) })
					b.Run("Tanh/f32/"+name, func(b *testing.B) { benchOp(b, n, 8, func() { Tanh(lvl, x, z, th) }) })
					b.Run("Sigmoid/f32/"+name, func(b *testing.B) { benchOp(b, n, 8, func() { Sigmoid(lvl, x, z, th) }) })
					b.Run("Exp/f64/"+name, func(b *testing.B) { benchOp(b, n, 16, func() { Exp(lvl, xd, zd, th) }) })
					b.Run("Tanh/f64/"+name, func(b *testing.B) { benchOp(b, n, 16, func() { Tanh(lvl, xd, zd, th) }) })
					b.Run("Sigmoid/f64/"+name, func(b *testing.B) { benchOp(b, n, 16, func() { Sigmoid(lvl, xd, zd, th) }) })
				}
			}
		}
	}
}

// TestReLUBits checks that every level gives the generic kernel's bits for
// ReLU's special inputs, at each position of a vector long enough to use
// every loop of the assembly (and its masked tail).
func TestReLUBits(t *testing.T) {
	negNaN := math.Float64frombits(0xfff8_0000_0000_0001)
	sNaN := math.Float64frombits(0x7ff0_0000_0000_0001)
	specials := []float64{negNaN, math.NaN(), sNaN, math.Copysign(0, -1), 0, -1, 1, math.Inf(-1), math.Inf(1), -0x1p-1074, 0x1p-1074}
	f32 := []float32{float32(negNaN), float32(math.NaN()), math.Float32frombits(0x7f80_0001), math.Float32frombits(0xff80_0001),
		float32(math.Copysign(0, -1)), 0, -1, 1, float32(math.Inf(-1)), -0x1p-149}
	for _, lvl := range levels() {
		for n := 1; n <= 150; n += 7 {
			for i := range n {
				x := make([]float64, n)
				x[i] = specials[i%len(specials)]
				want, got := make([]float64, n), make([]float64, n)
				ReLU(isa.Generic, x, want, 1)
				ReLU(lvl, x, got, 1)
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) || !math.IsNaN(x[i]) && math.IsNaN(want[i]) {
					t.Fatalf("%v n=%d: ReLU(%v) at %d = %#x, generic %#x", lvl, n, x[i], i, math.Float64bits(got[i]), math.Float64bits(want[i]))
				}
				x32 := make([]float32, n)
				x32[i] = f32[i%len(f32)]
				w32, g32 := make([]float32, n), make([]float32, n)
				ReLU(isa.Generic, x32, w32, 1)
				ReLU(lvl, x32, g32, 1)
				if math.Float32bits(g32[i]) != math.Float32bits(w32[i]) {
					t.Fatalf("%v n=%d: ReLU(%v) at %d = %#x, generic %#x", lvl, n, x32[i], i, math.Float32bits(g32[i]), math.Float32bits(w32[i]))
				}
			}
		}
	}
	// The generic kernel itself: NaN stays NaN with its sign cleared, -0
	// and negatives become +0.
	y := make([]float64, 3)
	ReLU(isa.Generic, []float64{negNaN, math.Copysign(0, -1), -2}, y, 1)
	if math.Float64bits(y[0]) != 0x7ff8_0000_0000_0001 || math.Float64bits(y[1]) != 0 || math.Float64bits(y[2]) != 0 {
		t.Errorf("generic ReLU(-NaN, -0, -2) = %#x %#x %#x", math.Float64bits(y[0]), math.Float64bits(y[1]), math.Float64bits(y[2]))
	}
}
