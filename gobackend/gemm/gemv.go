package gemm

import (
	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// minGemvPerThread is the least number of elements of A a goroutine of Gemv
// gets: GEMV streams A once, so below this the goroutine costs more than it
// saves.
var minGemvPerThread = 1 << 15

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
	asm := haveGemvAsm && lvl.Clamp() >= isa.AVX2
	if !transA {
		// Rows are independent dot products: split them over goroutines.
		minRows := max(1, minGemvPerThread/n)
		num.For(m, threads, 4, minRows, func(_, lo, hi int) {
			if asm {
				gemvRowsAsm(lo, hi, n, alpha, a, lda, x, beta, y, incY)
				return
			}
			gemvRows(lo, hi, n, alpha, a, lda, x, beta, y, incY)
		})
		return
	}
	// y = Aᵀx sums scaled rows of A: split the columns, each goroutine
	// sweeping all rows over its own column range.
	minCols := max(1, minGemvPerThread/m)
	num.For(n, threads, 64, minCols, func(_, lo, hi int) {
		gemvCols(asm, lo, hi, m, alpha, a, lda, x, beta, y, incY)
	})
}

// GemvKernel names the inner loops Gemv runs at level lvl: "generic", or
// the assembly's ("AVX2 dot and axpy").
func GemvKernel(lvl isa.Level) string {
	if haveGemvAsm && lvl.Clamp() >= isa.AVX2 {
		return "AVX2 dot and axpy"
	}
	return "generic"
}

// gemvRowsAsm is gemvRows with the assembly dot product, one row at a time
// (x stays in L1 or L2 from row to row).
func gemvRowsAsm[T Float](lo, hi, n int, alpha T, a []T, lda int, x []T, beta T, y []T, incY int) {
	for i := lo; i < hi; i++ {
		setY(y, i*incY, alpha*T(dotAsm(a[i*lda:i*lda+n], x)), beta)
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
// With asm, the assembly axpy adds one row at a time instead.
func gemvCols[T Float](asm bool, lo, hi, m int, alpha T, a []T, lda int, x []T, beta T, y []T, incY int) {
	w := hi - lo
	buf := getBuf[T](w)
	defer putBuf(buf)
	acc := (*buf)[:w]
	clear(acc)
	x = x[:m]
	i := 0
	if asm {
		for ; i < m; i++ {
			axpyAsm(x[i], a[i*lda+lo:i*lda+hi], acc)
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
