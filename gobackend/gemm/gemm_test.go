package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
	"github.com/peakbench/peakbench/gobackend/tune/tunetest"
)

// The tests follow gonum's internal/asm style: every buffer has NaN guards
// before and after it, every result is compared with a float64 reference
// within a dtype-aware bound, inputs must come back unchanged.

type gemmCase struct {
	lvl            isa.Level
	transA, transB bool
	m, n, k        int
	alpha, beta    float64
	padA, padB     int // extra leading-dimension padding
	padC           int
	threads        int
	nanC           bool // fill C with NaN (only meaningful with beta == 0)
}

func (tc gemmCase) String() string {
	return fmt.Sprintf("%v tA=%v tB=%v m=%d n=%d k=%d alpha=%v beta=%v pad=%d,%d,%d threads=%d nanC=%v",
		Kernel[float64](tc.lvl), tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.beta, tc.padA, tc.padB, tc.padC, tc.threads, tc.nanC)
}

func runGemmCase[T Float](t *testing.T, tc gemmCase, rnd *rand.Rand) {
	t.Helper()
	m, n, k := tc.m, tc.n, tc.k
	rowsA, colsA := m, k
	if tc.transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if tc.transB {
		rowsB, colsB = n, k
	}
	lda, ldb, ldc := max(1, colsA)+tc.padA, max(1, colsB)+tc.padB, max(1, n)+tc.padC
	a := numtest.New[T](rowsA*lda, rnd)
	b := numtest.New[T](rowsB*ldb, rnd)
	c := numtest.New[T](m*ldc, rnd)
	if tc.nanC {
		for i := range c.Data {
			c.Data[i] = T(math.NaN())
		}
	}
	a0, b0, c0 := a.Clone(), b.Clone(), c.Clone()

	Gemm(tc.lvl, tc.transA, tc.transB, m, n, k, T(tc.alpha), a.Data, lda, b.Data, ldb, T(tc.beta), c.Data, ldc, tc.threads)

	a.CheckGuards(t, "a")
	b.CheckGuards(t, "b")
	c.CheckGuards(t, "c")
	if i := numtest.Differ(a.Full, a0.Full); i >= 0 {
		t.Fatalf("%v: a modified at %d", tc, i)
	}
	if i := numtest.Differ(b.Full, b0.Full); i >= 0 {
		t.Fatalf("%v: b modified at %d", tc, i)
	}
	opA := func(i, p int) float64 {
		if tc.transA {
			return float64(a.Data[p*lda+i])
		}
		return float64(a.Data[i*lda+p])
	}
	opB := func(p, j int) float64 {
		if tc.transB {
			return float64(b.Data[j*ldb+p])
		}
		return float64(b.Data[p*ldb+j])
	}
	eps := numtest.Eps[T]()
	for i := 0; i < m; i++ {
		for j := 0; j < ldc; j++ {
			got := float64(c.Data[i*ldc+j])
			old := float64(c0.Data[i*ldc+j])
			if j >= n { // padding between rows is not C's
				if numtest.Differ([]T{T(got)}, []T{T(old)}) >= 0 {
					t.Fatalf("%v: padding c[%d][%d] changed from %v to %v", tc, i, j, old, got)
				}
				continue
			}
			var want, mag float64
			if tc.alpha != 0 {
				for p := 0; p < k; p++ {
					want += opA(i, p) * opB(p, j)
					mag += math.Abs(opA(i, p) * opB(p, j))
				}
			}
			want *= tc.alpha
			mag *= math.Abs(tc.alpha)
			if tc.beta != 0 {
				want += tc.beta * old
				mag += math.Abs(tc.beta * old)
			}
			// Each of k products and adds rounds once, then alpha and beta.
			tol := float64(k+4)*eps*mag + 1e-300
			if math.IsNaN(got) || math.Abs(got-want) > tol {
				t.Fatalf("%v: c[%d][%d] = %v, want %v (tol %g)", tc, i, j, got, want, tol)
			}
		}
	}
}

// withBlocks runs f with the loop-nest block sizes and the parallel
// threshold (the low-precision GEMM's and tune.GEMM.Parallel) set as given,
// restoring them afterwards.
func withBlocks(kc, mc, nc, minFlops int, f func()) {
	okc, omc, onc, omf := blockKC, blockMC, blockNC, minFlopsPerThread
	blockKC, blockMC, blockNC, minFlopsPerThread = kc, mc, nc, minFlops
	defer func() { blockKC, blockMC, blockNC, minFlopsPerThread = okc, omc, onc, omf }()
	withGEMMTune(func(g *tune.GEMM) { g.Parallel = tune.PerDType{F32: minFlops, F64: minFlops} }, f)
}

// withGEMMTune runs f with the GEMM's tune parameters changed by set.
func withGEMMTune(set func(*tune.GEMM), f func()) {
	defer tune.Save().Restore()
	p := *tune.Current()
	set(&p.GEMM)
	tune.Apply(p, "test")
	f()
}

// bothPaths runs f with every product packed, with each micro-kernel
// shape (tune.GEMM.Shape), then with every product that can (no
// transposes) read in place (direct.go), in either loop order
// (directOrder: rows outer, columns outer).
func bothPaths(f func()) {
	for _, shape := range []int{tune.ShapeTall, tune.ShapeWide} {
		withGEMMTune(func(g *tune.GEMM) {
			g.Direct = tune.PerDType{}
			g.Shape = tune.PerDType{F32: shape, F64: shape}
		}, f)
	}
	defer func(o int) { directOrder = o }(directOrder)
	for _, order := range []int{1, 2} {
		directOrder = order
		withGEMMTune(func(g *tune.GEMM) { g.Direct = tune.PerDType{F32: tune.MaxPieceBytes, F64: tune.MaxPieceBytes} }, f)
	}
}

// raceEnabled is set under -race (race_test.go) to test fewer shapes.
var raceEnabled bool

// short reports whether to test the reduced set of shapes.
func short() bool { return testing.Short() || raceEnabled }

var (
	dims       = []int{0, 1, 2, 3, 5, 7, 17, 33, 65, 130}
	alphaBetas = [][2]float64{{1, 0}, {1, 1}, {-0.5, 2}, {2, -0.5}, {0, 1}, {0, 0}, {0, -0.5}, {-0.5, 0}, {2, 1}, {1, -0.5}}
	threadSet  = []int{1, 2, 3, 7}
)

// gemmCases samples the shape space: every (m, n, k) from dims when not
// short, all four transposes each, with alpha, beta, padding and threads
// rotating so that every combination of them is met across shapes.
func gemmCases(short bool) []gemmCase {
	var cases []gemmCase
	i := 0
	for _, m := range dims {
		for _, n := range dims {
			for _, k := range dims {
				big := 0
				for _, d := range []int{m, n, k} {
					if d >= 65 {
						big++
					}
				}
				// Cap the reference cost: at most one dimension ≥ 65
				// (two when not short, on every third shape).
				if big > 2 || (big == 2 && (short || i%3 != 0)) {
					i++
					continue
				}
				if short && i%4 != 0 {
					i++
					continue
				}
				for tr := 0; tr < 4; tr++ {
					ab := alphaBetas[(i+tr)%len(alphaBetas)]
					cases = append(cases, gemmCase{
						transA: tr&1 != 0, transB: tr&2 != 0,
						m: m, n: n, k: k,
						alpha: ab[0], beta: ab[1],
						padA: (i + tr) % 3, padB: (i + 2*tr) % 4, padC: (i + tr) % 2 * 3,
						threads: threadSet[(i+tr)%len(threadSet)],
						nanC:    ab[1] == 0 && (i+tr)%2 == 0,
					})
				}
				i++
			}
		}
	}
	return cases
}

func testGemmShapes[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	cases := gemmCases(short())
	// Default blocks with the parallel threshold off, then tiny blocks so
	// every loop of the nest takes several trips and leaves a remainder.
	for _, lvl := range isa.Levels() {
		for _, blocks := range [][3]int{{0, 0, 0}, {7, 8, 10}, {16, 3, 3}} {
			withBlocks(blocks[0], blocks[1], blocks[2], 1, func() {
				bothPaths(func() {
					for _, tc := range cases {
						tc.lvl = lvl
						runGemmCase[T](t, tc, rnd)
					}
				})
			})
		}
	}
}

// TestGemmNarrow checks the products narrower than the AVX-512 kernel's
// panel whose n is below the narrow kernel's panel width or a multiple of
// it (microKernel.narrow: 8 for f64, 16 for f32), which run the AVX-512
// kernel one vector wide at AVX512, on every path, transposes and thread
// count, with every row remainder of its 14 rows and depths past a kc
// block.
func TestGemmNarrow(t *testing.T) {
	if _, asm := asmNarrowKernel[float32](isa.AVX512); asm && slices.Contains(isa.Levels(), isa.AVX512) {
		if got := kernelRef[float32](isa.AVX512).narrow; got == nil || got.name != "sgemm14x16AVX512" {
			t.Errorf("f32 narrow kernel at AVX512: %v", got)
		}
		if got := kernelRef[float64](isa.AVX512).narrow; got == nil || got.name != "dgemm14x8AVX512" {
			t.Errorf("f64 narrow kernel at AVX512: %v", got)
		}
	}
	rnd := rand.New(rand.NewPCG(9, 10))
	i := 0
	for _, lvl := range isa.Levels() {
		for _, n := range []int{1, 5, 8, 12, 16} {
			for _, mk := range [][2]int{{1, 1}, {5, 17}, {16, 16}, {33, 7}, {65, 64}, {14, 3}, {27, 600}, {155, 40}} {
				for tr := range 4 {
					ab := alphaBetas[i%len(alphaBetas)]
					tc := gemmCase{lvl: lvl, transA: tr&1 != 0, transB: tr&2 != 0, m: mk[0], n: n, k: mk[1],
						alpha: ab[0], beta: ab[1], padA: i % 3, padB: i % 4, padC: i % 2 * 3, threads: threadSet[i%len(threadSet)]}
					i++
					bothPaths(func() {
						runGemmCase[float32](t, tc, rnd)
						runGemmCase[float64](t, tc, rnd)
					})
				}
			}
		}
	}
}

func TestGemmShapesFloat64(t *testing.T) { testGemmShapes[float64](t) }
func TestGemmShapesFloat32(t *testing.T) { testGemmShapes[float32](t) }

// TestGemmAlphaBeta takes every alpha×beta pair, transposes and thread count
// on a few shapes, with C full of NaN whenever beta == 0.
func TestGemmAlphaBeta(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	vals := []float64{0, 1, -0.5, 2}
	withBlocks(8, 6, 9, 1, func() { bothPaths(func() { alphaBetaCases(t, rnd, vals) }) })
}

func alphaBetaCases(t *testing.T, rnd *rand.Rand, vals []float64) {
	{
		for _, s := range [][3]int{{5, 7, 3}, {17, 33, 20}, {4, 4, 0}} {
			for _, alpha := range vals {
				for _, beta := range vals {
					for tr := 0; tr < 4; tr++ {
						for _, th := range threadSet {
							for _, lvl := range isa.Levels() {
								tc := gemmCase{lvl: lvl, transA: tr&1 != 0, transB: tr&2 != 0, m: s[0], n: s[1], k: s[2],
									alpha: alpha, beta: beta, padA: 1, padB: 2, padC: 1, threads: th, nanC: beta == 0}
								runGemmCase[float64](t, tc, rnd)
								runGemmCase[float32](t, tc, rnd)
							}
						}
					}
				}
			}
		}
	}
}

// TestGemmAlphaZeroSkipsAB: with alpha == 0 (or k == 0) A and B are not
// read, so NaN in them must not reach C, as BLAS specifies.
func TestGemmAlphaZeroSkipsAB(t *testing.T) {
	for _, lvl := range isa.Levels() {
		testAlphaZero(t, lvl)
	}
}

func testAlphaZero(t *testing.T, lvl isa.Level) {
	nan := math.NaN()
	a := []float64{nan, nan, nan, nan}
	c := []float64{1, 2, 3, 4}
	Gemm(lvl, false, true, 2, 2, 2, 0, a, 2, a, 2, -0.5, c, 2, 2)
	if want := []float64{-0.5, -1, -1.5, -2}; numtest.Differ(c, want) >= 0 {
		t.Errorf("alpha=0: C = %v, want %v", c, want)
	}
	c = []float64{nan, 2, 3, nan}
	Gemm(lvl, true, false, 2, 2, 2, 0, a, 2, a, 2, 0, c, 2, 1)
	if want := []float64{0, 0, 0, 0}; numtest.Differ(c, want) >= 0 {
		t.Errorf("alpha=0 beta=0: C = %v, want zeros", c)
	}
	y := []float32{float32(nan), 1}
	Gemv(lvl, false, 2, 2, 0, []float32{float32(nan), 0, 0, 0}, 2, []float32{1, 1}, 1, 0, y, 1, 1)
	if want := []float32{0, 0}; numtest.Differ(y, want) >= 0 {
		t.Errorf("Gemv alpha=0 beta=0: y = %v, want zeros", y)
	}
}

// TestGemmLarge runs sizes past the default blocks on the default settings
// (k past 512, the AVX-512 kernels' kc; m past their mc).
func TestGemmLarge(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	sizes := [][3]int{{300, 257, 520}, {97, 2100, 31}}
	if short() {
		sizes = [][3]int{{130, 101, 530}}
	}
	// Both extremes of the tune parameters: packed and on 2 threads, then
	// unpacked (no transposes) on 1.
	tunetest.WithExtremes(func() {
		for _, lvl := range isa.Levels() {
			for _, s := range sizes {
				for tr := 0; tr < 4; tr++ {
					tc := gemmCase{lvl: lvl, transA: tr&1 != 0, transB: tr&2 != 0, m: s[0], n: s[1], k: s[2],
						alpha: -0.5, beta: 2, padA: 3, padB: 1, padC: 2, threads: 2}
					runGemmCase[float32](t, tc, rnd)
					if tr == 0 {
						runGemmCase[float64](t, tc, rnd)
					}
				}
			}
		}
	})
}

// TestGemmThreadsDeterministic checks that the result does not depend on
// the thread count: every element is computed by one goroutine in the same
// order whatever the split.
func TestGemmThreadsDeterministic(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	const m, n, k = 70, 66, 300
	a := numtest.New[float32](m*k, rnd).Data
	b := numtest.New[float32](k*n, rnd).Data
	for _, lvl := range isa.Levels() {
		// B stored n×k (transposed: always packed), then k×n (unpacked
		// under bothPaths' direct settings).
		for _, transB := range []bool{true, false} {
			ldb := n
			if transB {
				ldb = k
			}
			withBlocks(0, 0, 0, 1, func() {
				bothPaths(func() {
					var ref []float32
					for _, th := range threadSet {
						c := make([]float32, m*n)
						Gemm(lvl, false, transB, m, n, k, 1, a, k, b, ldb, 0, c, n, th)
						if ref == nil {
							ref = c
							continue
						}
						if i := numtest.Differ(c, ref); i >= 0 {
							t.Fatalf("%v transB=%v threads=%d: c[%d] = %v, with 1 thread %v", lvl, transB, th, i, c[i], ref[i])
						}
					}
				})
			})
		}
	}
}

func expectPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("no panic, want %q", want)
		}
		if s, _ := r.(string); s != want {
			t.Fatalf("panic %v, want %q", r, want)
		}
	}()
	f()
}

func TestGemmPanics(t *testing.T) {
	s := make([]float64, 100)
	for _, tc := range []struct {
		want string
		f    func()
	}{
		{"gemm: m < 0", func() { Gemm(isa.Best, false, false, -1, 2, 2, 1, s, 2, s, 2, 0, s, 2, 1) }},
		{"gemm: n < 0", func() { Gemm(isa.Best, false, false, 2, -1, 2, 1, s, 2, s, 2, 0, s, 2, 1) }},
		{"gemm: k < 0", func() { Gemm(isa.Best, false, false, 2, 2, -1, 1, s, 2, s, 2, 0, s, 2, 1) }},
		{"gemm: threads < 1", func() { Gemm(isa.Best, false, false, 2, 2, 2, 1, s, 2, s, 2, 0, s, 2, 0) }},
		{"gemm: bad lda", func() { Gemm(isa.Best, false, false, 2, 2, 3, 1, s, 2, s, 2, 0, s, 2, 1) }},
		{"gemm: bad lda", func() { Gemm(isa.Best, true, false, 3, 2, 2, 1, s, 2, s, 2, 0, s, 2, 1) }},
		{"gemm: bad ldb", func() { Gemm(isa.Best, false, false, 2, 3, 2, 1, s, 2, s, 2, 0, s, 3, 1) }},
		{"gemm: bad ldb", func() { Gemm(isa.Best, false, true, 2, 2, 3, 1, s, 3, s, 2, 0, s, 2, 1) }},
		{"gemm: bad ldc", func() { Gemm(isa.Best, false, false, 2, 3, 2, 1, s, 2, s, 3, 0, s, 2, 1) }},
		{"gemm: bad lda", func() { Gemm(isa.Best, false, false, 2, 2, 0, 1, s, 0, s, 2, 0, s, 2, 1) }},
		{"gemm: short a", func() { Gemm(isa.Best, false, false, 11, 2, 10, 1, s, 10, s, 2, 0, s, 2, 1) }},
		{"gemm: short b", func() { Gemm(isa.Best, false, false, 2, 10, 11, 1, s, 11, s, 10, 0, s, 10, 1) }},
		{"gemm: short c", func() { Gemm(isa.Best, false, false, 11, 10, 2, 1, s, 2, s, 10, 0, s, 10, 1) }},
		{"gemm: short c", func() { Gemm(isa.Best, false, false, 2, 2, 2, 1, s, 2, s, 2, 0, s[:3], 2, 1) }},
		{"gemm: m < 0", func() { Gemv(isa.Best, false, -1, 2, 1, s, 2, s, 1, 0, s, 1, 1) }},
		{"gemm: n < 0", func() { Gemv(isa.Best, false, 2, -1, 1, s, 2, s, 1, 0, s, 1, 1) }},
		{"gemm: bad lda", func() { Gemv(isa.Best, false, 2, 3, 1, s, 2, s, 1, 0, s, 1, 1) }},
		{"gemm: incX <= 0", func() { Gemv(isa.Best, false, 2, 2, 1, s, 2, s, 0, 0, s, 1, 1) }},
		{"gemm: incY <= 0", func() { Gemv(isa.Best, false, 2, 2, 1, s, 2, s, 1, 0, s, -1, 1) }},
		{"gemm: threads < 1", func() { Gemv(isa.Best, false, 2, 2, 1, s, 2, s, 1, 0, s, 1, 0) }},
		{"gemm: short a", func() { Gemv(isa.Best, false, 11, 10, 1, s, 10, s, 1, 0, s, 1, 1) }},
		{"gemm: short x", func() { Gemv(isa.Best, false, 2, 10, 1, s, 10, s[:9], 1, 0, s, 1, 1) }},
		{"gemm: short x", func() { Gemv(isa.Best, true, 3, 2, 1, s, 2, s[:5], 3, 0, s, 1, 1) }},
		{"gemm: short y", func() { Gemv(isa.Best, false, 3, 2, 1, s, 2, s, 1, 0, s[:6], 3, 1) }},
		{"gemm: short y", func() { Gemv(isa.Best, true, 2, 3, 1, s, 3, s, 1, 0, s[:2], 1, 1) }},
	} {
		expectPanic(t, tc.want, tc.f)
	}
	// Zero sizes need nothing from the slices.
	Gemm[float64](isa.Best, false, false, 0, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1, 1)
	Gemm[float32](isa.Best, true, true, 0, 3, 0, 1, nil, 1, nil, 1, 0, nil, 3, 1)
	Gemv[float64](isa.Best, false, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1, 1)
}

// TestPackedDepth runs packed products at a depth the tune parameter
// gemm.kc sets (37: several kc slices, none a multiple of the kernels'
// unrolling), at every level, with both betas' paths and threads, and
// checks that the results name it and that 0 keeps the kernel's own.
func TestPackedDepth(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 22))
	for _, lvl := range isa.Levels() {
		if got, want := PackedDepth[float64](lvl), nestKernel(kernelRef[float64](lvl)).kc; got != want {
			t.Errorf("%v: PackedDepth at gemm.kc 0 = %d, want the kernel's %d", lvl, got, want)
		}
	}
	withGEMMTune(func(g *tune.GEMM) {
		g.Direct = tune.PerDType{} // every product packed
		g.KC = tune.PerDType{F32: 37, F64: 37}
	}, func() {
		for _, lvl := range isa.Levels() {
			if got := PackedDepth[float32](lvl); got != 37 {
				t.Errorf("%v: PackedDepth = %d, want 37", lvl, got)
			}
			if s := TunedDepth[float64](lvl); !strings.Contains(s, "kc = 37") {
				t.Errorf("%v: TunedDepth = %q", lvl, s)
			}
			for i, th := range []int{1, 3} {
				ab := alphaBetas[i+1]
				runGemmCase[float32](t, gemmCase{lvl: lvl, m: 65, n: 130, k: 333, alpha: ab[0], beta: ab[1], padA: 1, threads: th}, rnd)
				runGemmCase[float64](t, gemmCase{lvl: lvl, transA: i == 1, m: 130, n: 65, k: 333, alpha: ab[0], beta: ab[1], padB: 2, threads: th}, rnd)
			}
		}
	})
}
