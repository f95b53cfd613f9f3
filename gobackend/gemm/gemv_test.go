package gemm

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
	"github.com/peakbench/peakbench/gobackend/tune/tunetest"
)

func runGemvCase[T Float](t *testing.T, lvl isa.Level, trans bool, m, n int, alpha, beta float64, pad, incX, incY, threads int, nanY bool, rnd *rand.Rand) {
	t.Helper()
	lda := max(1, n) + pad
	lenX, lenY := n, m
	if trans {
		lenX, lenY = m, n
	}
	a := numtest.New[T](m*lda, rnd)
	x := numtest.New[T](minLen(lenX, 1, incX), rnd)
	y := numtest.New[T](minLen(lenY, 1, incY), rnd)
	if nanY {
		for i := range y.Data {
			y.Data[i] = T(math.NaN())
		}
	}
	a0, x0, y0 := a.Clone(), x.Clone(), y.Clone()

	Gemv(lvl, trans, m, n, T(alpha), a.Data, lda, x.Data, incX, T(beta), y.Data, incY, threads)

	for _, g := range []struct {
		name string
		buf  numtest.Guarded[T]
	}{{"a", a}, {"x", x}, {"y", y}} {
		g.buf.CheckGuards(t, g.name)
	}
	if i := numtest.Differ(a.Full, a0.Full); i >= 0 {
		t.Fatalf("a modified at %d", i)
	}
	if i := numtest.Differ(x.Full, x0.Full); i >= 0 {
		t.Fatalf("x modified at %d", i)
	}
	eps := numtest.Eps[T]()
	for i := range y.Data {
		got, old := float64(y.Data[i]), float64(y0.Data[i])
		if i%incY != 0 || m == 0 || n == 0 { // between strides, or a quick return
			if numtest.Differ([]T{T(got)}, []T{T(old)}) >= 0 {
				t.Fatalf("trans=%v m=%d n=%d incY=%d: y[%d] changed from %v to %v", trans, m, n, incY, i, old, got)
			}
			continue
		}
		r := i / incY
		var want, mag float64
		if alpha != 0 {
			for p := 0; p < lenX; p++ {
				ai := r*lda + p
				if trans {
					ai = p*lda + r
				}
				av := float64(a.Data[ai])
				v := av * float64(x.Data[p*incX])
				want += v
				mag += math.Abs(v)
			}
		}
		want *= alpha
		mag *= math.Abs(alpha)
		if beta != 0 {
			want += beta * old
			mag += math.Abs(beta * old)
		}
		tol := float64(lenX+4)*eps*mag + 1e-300
		if math.IsNaN(got) || math.Abs(got-want) > tol {
			t.Fatalf("%v trans=%v m=%d n=%d alpha=%v beta=%v incX=%d incY=%d threads=%d: y[%d] = %v, want %v",
				lvl, trans, m, n, alpha, beta, incX, incY, threads, r, got, want)
		}
	}
}

func testGemv[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	restore := splitGemvAlways() // exercise the parallel split on small inputs
	defer restore()
	for _, lvl := range isa.Levels() {
		i := 0
		for _, m := range dims {
			for _, n := range dims {
				for _, trans := range []bool{false, true} {
					for _, inc := range [][2]int{{1, 1}, {2, 3}, {3, 1}, {1, 2}} {
						ab := alphaBetas[i%len(alphaBetas)]
						runGemvCase[T](t, lvl, trans, m, n, ab[0], ab[1], i%3, inc[0], inc[1], threadSet[i%len(threadSet)], ab[1] == 0, rnd)
						i++
					}
				}
			}
		}
	}
	// Sizes past the thresholds, with the default threshold.
	restore()
	for _, lvl := range isa.Levels() {
		for _, trans := range []bool{false, true} {
			runGemvCase[T](t, lvl, trans, 601, 257, -0.5, 2, 1, 1, 1, 2, false, rnd)
			runGemvCase[T](t, lvl, trans, 257, 601, 2, 0, 0, 2, 2, 3, true, rnd)
		}
	}
}

func TestGemvFloat64(t *testing.T) { testGemv[float64](t) }
func TestGemvFloat32(t *testing.T) { testGemv[float32](t) }

// TestGemvTails runs every level on every inner length 0..33 (the AVX-512
// f32 kernels' two vectors and a lane past them) with 1..17 rows (the
// eight-row dot kernels, the four-row ones, then the rows left over), both
// transposes, over split and unsplit work.
func TestGemvTails(t *testing.T) {
	defer splitGemvAlways()()
	rnd := rand.New(rand.NewPCG(11, 12))
	i := 0
	for _, lvl := range isa.Levels() {
		for n := 0; n <= 33; n++ {
			for m := 1; m <= 17; m++ {
				for _, trans := range []bool{false, true} {
					ab := alphaBetas[i%len(alphaBetas)]
					th := 1 + 2*(i%2)
					runGemvCase[float32](t, lvl, trans, m, n, ab[0], ab[1], i%3, 1, 1, th, ab[1] == 0, rnd)
					runGemvCase[float64](t, lvl, trans, m, n, ab[0], ab[1], (i+1)%3, 1, 1, th, ab[1] == 0, rnd)
					i++
				}
			}
		}
	}
}

func TestGemvKernel(t *testing.T) {
	if got := GemvKernel(isa.Generic); got != "generic" {
		t.Errorf("GemvKernel(Generic) = %q", got)
	}
	if gemvImplFor(isa.AVX512) == gemvAVX512 {
		defer tunetest.With(func(p *tune.Params) { p.GEMV.ZMM = 16 << 20 })()
		l1 := strconv.Itoa(isa.Caches().L1 / 2 >> 10)
		for _, c := range []struct {
			byRow tune.PerDType
			want  string
		}{
			{tune.PerDType{F32: 1 << 20, F64: 1 << 20}, "AVX512 dot of 8 rows (of 1 above 1024 KiB of A, rows of 2–" + l1 + " KiB) and axpy of 4, AVX512 (AVX2 above 16 MiB)"},
			{tune.PerDType{F32: 0, F64: tune.MaxPieceBytes}, "AVX512 dot of 8 rows (of 1 at any size in f32, never in f64; rows of 2–" + l1 + " KiB) and axpy of 4, AVX512 (AVX2 above 16 MiB)"},
			{tune.PerDType{F32: tune.MaxPieceBytes, F64: tune.MaxPieceBytes}, "AVX512 dot of 8 rows and axpy of 4, AVX512 (AVX2 above 16 MiB)"},
		} {
			withGEMVTune(c.byRow, func() {
				if got := GemvKernel(isa.AVX512); got != c.want {
					t.Errorf("GemvKernel(AVX512) = %q, want %q", got, c.want)
				}
			})
		}
	}
}

// TestGemvByRowText: the one-row-at-a-time bound reads as a phrase per
// dtype where f32's and f64's differ; it read "above 1024 (f32), never
// (f64) KiB of A".
func TestGemvByRowText(t *testing.T) {
	rows := "rows of 2–" + strconv.Itoa(isa.Caches().L1/2>>10) + " KiB)"
	for _, c := range []struct {
		byRow tune.PerDType
		want  string
	}{
		{tune.PerDType{F32: 1 << 20, F64: 1 << 20}, " (of 1 above 1024 KiB of A, " + rows},
		{tune.PerDType{F32: 1 << 20, F64: tune.MaxPieceBytes}, " (of 1 above 1024 KiB of A in f32, never in f64; " + rows},
		{tune.PerDType{F32: tune.MaxPieceBytes, F64: 512 << 10}, " (of 1 never in f32, above 512 KiB of A in f64; " + rows},
		{tune.PerDType{}, " (of 1 at any size, " + rows},
		{tune.PerDType{F32: tune.MaxPieceBytes, F64: tune.MaxPieceBytes}, ""},
	} {
		withGEMVTune(c.byRow, func() {
			if got := gemvByRowText(); got != c.want {
				t.Errorf("by_row %+v: %q, want %q", c.byRow, got, c.want)
			}
		})
	}
}

// splitGemvAlways sets gemv.parallel to 0, so that every GEMV splits over
// its threads, and returns what puts the parameters before it back.
func splitGemvAlways() (restore func()) {
	return tunetest.With(func(p *tune.Params) { p.GEMV.Parallel = tune.PerDType{} })
}

// withGEMVTune runs f with the tune parameter gemv.by_row at byRow.
func withGEMVTune(byRow tune.PerDType, f func()) {
	defer tune.Save().Restore()
	p := *tune.Current()
	p.GEMV.ByRow = byRow
	tune.Apply(p, "test")
	f()
}

// TestGemvByRowChoice checks where A·x takes one row at a time: above
// gemv.by_row bytes of A, and only for rows of gemvByRowMinBytes up to half
// of L1.
func TestGemvByRowChoice(t *testing.T) {
	l1 := isa.Caches().L1
	withGEMVTune(tune.PerDType{F32: 1 << 20, F64: 2 << 20}, func() {
		for _, c := range []struct {
			f64  bool
			m, n int
			want bool
		}{
			{false, 256, 1024, false}, // 1 MiB, not above
			{false, 257, 1024, true},  // just above
			{true, 256, 1024, false},  // 2 MiB (f64's parameter)
			{true, 257, 1024, true},   // just above
			{false, 4096, 511, false}, // a row under 2 KiB
			{false, 4096, 512, true},  // 2 KiB
			{true, 4096, 255, false},  // f64: under 2 KiB
			{true, 4096, 256, true},   // 2 KiB
			// Rows of x at half of L1 and past it: 257 of them put A past
			// either type's parameter wherever L1 holds 16 KiB or more
			// (64 rows of 16 KiB were not past f32's 1 MiB on a machine
			// reporting a 32 KiB L1).
			{false, 257, l1 / 8, true},
			{false, 257, l1/8 + 1, false},
			{true, 257, l1 / 16, true},
			{true, 257, l1/16 + 1, false},
		} {
			got := gemvByRow[float32](c.m, c.n)
			if c.f64 {
				got = gemvByRow[float64](c.m, c.n)
			}
			if got != c.want {
				t.Errorf("f64=%v %d×%d: by row %v, want %v", c.f64, c.m, c.n, got, c.want)
			}
		}
	})
	withGEMVTune(tune.PerDType{F32: tune.MaxPieceBytes, F64: tune.MaxPieceBytes}, func() {
		if gemvByRow[float32](1<<20, 1024) || gemvByRow[float64](1<<20, 1024) {
			t.Error("by row with gemv.by_row at its largest")
		}
	})
	withGEMVTune(tune.PerDType{}, func() {
		if !gemvByRow[float32](1, 512) || !gemvByRow[float64](1, 256) {
			t.Error("a 2 KiB row not by row with gemv.by_row at 0")
		}
	})
}

// TestGemvByRow runs A·x one row at a time (gemv.by_row at 0) on rows of 2
// KiB and more, at every level (the AVX-512 one takes the path), with 1..17
// and 33 rows, the tails of the dot kernel, strides, padding and threads.
func TestGemvByRow(t *testing.T) {
	defer splitGemvAlways()()
	rnd := rand.New(rand.NewPCG(15, 16))
	withGEMVTune(tune.PerDType{}, func() {
		i := 0
		for _, lvl := range isa.Levels() {
			for _, n := range []int{512, 513, 527, 1000} {
				for _, m := range []int{1, 2, 3, 5, 7, 8, 9, 16, 17, 33} {
					ab := alphaBetas[i%len(alphaBetas)]
					inc := [][2]int{{1, 1}, {2, 3}, {1, 2}}[i%3]
					th := 1 + i%3
					runGemvCase[float32](t, lvl, false, m, n, ab[0], ab[1], i%3, inc[0], inc[1], th, ab[1] == 0, rnd)
					runGemvCase[float64](t, lvl, false, m, n/2, ab[0], ab[1], (i+1)%3, inc[0], inc[1], th, ab[1] == 0, rnd)
					i++
				}
			}
		}
	})
}

// TestGemvZmmLimit checks Gemv at isa.AVX512 on both sides of tune's
// gemv.zmm: above it the AVX2 loops run, and give their bits, whatever
// zmm.memory (the other memory-bound kernels') is.
func TestGemvZmmLimit(t *testing.T) {
	if gemvImplFor(isa.AVX512) != gemvAVX512 {
		t.Skip("no AVX-512 kernels here")
	}
	rnd := rand.New(rand.NewPCG(13, 14))
	const m, n = 37, 301
	a, x := numtest.New[float32](m*n, rnd).Data, numtest.New[float32](max(m, n), rnd).Data
	defer tune.Save().Restore()
	for _, trans := range []bool{false, true} {
		lenX, lenY := n, m
		if trans {
			lenX, lenY = m, n
		}
		want, got := make([]float32, lenY), make([]float32, lenY)
		Gemv(isa.AVX2, trans, m, n, 1, a, n, x[:lenX], 1, 0, want, 1, 1)
		tunetest.With(func(p *tune.Params) { p.GEMV.ZMM = 4*m*n - 1; p.ZMM.Memory = tune.MaxPieceBytes })
		Gemv(isa.AVX512, trans, m, n, 1, a, n, x[:lenX], 1, 0, got, 1, 1)
		if i := numtest.Differ(got, want); i >= 0 {
			t.Fatalf("trans=%v above the limit: y[%d] = %v at AVX512, %v at AVX2", trans, i, got[i], want[i])
		}
		if trans {
			continue // the axpy loops of either width add in the same order
		}
		// At the limit, the AVX-512 loops (other sums than the AVX2 dot's),
		// even with zmm.memory at 0.
		zmm := make([]float32, lenY)
		tunetest.With(func(p *tune.Params) { p.GEMV.ZMM = tune.MaxPieceBytes; p.ZMM.Memory = tune.MaxPieceBytes })
		Gemv(isa.AVX512, trans, m, n, 1, a, n, x[:lenX], 1, 0, zmm, 1, 1)
		if numtest.Differ(zmm, want) < 0 {
			t.Fatal("the AVX-512 and AVX2 loops gave the same bits; the check below would tell nothing")
		}
		tunetest.With(func(p *tune.Params) { p.GEMV.ZMM = 4 * m * n; p.ZMM.Memory = 0 })
		Gemv(isa.AVX512, trans, m, n, 1, a, n, x[:lenX], 1, 0, got, 1, 1)
		if i := numtest.Differ(got, zmm); i >= 0 {
			t.Fatalf("at the limit, zmm.memory 0: y[%d] = %v, the AVX-512 loops give %v", i, got[i], zmm[i])
		}
	}
}

// TestGemvOneThreadAllocs: a call that runs as one piece allocates nothing
// (num.For's closure escapes to its workers).
func TestGemvOneThreadAllocs(t *testing.T) {
	const n = 64
	a, x, y := make([]float32, n*n), make([]float32, n), make([]float32, n)
	for _, lvl := range isa.Levels() {
		for _, trans := range []bool{false, true} {
			f := func() { Gemv(lvl, trans, n, n, 1, a, n, x, 1, 0, y, 1, 1) }
			if got := testing.AllocsPerRun(20, f); got != 0 {
				t.Errorf("%v trans=%v: %v allocations a call, want 0", lvl, trans, got)
			}
		}
	}
}

// TestGemvParallelPiece checks that gemv.parallel decides the split: a
// 64×64 f32 GEMV (16 KiB of A) on two threads splits (num.For's closure
// allocates) with 8 KiB a piece and runs whole on the caller (no
// allocation) with a piece of one row or column more, at every level and
// either op(A).
func TestGemvParallelPiece(t *testing.T) {
	const n = 64
	a, x, y := make([]float32, n*n), make([]float32, n), make([]float32, n)
	for _, c := range []struct {
		piece int
		split bool
	}{{4 * n * n / 2, true}, {4 * n * (n/2 + 1), false}} {
		restore := tunetest.With(func(p *tune.Params) { p.GEMV.Parallel.F32 = c.piece })
		for _, lvl := range isa.Levels() {
			for _, trans := range []bool{false, true} {
				f := func() { Gemv(lvl, trans, n, n, 1, a, n, x, 1, 0, y, 1, 2) }
				if got := testing.AllocsPerRun(20, f); (got > 0) != c.split {
					t.Errorf("gemv.parallel.f32 = %d, %v trans=%v: %v allocations a call; want a split: %v", c.piece, lvl, trans, got, c.split)
				}
			}
		}
		restore()
	}
}
