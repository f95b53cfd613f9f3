//go:build cgo

package cblas_test

// The CBLAS conformance suite: every library × all transposes × strides
// and leading dimensions larger than minimal × odd sizes × alpha/beta
// cases, against gonum's pure-Go BLAS, with dtype-aware tolerances. Padding
// between rows holds NaN in inputs (a library reading it poisons its
// result) and a sentinel in outputs (a library writing it is caught); C
// holds NaN when beta is 0, which must not be read.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/cgo/cblas"
	"github.com/peakbench/peakbench/native/nativetest"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

var (
	sizes     = []int{0, 1, 2, 3, 7, 17, 33, 65}
	scalars   = []float64{0, 1, -0.5, 2}
	transes   = []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}
	sentinel  = -12345.5
	libraries = cblas.Names()
)

// openLib opens name, or skips the test with the loader's reason, unless
// PEAKBENCH_REQUIRE_LIBS names it.
func openLib(t testing.TB, name string) *cblas.Library {
	t.Helper()
	l, err := cblas.Open(name)
	if err != nil {
		if nativetest.Required(name) {
			t.Fatalf("PEAKBENCH_REQUIRE_LIBS names %s: %v", name, err)
		}
		t.Skipf("%s unavailable: %v", name, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

type float interface{ float32 | float64 }

// impl binds one precision's routines of a BLAS.
type impl[T float] struct {
	gemm func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
	gemv func(tA blas.Transpose, m, n int, alpha T, a []T, lda int, x []T, incX int, beta T, y []T, incY int)
	axpy func(n int, alpha T, x []T, incX int, y []T, incY int)
	dot  func(n int, x []T, incX int, y []T, incY int) T
}

var (
	ref32 = impl[float32]{gonum.Implementation{}.Sgemm, gonum.Implementation{}.Sgemv, gonum.Implementation{}.Saxpy, gonum.Implementation{}.Sdot}
	ref64 = impl[float64]{gonum.Implementation{}.Dgemm, gonum.Implementation{}.Dgemv, gonum.Implementation{}.Daxpy, gonum.Implementation{}.Ddot}
)

func lib32(l *cblas.Library) impl[float32] { return impl[float32]{l.Sgemm, l.Sgemv, l.Saxpy, l.Sdot} }
func lib64(l *cblas.Library) impl[float64] { return impl[float64]{l.Dgemm, l.Dgemv, l.Daxpy, l.Ddot} }

func eps[T float]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return 0x1p-24
	}
	return 0x1p-53
}

// matrix returns a rows×cols matrix with leading dimension ld and the
// minimal length ld·(rows−1)+cols, padding set to pad.
func matrix[T float](rng *rand.Rand, rows, cols, ld int, pad float64, fill func() float64) []T {
	if rows == 0 || ld*(rows-1)+cols == 0 {
		return nil
	}
	a := make([]T, ld*(rows-1)+cols)
	for i := range a {
		if i%ld < cols {
			a[i] = T(fill())
		} else {
			a[i] = T(pad)
		}
	}
	return a
}

// vector returns n elements with increment inc, the gaps set to NaN.
func vector[T float](rng *rand.Rand, n, inc int) []T {
	if n == 0 {
		return nil
	}
	ai := max(inc, -inc)
	v := make([]T, 1+(n-1)*ai)
	for i := range v {
		if i%ai == 0 {
			v[i] = T(2*rng.Float64() - 1)
		} else {
			v[i] = T(math.NaN())
		}
	}
	return v
}

func uniform(rng *rand.Rand) func() float64 { return func() float64 { return 2*rng.Float64() - 1 } }

// near reports whether got matches want within tol·scale (NaN only for NaN).
func near(got, want, scale, tol float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol*scale+math.SmallestNonzeroFloat64
}

type gemmCase struct {
	tA, tB      blas.Transpose
	m, n, k     int
	pad         int
	alpha, beta float64
}

func (c gemmCase) String() string {
	return fmt.Sprintf("gemm tA=%c tB=%c m=%d n=%d k=%d pad=%d alpha=%g beta=%g", c.tA, c.tB, c.m, c.n, c.k, c.pad, c.alpha, c.beta)
}

// gemmCases: each size in every dimension with the others small and odd,
// plus cubes, under every transpose pair; the alpha/beta grid in full on a
// few shapes, a rotating pair elsewhere; leading dimensions minimal or
// padded in turn.
func gemmCases() []gemmCase {
	type mnk struct{ m, n, k int }
	var shapes []mnk
	for _, s := range sizes {
		shapes = append(shapes, mnk{s, s, s}, mnk{s, 3, 7}, mnk{7, s, 3}, mnk{3, 7, s})
	}
	var cases []gemmCase
	i := 0
	for si, sh := range shapes {
		for _, tA := range transes {
			for _, tB := range transes {
				full := si%5 == 0
				for ai, alpha := range scalars {
					for bi, beta := range scalars {
						i++
						if !full && (ai+bi+i)%5 != 0 {
							continue
						}
						cases = append(cases, gemmCase{tA, tB, sh.m, sh.n, sh.k, (i % 2) * 3, alpha, beta})
					}
				}
			}
		}
	}
	return cases
}

func testGemm[T float](t *testing.T, lib, ref impl[T], c gemmCase, rng *rand.Rand) {
	rowA, colA := c.m, c.k
	if c.tA != blas.NoTrans {
		rowA, colA = c.k, c.m
	}
	rowB, colB := c.k, c.n
	if c.tB != blas.NoTrans {
		rowB, colB = c.n, c.k
	}
	lda, ldb, ldc := max(1, colA)+c.pad, max(1, colB)+c.pad, max(1, c.n)+c.pad
	a := matrix[T](rng, rowA, colA, lda, math.NaN(), uniform(rng))
	b := matrix[T](rng, rowB, colB, ldb, math.NaN(), uniform(rng))
	fillC := uniform(rng)
	if c.beta == 0 {
		fillC = func() float64 { return math.NaN() }
	}
	c0 := matrix[T](rng, c.m, c.n, ldc, sentinel, fillC)
	want, got := append([]T(nil), c0...), append([]T(nil), c0...)
	ref.gemm(c.tA, c.tB, c.m, c.n, c.k, T(c.alpha), a, lda, b, ldb, T(c.beta), want, ldc)
	lib.gemm(c.tA, c.tB, c.m, c.n, c.k, T(c.alpha), a, lda, b, ldb, T(c.beta), got, ldc)
	at := func(x []T, ld int, trans bool, i, j int) float64 {
		if trans {
			i, j = j, i
		}
		return float64(x[i*ld+j])
	}
	tol := 2 * float64(c.k+3) * eps[T]()
	for i := 0; i < c.m; i++ {
		for j := 0; j < ldc && i*ldc+j < len(got); j++ {
			idx := i*ldc + j
			if j >= c.n {
				if float64(got[idx]) != sentinel {
					t.Fatalf("%v: wrote C padding (%d,%d): %g", c, i, j, got[idx])
				}
				continue
			}
			scale := 0.0
			for p := 0; p < c.k; p++ {
				scale += math.Abs(at(a, lda, c.tA != blas.NoTrans, i, p) * at(b, ldb, c.tB != blas.NoTrans, p, j))
			}
			scale *= math.Abs(c.alpha)
			if c.beta != 0 {
				scale += math.Abs(c.beta * float64(c0[idx]))
			}
			if !near(float64(got[idx]), float64(want[idx]), scale, tol) {
				t.Fatalf("%v: C(%d,%d) = %g; gonum gives %g (scale %g, tol %g)", c, i, j, got[idx], want[idx], scale, tol)
			}
		}
	}
}

func forEachLib(t *testing.T, f func(t *testing.T, l *cblas.Library)) {
	for _, name := range libraries {
		t.Run(name, func(t *testing.T) { f(t, openLib(t, name)) })
	}
}

func TestGemmConformance(t *testing.T) {
	cases := gemmCases()
	forEachLib(t, func(t *testing.T, l *cblas.Library) {
		rng := rand.New(rand.NewPCG(1, 2))
		l32, l64 := lib32(l), lib64(l)
		for _, c := range cases {
			testGemm(t, l32, ref32, c, rng)
			testGemm(t, l64, ref64, c, rng)
		}
		t.Logf("%d cases × f32, f64", len(cases))
	})
}

type incs struct{ x, y int }

var incCases = []incs{{1, 1}, {2, 3}, {-1, 1}, {1, -2}, {-3, -2}}

func testGemv[T float](t *testing.T, lib, ref impl[T], tA blas.Transpose, m, n, pad int, inc incs, alpha, beta float64, rng *rand.Rand) {
	name := fmt.Sprintf("gemv tA=%c m=%d n=%d pad=%d incX=%d incY=%d alpha=%g beta=%g", tA, m, n, pad, inc.x, inc.y, alpha, beta)
	lda := max(1, n) + pad
	a := matrix[T](rng, m, n, lda, math.NaN(), uniform(rng))
	nx, ny := n, m
	if tA != blas.NoTrans {
		nx, ny = m, n
	}
	x := vector[T](rng, nx, inc.x)
	y0 := vector[T](rng, ny, inc.y)
	if beta == 0 {
		for i := 0; i < ny; i++ {
			y0[i*max(inc.y, -inc.y)] = T(math.NaN())
		}
	}
	want, got := append([]T(nil), y0...), append([]T(nil), y0...)
	ref.gemv(tA, m, n, T(alpha), a, lda, x, inc.x, T(beta), want, inc.y)
	lib.gemv(tA, m, n, T(alpha), a, lda, x, inc.x, T(beta), got, inc.y)
	tol := 2 * float64(max(m, n)+3) * eps[T]()
	for i := range got {
		// Inputs lie in [-1, 1): |alpha|·Σ|a||x| + |beta||y| is at most this.
		scale := math.Abs(alpha)*float64(max(m, n)) + math.Abs(beta)
		if !near(float64(got[i]), float64(want[i]), scale, tol) {
			t.Fatalf("%s: y[%d] = %g; gonum gives %g", name, i, got[i], want[i])
		}
	}
}

func TestGemvConformance(t *testing.T) {
	forEachLib(t, func(t *testing.T, l *cblas.Library) {
		rng := rand.New(rand.NewPCG(3, 4))
		l32, l64 := lib32(l), lib64(l)
		i := 0
		for _, m := range sizes {
			for _, n := range sizes {
				for _, tA := range transes {
					for ai, alpha := range scalars {
						for bi, beta := range scalars {
							i++
							if (ai+bi+i)%3 != 0 {
								continue
							}
							inc := incCases[i%len(incCases)]
							testGemv(t, l32, ref32, tA, m, n, i%2*2, inc, alpha, beta, rng)
							testGemv(t, l64, ref64, tA, m, n, i%2*2, inc, alpha, beta, rng)
						}
					}
				}
			}
		}
	})
}

func testLevel1[T float](t *testing.T, lib, ref impl[T], n int, inc incs, alpha float64, rng *rand.Rand) {
	x := vector[T](rng, n, inc.x)
	y := vector[T](rng, n, inc.y)
	tol := 2 * float64(n+3) * eps[T]()
	gd, wd := lib.dot(n, x, inc.x, y, inc.y), ref.dot(n, x, inc.x, y, inc.y)
	if !near(float64(gd), float64(wd), float64(n), tol) {
		t.Fatalf("dot n=%d incX=%d incY=%d = %g; gonum gives %g", n, inc.x, inc.y, gd, wd)
	}
	want, got := append([]T(nil), y...), append([]T(nil), y...)
	ref.axpy(n, T(alpha), x, inc.x, want, inc.y)
	lib.axpy(n, T(alpha), x, inc.x, got, inc.y)
	for i := range got {
		if !near(float64(got[i]), float64(want[i]), math.Abs(alpha)+1, 4*eps[T]()) {
			t.Fatalf("axpy n=%d incX=%d incY=%d alpha=%g: y[%d] = %g; gonum gives %g", n, inc.x, inc.y, alpha, i, got[i], want[i])
		}
	}
}

func TestLevel1Conformance(t *testing.T) {
	forEachLib(t, func(t *testing.T, l *cblas.Library) {
		rng := rand.New(rand.NewPCG(5, 6))
		l32, l64 := lib32(l), lib64(l)
		for _, n := range append(sizes, 1000, 4099) {
			for _, inc := range incCases {
				for _, alpha := range scalars {
					testLevel1(t, l32, ref32, n, inc, alpha, rng)
					testLevel1(t, l64, ref64, n, inc, alpha, rng)
				}
			}
		}
	})
}

// TestGonumBridge runs the Float64 and Float32 implementations' extras
// (scal, nrm2, asum, iamax, copy, swap, trsm) against gonum.
func TestGonumBridge(t *testing.T) {
	forEachLib(t, func(t *testing.T, l *cblas.Library) {
		if !l.HasExtras() {
			t.Logf("%s lacks some level-1/3 extras: the bridge falls back to gonum", l.Name())
		}
		f64, f32 := l.Float64(), l.Float32()
		var g gonum.Implementation
		rng := rand.New(rand.NewPCG(7, 8))
		for _, n := range []int{0, 1, 2, 7, 33, 65} {
			for _, inc := range []int{1, 3, -2} {
				x := vector[float64](rng, n, max(inc, -inc))
				if got, want := f64.Dnrm2(n, x, inc), g.Dnrm2(n, x, inc); !near(got, want, want, 1e-14) {
					t.Errorf("Dnrm2(%d, inc %d) = %g; want %g", n, inc, got, want)
				}
				if got, want := f64.Dasum(n, x, inc), g.Dasum(n, x, inc); !near(got, want, want, 1e-14) {
					t.Errorf("Dasum(%d, inc %d) = %g; want %g", n, inc, got, want)
				}
				if got, want := f64.Idamax(n, x, inc), g.Idamax(n, x, inc); got != want {
					t.Errorf("Idamax(%d, inc %d) = %d; want %d", n, inc, got, want)
				}
				xs := make([]float32, len(x))
				for i, v := range x {
					xs[i] = float32(v)
				}
				if got, want := f32.Snrm2(n, xs, inc), g.Snrm2(n, xs, inc); !near(float64(got), float64(want), float64(want), 1e-5) {
					t.Errorf("Snrm2(%d, inc %d) = %g; want %g", n, inc, got, want)
				}
				if got, want := f32.Isamax(n, xs, inc), g.Isamax(n, xs, inc); got != want {
					t.Errorf("Isamax(%d, inc %d) = %d; want %d", n, inc, got, want)
				}
				a, b := append([]float64(nil), x...), append([]float64(nil), x...)
				f64.Dscal(n, -0.5, a, inc)
				g.Dscal(n, -0.5, b, inc)
				for i := range a {
					if !near(a[i], b[i], 1, 0) {
						t.Fatalf("Dscal(%d, inc %d): [%d] = %g; want %g", n, inc, i, a[i], b[i])
					}
				}
				y := vector[float64](rng, n, 2)
				y1, y2 := append([]float64(nil), y...), append([]float64(nil), y...)
				x1, x2 := append([]float64(nil), x...), append([]float64(nil), x...)
				f64.Dswap(n, x1, inc, y1, -2)
				g.Dswap(n, x2, inc, y2, -2)
				f64.Dcopy(n, y1, -2, x1, inc)
				g.Dcopy(n, y2, -2, x2, inc)
				for i := range x1 {
					if !near(x1[i], x2[i], 1, 0) {
						t.Fatalf("Dswap/Dcopy(%d, inc %d): x[%d] = %g; want %g", n, inc, i, x1[i], x2[i])
					}
				}
			}
		}
		// trsm: a well-conditioned triangular A (unit-ish diagonal).
		for _, side := range []blas.Side{blas.Left, blas.Right} {
			for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
				for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
					for _, d := range []blas.Diag{blas.NonUnit, blas.Unit} {
						m, n := 7, 5
						k := m
						if side == blas.Right {
							k = n
						}
						lda := k + 2
						a := matrix[float64](rng, k, k, lda, math.NaN(), func() float64 { return 0.25 * (2*rng.Float64() - 1) })
						for i := 0; i < k; i++ {
							a[i*lda+i] = 2 + rng.Float64()
						}
						ldb := n + 1
						b := matrix[float64](rng, m, n, ldb, sentinel, uniform(rng))
						b1, b2 := append([]float64(nil), b...), append([]float64(nil), b...)
						f64.Dtrsm(side, ul, tA, d, m, n, 1.5, a, lda, b1, ldb)
						g.Dtrsm(side, ul, tA, d, m, n, 1.5, a, lda, b2, ldb)
						for i := range b1 {
							if !near(b1[i], b2[i], 1, 1e-12) {
								t.Fatalf("Dtrsm(%v %v %v %v): b[%d] = %g; want %g", side, ul, tA, d, i, b1[i], b2[i])
							}
						}
						a32 := make([]float32, len(a))
						for i, v := range a {
							a32[i] = float32(v)
						}
						s1, s2 := make([]float32, len(b)), make([]float32, len(b))
						for i, v := range b {
							s1[i], s2[i] = float32(v), float32(v)
						}
						f32.Strsm(side, ul, tA, d, m, n, 1.5, a32, lda, s1, ldb)
						g.Strsm(side, ul, tA, d, m, n, 1.5, a32, lda, s2, ldb)
						for i := range s1 {
							if !near(float64(s1[i]), float64(s2[i]), 1, 1e-4) {
								t.Fatalf("Strsm(%v %v %v %v): b[%d] = %g; want %g", side, ul, tA, d, i, s1[i], s2[i])
							}
						}
					}
				}
			}
		}
	})
}
