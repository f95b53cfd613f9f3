package cblas

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// The BLAS routines below take gonum's arguments and conventions
// (row-major, blas.Transpose values identical to CBLAS's) and check them
// the way gonum/blas/gonum does, panicking with "cblas: ..." messages on a
// caller mistake, before the library is called. A slice's first element is
// passed to C only when the slice is not empty.

const (
	msgBadTrans = "cblas: bad transpose"
	msgBadSide  = "cblas: bad side"
	msgBadUplo  = "cblas: bad uplo"
	msgBadDiag  = "cblas: bad diag"
	msgMLT0     = "cblas: m < 0"
	msgNLT0     = "cblas: n < 0"
	msgKLT0     = "cblas: k < 0"
	msgBadLdA   = "cblas: bad leading dimension of A"
	msgBadLdB   = "cblas: bad leading dimension of B"
	msgBadLdC   = "cblas: bad leading dimension of C"
	msgShortA   = "cblas: insufficient length of a"
	msgShortB   = "cblas: insufficient length of b"
	msgShortC   = "cblas: insufficient length of c"
	msgShortX   = "cblas: insufficient length of x"
	msgShortY   = "cblas: insufficient length of y"
	msgZeroIncX = "cblas: zero x index increment"
	msgZeroIncY = "cblas: zero y index increment"
	msgTooLarge = "cblas: dimension exceeds the 32-bit CBLAS int"
	maxCBLASInt = 1<<31 - 1
)

func transOf(t blas.Transpose) bool {
	switch t {
	case blas.NoTrans:
		return false
	case blas.Trans, blas.ConjTrans:
		return true
	}
	panic(msgBadTrans)
}

func fits(vals ...int) {
	for _, v := range vals {
		if v > maxCBLASInt || v < -maxCBLASInt {
			panic(msgTooLarge)
		}
	}
}

func ptr32(s []float32) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

func ptr64(s []float64) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// checkGemm validates a row-major gemm; it reports whether there is work.
func checkGemm(tA, tB blas.Transpose, m, n, k, lda, ldb, ldc, lenA, lenB, lenC int) (ta, tb, work bool) {
	ta, tb = transOf(tA), transOf(tB)
	switch {
	case m < 0:
		panic(msgMLT0)
	case n < 0:
		panic(msgNLT0)
	case k < 0:
		panic(msgKLT0)
	}
	rowA, colA := m, k
	if ta {
		rowA, colA = k, m
	}
	rowB, colB := k, n
	if tb {
		rowB, colB = n, k
	}
	if lda < max(1, colA) {
		panic(msgBadLdA)
	}
	if ldb < max(1, colB) {
		panic(msgBadLdB)
	}
	if ldc < max(1, n) {
		panic(msgBadLdC)
	}
	fits(m, n, k, lda, ldb, ldc)
	if m == 0 || n == 0 {
		return ta, tb, false
	}
	if lenA < lda*(rowA-1)+colA {
		panic(msgShortA)
	}
	if lenB < ldb*(rowB-1)+colB {
		panic(msgShortB)
	}
	if lenC < ldc*(m-1)+n {
		panic(msgShortC)
	}
	return ta, tb, true
}

// Sgemm computes C = alpha·op(A)·op(B) + beta·C (row-major; C is not read
// when beta is 0).
func (l *Library) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	l.check()
	ta, tb, work := checkGemm(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if !work {
		return
	}
	l.gemm(F32, ta, tb, m, n, k, float64(alpha), ptr32(a), lda, ptr32(b), ldb, float64(beta), ptr32(c), ldc)
}

// Dgemm computes C = alpha·op(A)·op(B) + beta·C (row-major; C is not read
// when beta is 0).
func (l *Library) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	l.check()
	ta, tb, work := checkGemm(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if !work {
		return
	}
	l.gemm(F64, ta, tb, m, n, k, alpha, ptr64(a), lda, ptr64(b), ldb, beta, ptr64(c), ldc)
}

// vecOK panics unless a vector of n elements with increment inc fits in length.
func vecOK(n, inc, length int, short string) {
	if n == 0 {
		return
	}
	if (inc > 0 && length <= (n-1)*inc) || (inc < 0 && length <= (1-n)*inc) {
		panic(short)
	}
}

func checkGemv(tA blas.Transpose, m, n, lda, incX, incY, lenA, lenX, lenY int) (ta, work bool) {
	ta = transOf(tA)
	switch {
	case m < 0:
		panic(msgMLT0)
	case n < 0:
		panic(msgNLT0)
	case lda < max(1, n):
		panic(msgBadLdA)
	case incX == 0:
		panic(msgZeroIncX)
	case incY == 0:
		panic(msgZeroIncY)
	}
	fits(m, n, lda, incX, incY)
	if m == 0 || n == 0 {
		return ta, false
	}
	nx, ny := n, m
	if ta {
		nx, ny = m, n
	}
	if lenA < lda*(m-1)+n {
		panic(msgShortA)
	}
	vecOK(nx, incX, lenX, msgShortX)
	vecOK(ny, incY, lenY, msgShortY)
	return ta, true
}

// Sgemv computes y = alpha·op(A)·x + beta·y (A m×n, row-major).
func (l *Library) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	l.check()
	ta, work := checkGemv(tA, m, n, lda, incX, incY, len(a), len(x), len(y))
	if !work {
		return
	}
	l.gemv(F32, ta, m, n, float64(alpha), ptr32(a), lda, ptr32(x), incX, float64(beta), ptr32(y), incY)
}

// Dgemv computes y = alpha·op(A)·x + beta·y (A m×n, row-major).
func (l *Library) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	l.check()
	ta, work := checkGemv(tA, m, n, lda, incX, incY, len(a), len(x), len(y))
	if !work {
		return
	}
	l.gemv(F64, ta, m, n, alpha, ptr64(a), lda, ptr64(x), incX, beta, ptr64(y), incY)
}

// checkVec2 validates a two-vector level-1 call; it reports whether n > 0.
func checkVec2(n, incX, incY, lenX, lenY int) bool {
	if incX == 0 {
		panic(msgZeroIncX)
	}
	if incY == 0 {
		panic(msgZeroIncY)
	}
	if n < 0 {
		panic(msgNLT0)
	}
	fits(n, incX, incY)
	vecOK(n, incX, lenX, msgShortX)
	vecOK(n, incY, lenY, msgShortY)
	return n > 0
}

// Saxpy computes y = alpha·x + y.
func (l *Library) Saxpy(n int, alpha float32, x []float32, incX int, y []float32, incY int) {
	l.check()
	if checkVec2(n, incX, incY, len(x), len(y)) {
		l.axpy(F32, n, float64(alpha), ptr32(x), incX, ptr32(y), incY)
	}
}

// Daxpy computes y = alpha·x + y.
func (l *Library) Daxpy(n int, alpha float64, x []float64, incX int, y []float64, incY int) {
	l.check()
	if checkVec2(n, incX, incY, len(x), len(y)) {
		l.axpy(F64, n, alpha, ptr64(x), incX, ptr64(y), incY)
	}
}

// Sdot returns x·y.
func (l *Library) Sdot(n int, x []float32, incX int, y []float32, incY int) float32 {
	l.check()
	if !checkVec2(n, incX, incY, len(x), len(y)) {
		return 0
	}
	return float32(l.dot(F32, n, ptr32(x), incX, ptr32(y), incY))
}

// Ddot returns x·y.
func (l *Library) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	l.check()
	if !checkVec2(n, incX, incY, len(x), len(y)) {
		return 0
	}
	return l.dot(F64, n, ptr64(x), incX, ptr64(y), incY)
}

// Extras: gonum's level-1 conventions for one-vector routines — a negative
// increment makes them return 0 (nrm2, asum), -1 (iamax) or do nothing
// (scal) — and a library lacking the routine panics with ErrUnsupported's
// message (HasExtras tells beforehand).

// checkVec1 validates a one-vector call with gonum's rules; it reports
// whether the library should be called.
func checkVec1(n, incX, lenX int) bool {
	if incX < 1 {
		if incX == 0 {
			panic(msgZeroIncX)
		}
		return false
	}
	if n < 0 {
		panic(msgNLT0)
	}
	fits(n, incX)
	vecOK(n, incX, lenX, msgShortX)
	return n > 0
}

// HasExtras reports whether the library has every level-1/3 extra routine
// (scal, nrm2, asum, iamax, copy, swap, trsm) in both precisions; the
// Float64 and Float32 implementations fall back to gonum when it does not.
func (l *Library) HasExtras() bool {
	l.check()
	return l.hasExtras()
}

// Sscal computes x = alpha·x.
func (l *Library) Sscal(n int, alpha float32, x []float32, incX int) {
	l.check()
	if checkVec1(n, incX, len(x)) {
		l.scal(F32, n, float64(alpha), ptr32(x), incX)
	}
}

// Dscal computes x = alpha·x.
func (l *Library) Dscal(n int, alpha float64, x []float64, incX int) {
	l.check()
	if checkVec1(n, incX, len(x)) {
		l.scal(F64, n, alpha, ptr64(x), incX)
	}
}

// Snrm2 returns the Euclidean norm of x.
func (l *Library) Snrm2(n int, x []float32, incX int) float32 {
	l.check()
	if !checkVec1(n, incX, len(x)) {
		return 0
	}
	return float32(l.nrm2(F32, n, ptr32(x), incX))
}

// Dnrm2 returns the Euclidean norm of x.
func (l *Library) Dnrm2(n int, x []float64, incX int) float64 {
	l.check()
	if !checkVec1(n, incX, len(x)) {
		return 0
	}
	return l.nrm2(F64, n, ptr64(x), incX)
}

// Sasum returns Σ|xᵢ|.
func (l *Library) Sasum(n int, x []float32, incX int) float32 {
	l.check()
	if !checkVec1(n, incX, len(x)) {
		return 0
	}
	return float32(l.asum(F32, n, ptr32(x), incX))
}

// Dasum returns Σ|xᵢ|.
func (l *Library) Dasum(n int, x []float64, incX int) float64 {
	l.check()
	if !checkVec1(n, incX, len(x)) {
		return 0
	}
	return l.asum(F64, n, ptr64(x), incX)
}

// Isamax returns the index of the first largest |xᵢ|, -1 when n is 0.
func (l *Library) Isamax(n int, x []float32, incX int) int {
	l.check()
	if !checkVec1(n, incX, len(x)) {
		return -1
	}
	return l.iamax(F32, n, ptr32(x), incX)
}

// Idamax returns the index of the first largest |xᵢ|, -1 when n is 0.
func (l *Library) Idamax(n int, x []float64, incX int) int {
	l.check()
	if !checkVec1(n, incX, len(x)) {
		return -1
	}
	return l.iamax(F64, n, ptr64(x), incX)
}

// Scopy copies x into y.
func (l *Library) Scopy(n int, x []float32, incX int, y []float32, incY int) {
	l.check()
	if checkVec2(n, incX, incY, len(x), len(y)) {
		l.copyv(F32, n, ptr32(x), incX, ptr32(y), incY)
	}
}

// Dcopy copies x into y.
func (l *Library) Dcopy(n int, x []float64, incX int, y []float64, incY int) {
	l.check()
	if checkVec2(n, incX, incY, len(x), len(y)) {
		l.copyv(F64, n, ptr64(x), incX, ptr64(y), incY)
	}
}

// Sswap exchanges x and y.
func (l *Library) Sswap(n int, x []float32, incX int, y []float32, incY int) {
	l.check()
	if checkVec2(n, incX, incY, len(x), len(y)) {
		l.swap(F32, n, ptr32(x), incX, ptr32(y), incY)
	}
}

// Dswap exchanges x and y.
func (l *Library) Dswap(n int, x []float64, incX int, y []float64, incY int) {
	l.check()
	if checkVec2(n, incX, incY, len(x), len(y)) {
		l.swap(F64, n, ptr64(x), incX, ptr64(y), incY)
	}
}

func checkTrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n, lda, ldb, lenA, lenB int) (left, upper, ta, unit, work bool) {
	switch s {
	case blas.Left, blas.Right:
	default:
		panic(msgBadSide)
	}
	switch ul {
	case blas.Upper, blas.Lower:
	default:
		panic(msgBadUplo)
	}
	ta = transOf(tA)
	switch d {
	case blas.NonUnit, blas.Unit:
	default:
		panic(msgBadDiag)
	}
	left, upper, unit = s == blas.Left, ul == blas.Upper, d == blas.Unit
	if m < 0 {
		panic(msgMLT0)
	}
	if n < 0 {
		panic(msgNLT0)
	}
	k := n
	if left {
		k = m
	}
	if lda < max(1, k) {
		panic(msgBadLdA)
	}
	if ldb < max(1, n) {
		panic(msgBadLdB)
	}
	fits(m, n, lda, ldb)
	if m == 0 || n == 0 {
		return left, upper, ta, unit, false
	}
	if lenA < lda*(k-1)+k {
		panic(msgShortA)
	}
	if lenB < ldb*(m-1)+n {
		panic(msgShortB)
	}
	return left, upper, ta, unit, true
}

// Strsm solves op(A)·X = alpha·B (left) or X·op(A) = alpha·B (right),
// A triangular, overwriting B (m×n) with X.
func (l *Library) Strsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float32, a []float32, lda int, b []float32, ldb int) {
	l.check()
	left, upper, ta, unit, work := checkTrsm(s, ul, tA, d, m, n, lda, ldb, len(a), len(b))
	if work {
		l.trsm(F32, left, upper, ta, unit, m, n, float64(alpha), ptr32(a), lda, ptr32(b), ldb)
	}
}

// Dtrsm solves op(A)·X = alpha·B (left) or X·op(A) = alpha·B (right),
// A triangular, overwriting B (m×n) with X.
func (l *Library) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	l.check()
	left, upper, ta, unit, work := checkTrsm(s, ul, tA, d, m, n, lda, ldb, len(a), len(b))
	if work {
		l.trsm(F64, left, upper, ta, unit, m, n, alpha, ptr64(a), lda, ptr64(b), ldb)
	}
}
