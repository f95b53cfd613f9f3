package gemm

import (
	"strconv"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// gemvPiece is the least number of elements of A a goroutine of Gemv gets,
// from the tune parameter gemv.parallel (bytes, not elements, as the
// stream's time is): GEMV streams A once, so below it the handoff to
// another thread costs more than it saves.
func gemvPiece[T Float]() int {
	return max(1, tune.PerDTypeOf(tune.Current().GEMV.Parallel, num.Size[T]())/num.Size[T]())
}

// Gemv computes y = alpha·op(A)·x + beta·y for row-major A, m×n with
// lda ≥ n. op(A) is A (x has n elements, y m) or, when transA, Aᵀ (x has m
// elements, y n). incX and incY are the strides of x and y, both > 0. At most
// threads goroutines work on it (threads ≥ 1).
//
// As in reference BLAS: m == 0 or n == 0 does nothing; with beta == 0, y is
// written without being read; with alpha == 0, A and x are not read. y must
// not overlap A or x.
func Gemv[T Float](lvl isa.Level, transA bool, m, n int, alpha T, a []T, lda int, x []T, incX int, beta T, y []T, incY int, threads int) {
	checkGemv(transA, m, n, len(a), lda, len(x), incX, len(y), incY, threads)
	if m == 0 || n == 0 {
		return
	}
	lenX, lenY := n, m
	if transA {
		lenX, lenY = m, n
	}
	if alpha == 0 {
		for i := 0; i < lenY; i++ {
			if beta == 0 {
				y[i*incY] = 0
			} else {
				y[i*incY] *= beta
			}
		}
		return
	}
	// A strided x is gathered once so the inner loops run with unit stride.
	if incX != 1 {
		buf := getBuf[T](lenX)
		defer putBuf(buf)
		xs := *buf
		for i := range xs {
			xs[i] = x[i*incX]
		}
		x = xs
	}
	x = x[:lenX]
	// The AVX-512 kernels up to tune's gemv.zmm bytes of A.
	k := gemvImplFor(tune.Current().GEMVLevel(lvl, m*n*num.Size[T]()))
	if !transA {
		// Rows are independent dot products: split them over goroutines.
		minRows := max(1, gemvPiece[T]()/n)
		byRow := k == gemvAVX512 && gemvByRow[T](m, n)
		// One piece: no closure, which escapes to num.For's workers and
		// so would cost an allocation a call.
		if num.Single(m, threads, minRows) {
			gemvRowRange(k, byRow, 0, m, n, alpha, a, lda, x, beta, y, incY)
			return
		}
		num.For(m, threads, 8, minRows, func(_, lo, hi int) {
			gemvRowRange(k, byRow, lo, hi, n, alpha, a, lda, x, beta, y, incY)
		})
		return
	}
	// y = Aᵀx sums scaled rows of A: split the columns, each goroutine
	// sweeping all rows over its own column range.
	minCols := max(1, gemvPiece[T]()/m)
	if num.Single(n, threads, minCols) {
		gemvCols(k, 0, n, m, alpha, a, lda, x, beta, y, incY)
		return
	}
	num.For(n, threads, 64, minCols, func(_, lo, hi int) {
		gemvCols(k, lo, hi, m, alpha, a, lda, x, beta, y, incY)
	})
}

// gemvRowRange sets rows [lo, hi) of y = alpha·A·x + beta·y with k's kernel
// (byRow: the AVX-512 one that reads A a row at a time).
func gemvRowRange[T Float](k gemvImpl, byRow bool, lo, hi, n int, alpha T, a []T, lda int, x []T, beta T, y []T, incY int) {
	switch {
	case byRow:
		gemvRowsAsm(k, lo, hi, n, alpha, a, lda, x, beta, y, incY)
	case k == gemvAVX512:
		gemvRows8Asm(lo, hi, n, alpha, a, lda, x, beta, y, incY)
	case k == gemvAVX2:
		gemvRowsAsm(k, lo, hi, n, alpha, a, lda, x, beta, y, incY)
	default:
		gemvRows(lo, hi, n, alpha, a, lda, x, beta, y, incY)
	}
}

// gemvImpl is a set of GEMV inner loops.
type gemvImpl uint8

const (
	gemvGeneric gemvImpl = iota
	gemvAVX2             // a dot product or an axpy per row of A
	gemvAVX512           // the same over eight (dot) or four (axpy) rows of A at a time
)

// gemvImplFor returns the inner loops lvl runs (clamped to what the CPU
// runs).
func gemvImplFor(lvl isa.Level) gemvImpl {
	switch l := lvl.Clamp(); {
	case !haveGemvAsm || l < isa.AVX2:
		return gemvGeneric
	case l >= isa.AVX512:
		return gemvAVX512
	}
	return gemvAVX2
}

// GemvKernel names the inner loops Gemv runs at level lvl: "generic",
// "AVX2 dot and axpy", or at AVX512 the many-row kernels, where A·x takes
// one row at a time (gemvByRow), and the size above which the AVX2 ones run
// (isa.ZMMKernel).
func GemvKernel(lvl isa.Level) string {
	switch gemvImplFor(lvl) {
	case gemvAVX2:
		return "AVX2 dot and axpy"
	case gemvAVX512:
		return "AVX512 dot of 8 rows" + gemvByRowText() + " and axpy of 4, " + isa.ZMMKernel(tune.Current().GEMV.ZMM)
	}
	return "generic"
}

// gemvByRowText is where A·x takes one row at a time, from the tune
// parameter gemv.by_row: " (of 1 above 1024 KiB of A, rows of 2–24 KiB)";
// where f32's and f64's differ, each in turn: " (of 1 above 1024 KiB of A
// in f32, never in f64; rows of 2–24 KiB)"; "" where it never does.
func gemvByRowText() string {
	p := tune.Current().GEMV.ByRow
	if p.F32 >= tune.MaxPieceBytes && p.F64 >= tune.MaxPieceBytes {
		return ""
	}
	when := func(b int) string {
		switch {
		case b >= tune.MaxPieceBytes:
			return "never"
		case b <= 0:
			return "at any size"
		}
		return "above " + strconv.Itoa(b>>10) + " KiB of A"
	}
	rows := "rows of " + strconv.Itoa(gemvByRowMinBytes>>10) + "–" + strconv.Itoa(isa.Caches().L1/2>>10) + " KiB"
	if p.F32 == p.F64 {
		return " (of 1 " + when(p.F32) + ", " + rows + ")"
	}
	return " (of 1 " + when(p.F32) + " in f32, " + when(p.F64) + " in f64; " + rows + ")"
}

// gemvRowsAsm is gemvRows with k's assembly dot product, one row at a time
// (x stays in L1 or L2 from row to row).
func gemvRowsAsm[T Float](k gemvImpl, lo, hi, n int, alpha T, a []T, lda int, x []T, beta T, y []T, incY int) {
	for i := lo; i < hi; i++ {
		setY(y, i*incY, alpha*T(dotAsm(k, a[i*lda:i*lda+n], x)), beta)
	}
}

// Row bounds of the AVX-512 A·x one row at a time (gemvByRow), in bytes of
// a row: each row is a call of the dot kernel, whose set-up and final sums
// a short row does not repay, and x is read again for every row, from L1
// only while it takes at most half of it. On the Zen 5 VM (48 KiB L1d),
// from L3 (4–8 MiB of A), against eight rows at a time: rows of 1 KiB took
// 1.14–1.19× as long (f32 4096×256, f64 4096×128), of 2 KiB 0.96–0.97×
// (f32 2048×512, f64 4096×256), of 16 KiB 0.92–0.93× (f32 256×4096, f64
// 512×2048), of 64 KiB, x past L1, 1.5–1.6× (f32 64×16384, f64 128×8192).
const gemvByRowMinBytes = 2 << 10

// gemvByRow reports whether the AVX-512 A·x of m×n reads A one row at a
// time (a dot product per row, A as one stream) rather than eight rows at
// once: when A is larger than the tune parameter gemv.by_row (tune.GEMV)
// and its rows are within the bounds above.
func gemvByRow[T Float](m, n int) bool {
	size := num.Size[T]()
	row := n * size
	return row >= gemvByRowMinBytes && row <= isa.Caches().L1/2 &&
		m*row > tune.PerDTypeOf(tune.Current().GEMV.ByRow, size)
}

// gemvRows8Asm is gemvRows with the AVX-512 dot product of eight rows at a
// time; of the last hi−lo mod 8 rows four at once, then one at a time.
func gemvRows8Asm[T Float](lo, hi, n int, alpha T, a []T, lda int, x []T, beta T, y []T, incY int) {
	i := lo
	for ; i+8 <= hi; i += 8 {
		d := dot8Asm(n, a[i*lda:(i+7)*lda+n], lda, x)
		for r, v := range d {
			setY(y, (i+r)*incY, alpha*v, beta)
		}
	}
	if i+4 <= hi {
		d := dot4Asm(n, a[i*lda:(i+3)*lda+n], lda, x)
		for r, v := range d {
			setY(y, (i+r)*incY, alpha*v, beta)
		}
		i += 4
	}
	for ; i < hi; i++ {
		setY(y, i*incY, alpha*T(dotAsm(gemvAVX512, a[i*lda:i*lda+n], x)), beta)
	}
}

// gemvRows sets y[i] for rows lo ≤ i < hi of y = alpha·A·x + beta·y, four
// rows at a time so each load of x serves four rows, with two accumulators
// per row (even and odd columns) to hide the add latency.
func gemvRows[T Float](lo, hi, n int, alpha T, a []T, lda int, x []T, beta T, y []T, incY int) {
	x = x[:n]
	i := lo
	for ; i+4 <= hi; i += 4 {
		a0 := a[i*lda : i*lda+n]
		a1 := a[(i+1)*lda : (i+1)*lda+n]
		a2 := a[(i+2)*lda : (i+2)*lda+n]
		a3 := a[(i+3)*lda : (i+3)*lda+n]
		var s0, s1, s2, s3, t0, t1, t2, t3 T
		j := 0
		for ; j+2 <= len(x); j += 2 {
			x0, x1 := x[j], x[j+1]
			s0 += a0[j] * x0
			s1 += a1[j] * x0
			s2 += a2[j] * x0
			s3 += a3[j] * x0
			t0 += a0[j+1] * x1
			t1 += a1[j+1] * x1
			t2 += a2[j+1] * x1
			t3 += a3[j+1] * x1
		}
		if j < len(x) {
			x0 := x[j]
			s0 += a0[j] * x0
			s1 += a1[j] * x0
			s2 += a2[j] * x0
			s3 += a3[j] * x0
		}
		setY(y, i*incY, alpha*(s0+t0), beta)
		setY(y, (i+1)*incY, alpha*(s1+t1), beta)
		setY(y, (i+2)*incY, alpha*(s2+t2), beta)
		setY(y, (i+3)*incY, alpha*(s3+t3), beta)
	}
	for ; i < hi; i++ {
		ai := a[i*lda : i*lda+n]
		var s0, s1 T
		j := 0
		for ; j+2 <= len(x); j += 2 {
			s0 += ai[j] * x[j]
			s1 += ai[j+1] * x[j+1]
		}
		if j < len(x) {
			s0 += ai[j] * x[j]
		}
		setY(y, i*incY, alpha*(s0+s1), beta)
	}
}

// gemvCols sets y[j] for columns lo ≤ j < hi of y = alpha·Aᵀ·x + beta·y. It
// accumulates Σ x[i]·A[i][lo:hi] four rows at a time into a buffer (one pass
// over the buffer per four rows of A), then scales into y.
//
// The assembly adds one row at a time instead (AVX2), or four (AVX-512,
// then the last m mod 4 rows one at a time).
func gemvCols[T Float](k gemvImpl, lo, hi, m int, alpha T, a []T, lda int, x []T, beta T, y []T, incY int) {
	w := hi - lo
	buf := getBuf[T](w)
	defer putBuf(buf)
	acc := (*buf)[:w]
	clear(acc)
	x = x[:m]
	i := 0
	if k == gemvAVX512 {
		for ; i+4 <= m; i += 4 {
			axpy4Asm((*[4]T)(x[i:i+4]), a[i*lda+lo:(i+3)*lda+hi], lda, acc)
		}
	}
	if k != gemvGeneric {
		for ; i < m; i++ {
			axpyAsm(k, x[i], a[i*lda+lo:i*lda+hi], acc)
		}
	}
	for ; i+4 <= m; i += 4 {
		x0, x1, x2, x3 := x[i], x[i+1], x[i+2], x[i+3]
		a0 := a[i*lda+lo : i*lda+hi]
		a1 := a[(i+1)*lda+lo : (i+1)*lda+hi]
		a2 := a[(i+2)*lda+lo : (i+2)*lda+hi]
		a3 := a[(i+3)*lda+lo : (i+3)*lda+hi]
		a1, a2, a3 = a1[:len(acc)], a2[:len(acc)], a3[:len(acc)]
		for j := range acc {
			acc[j] += a0[j]*x0 + a1[j]*x1 + a2[j]*x2 + a3[j]*x3
		}
	}
	for ; i < m; i++ {
		x0 := x[i]
		ai := a[i*lda+lo : i*lda+hi]
		ai = ai[:len(acc)]
		for j := range acc {
			acc[j] += ai[j] * x0
		}
	}
	for j, s := range acc {
		setY(y, (lo+j)*incY, alpha*s, beta)
	}
}

// setY stores v + beta·y[i], not reading y[i] when beta == 0.
func setY[T Float](y []T, i int, v, beta T) {
	if beta == 0 {
		y[i] = v
		return
	}
	y[i] = v + beta*y[i]
}

func checkGemv(transA bool, m, n, la, lda, lx, incX, ly, incY, threads int) {
	switch {
	case m < 0:
		panic("gemm: m < 0")
	case n < 0:
		panic("gemm: n < 0")
	case lda < max(1, n):
		panic("gemm: bad lda")
	case incX <= 0:
		panic("gemm: incX <= 0")
	case incY <= 0:
		panic("gemm: incY <= 0")
	case threads < 1:
		panic("gemm: threads < 1")
	}
	lenX, lenY := n, m
	if transA {
		lenX, lenY = m, n
	}
	switch {
	case la < minLen(m, n, lda):
		panic("gemm: short a")
	case lx < minLen(lenX, 1, incX):
		panic("gemm: short x")
	case ly < minLen(lenY, 1, incY):
		panic("gemm: short y")
	}
}
