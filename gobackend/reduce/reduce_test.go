package reduce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
	"github.com/peakbench/peakbench/gobackend/tune/tunetest"
)

// Every level this CPU runs, every length 0..140 and some longer ones,
// slices starting at element offsets 0..7, NaN guards around every buffer.

func threadSet() []int {
	if numtest.Quick() {
		return []int{1, 3}
	}
	return []int{1, 2, 3, 7}
}

func lengths() []int {
	var ls []int
	for n := 0; n <= 140; n++ {
		ls = append(ls, n)
	}
	return append(ls, 255, 256, 257, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 5003, 8193)
}

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

func forCases(t *testing.T, f func(lvl isa.Level, n, off, th int)) {
	tunetest.WithExtremes(func() {
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
	})
}

// tol is the error bound of a blocked sum of n terms of total magnitude mag:
// at most 2048/64 + 8 roundings in T per term inside a block (the
// assembly's blocks; the generic ones are shorter), one float64 addition
// per block and the final rounding to T.
func tol[T Float](n int, mag, want float64) float64 {
	eps := numtest.Eps[T]()
	return float64(min(n, 2048)/64+8)*eps*mag + float64(n/256+1)*0x1p-53*mag + eps*math.Abs(want)
}

func testSumDot[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	forCases(t, func(lvl isa.Level, n, off, th int) {
		x, y := numtest.NewAt[T](n, off, rnd), numtest.NewAt[T](n, 7-off, rnd)
		x0, y0 := x.Clone(), y.Clone()
		s := Sum(lvl, x.Data, th)
		d := Dot(lvl, x.Data, y.Data, th)
		x.CheckGuards(t, "x")
		y.CheckGuards(t, "y")
		if numtest.Differ(x.Full, x0.Full) >= 0 || numtest.Differ(y.Full, y0.Full) >= 0 {
			t.Fatalf("%v n=%d threads=%d: input modified", lvl, n, th)
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
			t.Fatalf("%v n=%d off=%d threads=%d: Sum = %v, want %v", lvl, n, off, th, s, ws)
		}
		if e := math.Abs(float64(d) - wd); e > tol[T](n, md, wd) {
			t.Fatalf("%v n=%d off=%d threads=%d: Dot = %v, want %v", lvl, n, off, th, d, wd)
		}
		// Same length, threads and level: the same bits.
		if s2, d2 := Sum(lvl, x.Data, th), Dot(lvl, x.Data, y.Data, th); s2 != s || d2 != d {
			t.Fatalf("%v n=%d threads=%d: not deterministic: %v %v then %v %v", lvl, n, th, s, d, s2, d2)
		}
		// NaN and Inf propagate.
		if n > 0 {
			i := (n * 7) % n
			x.Data[i] = T(math.Inf(1))
			if s := Sum(lvl, x.Data, th); !math.IsInf(float64(s), 1) {
				t.Fatalf("%v n=%d: Inf at %d: Sum = %v", lvl, n, i, s)
			}
			x.Data[i] = T(math.NaN())
			if s, d := Sum(lvl, x.Data, th), Dot(lvl, x.Data, y.Data, th); s == s || d == d {
				t.Fatalf("%v n=%d: NaN at %d: Sum = %v, Dot = %v", lvl, n, i, s, d)
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
	for _, lvl := range levels() {
		for _, th := range threadSet() {
			if got := Sum(lvl, x, th); math.Abs(float64(got)-want) > 1e-5*want {
				t.Errorf("%v threads=%d: Sum = %v, want %v", lvl, th, got, want)
			}
			if got := Dot(lvl, x, x, th); math.Abs(float64(got)-want/10) > 1e-5*want/10 {
				t.Errorf("%v threads=%d: Dot = %v, want %v", lvl, th, got, want/10)
			}
		}
	}
}

func testMax[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	forCases(t, func(lvl isa.Level, n, off, th int) {
		x := numtest.NewAt[T](n, off, rnd)
		// All negative half the time, so that the padding of a masked
		// tail (0 if mishandled) would win.
		if n%2 == 1 {
			for i := range x.Data {
				x.Data[i] = -1 - x.Data[i]*x.Data[i]
			}
		}
		x0 := x.Clone()
		got := Max(lvl, x.Data, th)
		x.CheckGuards(t, "x")
		if numtest.Differ(x.Full, x0.Full) >= 0 {
			t.Fatalf("%v n=%d threads=%d: input modified", lvl, n, th)
		}
		if want := maxGeneric(x.Data); numtest.Differ([]T{got}, []T{want}) >= 0 {
			t.Fatalf("%v n=%d off=%d threads=%d: Max = %v, want %v", lvl, n, off, th, got, want)
		}
		// A NaN anywhere wins, and +Inf.
		if n > 0 {
			i := rnd.IntN(n)
			x.Data[i] = T(math.Inf(1))
			if got := Max(lvl, x.Data, th); !math.IsInf(float64(got), 1) {
				t.Fatalf("%v n=%d threads=%d: +Inf at %d: Max = %v", lvl, n, th, i, got)
			}
			x.Data[(i+n/2)%n] = T(math.NaN())
			if got := Max(lvl, x.Data, th); got == got {
				t.Fatalf("%v n=%d threads=%d: NaN at %d: Max = %v, want NaN", lvl, n, th, i, got)
			}
		}
	})
}

func TestMax(t *testing.T) {
	testMax[float64](t)
	testMax[float32](t)
	negZero := float32(math.Copysign(0, -1))
	for _, lvl := range levels() {
		for _, x := range [][]float32{{negZero, 0, negZero}, {0, negZero}, {negZero, negZero, 0, negZero, negZero, negZero, negZero, negZero, negZero}} {
			if m := Max(lvl, x, 1); m != 0 || math.Signbit(float64(m)) {
				t.Errorf("%v: Max(%v) = %v, want +0", lvl, x, m)
			}
		}
		if m := Max(lvl, []float32{negZero, -1}, 1); m != 0 || !math.Signbit(float64(m)) {
			t.Errorf("%v: Max(-0, -1) = %v, want -0", lvl, m)
		}
		if m := Max(lvl, []float64{math.Inf(-1)}, 1); !math.IsInf(m, -1) {
			t.Errorf("%v: Max(-Inf) = %v", lvl, m)
		}
		maxEveryPosition[float32](t, lvl)
		maxEveryPosition[float64](t, lvl)
	}
}

// maxEveryPosition puts a NaN, an infinity, and both, at every position of
// every loop's part (the unrolled trips, single vectors, the masked tail):
// the AVX-512 kernel watches its main loop for NaN and infinity together
// and rescans that part when it sees one.
func maxEveryPosition[T Float](t *testing.T, lvl isa.Level) {
	for n := 1; n <= 300; n++ {
		x := make([]T, n)
		reset := func() {
			for i := range x {
				x[i] = -T(i)
			}
		}
		reset()
		for i := range x {
			for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				x[i] = T(v)
				if got, want := Max(lvl, x, 1), maxGeneric(x); numtest.Differ([]T{got}, []T{want}) >= 0 {
					t.Fatalf("%v n=%d: %v at %d: Max = %v, want %v", lvl, n, v, i, got, want)
				}
			}
			if j := (i + n/2) % n; j != i {
				x[j] = T(math.NaN()) // with -Inf at i
				if got := Max(lvl, x, 1); got == got {
					t.Fatalf("%v n=%d: -Inf at %d, NaN at %d: Max = %v, want NaN", lvl, n, i, j, got)
				}
			}
			reset()
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
	for _, lvl := range levels() {
		expectPanic(t, "reduce: len(y) != len(x)", func() { Dot(lvl, a, b, 1) })
		expectPanic(t, "reduce: threads < 1", func() { Sum(lvl, a, 0) })
		expectPanic(t, "reduce: threads < 1", func() { Max(lvl, a, 0) })
		expectPanic(t, "reduce: threads < 1", func() { Dot(lvl, a, a, 0) })
		if s, d, m := Sum[float32](lvl, nil, 1), Dot[float32](lvl, nil, nil, 2), Max[float64](lvl, nil, 3); s != 0 || d != 0 || !math.IsInf(m, -1) {
			t.Errorf("%v empty: Sum %v Dot %v Max %v, want 0 0 -Inf", lvl, s, d, m)
		}
	}
}

var sink float64

// Benchmarks report GB/s of input read. Working sets of 4 KiB, 256 KiB,
// 4 MiB and 64 MiB of float32 (L1, L2, L3, DRAM on the development machine).
func BenchmarkReduce(b *testing.B) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1 << 10, 1 << 16, 1 << 20, 1 << 24} {
		x, y := numtest.New[float32](n, rnd).Data, numtest.New[float32](n, rnd).Data
		xd := numtest.New[float64](n, rnd).Data
		for _, lvl := range levels() {
			for _, th := range []int{1, 2} {
				name := fmt.Sprintf("%v/n=%d/t=%d", lvl, n, th)
				b.Run("Sum/f32/"+name, func(b *testing.B) {
					b.SetBytes(int64(4 * n))
					for b.Loop() {
						sink += float64(Sum(lvl, x, th))
					}
				})
				b.Run("Sum/f64/"+name, func(b *testing.B) {
					b.SetBytes(int64(8 * n))
					for b.Loop() {
						sink += Sum(lvl, xd, th)
					}
				})
				b.Run("Dot/f32/"+name, func(b *testing.B) {
					b.SetBytes(int64(8 * n))
					for b.Loop() {
						sink += float64(Dot(lvl, x, y, th))
					}
				})
				b.Run("Max/f32/"+name, func(b *testing.B) {
					b.SetBytes(int64(4 * n))
					for b.Loop() {
						sink += float64(Max(lvl, x, th))
					}
				})
			}
		}
	}
}

// TestZmmLimit checks that calls reading more than tune's zmm.memory run the
// AVX2 kernels at isa.AVX512, bit for bit, and smaller ones do not.
func TestZmmLimit(t *testing.T) {
	if implFor(isa.AVX512) != implAVX512 {
		t.Skip("no AVX-512 kernels here")
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	x, y := numtest.New[float32](5003, rnd).Data, numtest.New[float32](5003, rnd).Data
	defer tune.Save().Restore()
	for _, th := range threadSet() {
		tunetest.With(func(p *tune.Params) { p.ZMM.Memory = 4 * len(x) }) // Sum within, Dot over
		if got, want := Sum(isa.AVX512, x, 1), float32(ssumAVX512(len(x), &x[0])); got != want {
			t.Errorf("Sum within the limit = %v, want the AVX-512 kernel's %v", got, want)
		}
		if got, want := Dot(isa.AVX512, x, y, th), Dot(isa.AVX2, x, y, th); got != want {
			t.Errorf("threads=%d: Dot over the limit = %v, want the AVX2 kernel's %v", th, got, want)
		}
		tunetest.With(func(p *tune.Params) { p.ZMM.Memory = 0 })
		if got, want := Sum(isa.AVX512, x, th), Sum(isa.AVX2, x, th); got != want {
			t.Errorf("threads=%d: Sum over the limit = %v, want the AVX2 kernel's %v", th, got, want)
		}
	}
}

func TestKernelName(t *testing.T) {
	if got := Kernel(isa.Generic); got != "generic" {
		t.Errorf("Kernel(Generic) = %q", got)
	}
	if implFor(isa.AVX512) == implAVX512 {
		defer tunetest.With(func(p *tune.Params) { p.ZMM.Memory = 16 << 20 })()
		if got, want := Kernel(isa.AVX512), "AVX512 (AVX2 above 16 MiB)"; got != want {
			t.Errorf("Kernel(AVX512) = %q, want %q", got, want)
		}
	}
}

// TestDotPrefetch checks the AVX-512 dot that prefetches its input (the one
// Dot runs past a core's L2: dotPrefetches) against the plain one, bit for bit, over
// lengths around its blocks (4096 zmm elements) and offsets, and Dot past
// that size at 1 and 2 threads against the plain kernel on its pieces.
func TestDotPrefetch(t *testing.T) {
	if implFor(isa.AVX512) != implAVX512 {
		t.Skip("no AVX-512 kernels here")
	}
	testDotPrefetch[float32](t)
	testDotPrefetch[float64](t)
}

// TestDotPrefetches checks where Dot prefetches: past L2, up to a quarter
// of L3.
func TestDotPrefetches(t *testing.T) {
	c := isa.Caches()
	for _, cs := range []struct {
		bytes int
		want  bool
	}{{c.L2, false}, {c.L2 + 1, c.L2+1 <= c.L3/4}, {c.L3 / 4, c.L3/4 > c.L2}, {c.L3/4 + 1, false}} {
		if got := dotPrefetches(cs.bytes); got != cs.want {
			t.Errorf("dotPrefetches(%d) = %v, want %v (L2 %d, L3 %d)", cs.bytes, got, cs.want, c.L2, c.L3)
		}
	}
}

func testDotPrefetch[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 15, 16, 17, 4095, 4096, 4097, 8192, 8200, 3*4096 + 129, 40000} {
		for _, off := range []int{0, 1, 3} {
			x, y := numtest.NewAt[T](n, off, rnd), numtest.NewAt[T](n, off, rnd)
			var got, want float64
			if is32[T]() {
				got, want = sdotpfAVX512(n, p32(x.Data), p32(y.Data)), sdotAVX512(n, p32(x.Data), p32(y.Data))
			} else {
				got, want = ddotpfAVX512(n, p64(x.Data), p64(y.Data)), ddotAVX512(n, p64(x.Data), p64(y.Data))
			}
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%T n=%d off=%d: prefetching dot %v, plain %v", T(0), n, off, got, want)
			}
			x.CheckGuards(t, "x")
			y.CheckGuards(t, "y")
		}
	}
	// Past the L2, whole and in two pieces: Dot runs the prefetching kernel.
	n := isa.Caches().L2/num.Size[T]() + 4096 + 7
	if !dotPrefetches(2 * n * num.Size[T]()) {
		return // an L3 of less than four L2s: Dot never prefetches
	}
	x, y := numtest.New[T](n, rnd).Data, numtest.New[T](n, rnd).Data
	plain := func(x, y []T) float64 {
		if is32[T]() {
			return sdotAVX512(len(x), p32(x), p32(y))
		}
		return ddotAVX512(len(x), p64(x), p64(y))
	}
	if got, want := Dot(isa.AVX512, x, y, 1), T(plain(x, y)); numtest.Differ([]T{got}, []T{want}) >= 0 {
		t.Errorf("%T Dot of %d at 1 thread: %v, plain kernel %v", T(0), n, got, want)
	}
	parts, step := num.Chunks(n, 2, 64, piece[T]())
	var want float64
	for p := range parts {
		lo, hi := p*step, min(n, (p+1)*step)
		want += plain(x[lo:hi], y[lo:hi])
	}
	if got := Dot(isa.AVX512, x, y, 2); numtest.Differ([]T{got}, []T{T(want)}) >= 0 {
		t.Errorf("%T Dot of %d at 2 threads: %v, plain kernel %v", T(0), n, got, want)
	}
}
