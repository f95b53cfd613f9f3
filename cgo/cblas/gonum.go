package cblas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Float64Impl is a gonum blas.Float64 implementation that runs gemm, gemv,
// axpy, dot, scal, nrm2, asum, iamax, copy, swap and trsm on the library
// and every other routine on gonum's pure-Go implementation, which it
// embeds. Make gonum/mat use it with blas64.Use(lib.Float64()).
type Float64Impl struct {
	gonum.Implementation
	lib    *Library
	extras bool
}

// Float32Impl is Float64Impl's float32 twin, a gonum blas.Float32.
type Float32Impl struct {
	gonum.Implementation
	lib    *Library
	extras bool
}

var (
	_ blas.Float64 = Float64Impl{}
	_ blas.Float32 = Float32Impl{}
)

// Float64 returns the library as a gonum blas.Float64.
func (l *Library) Float64() Float64Impl {
	l.check()
	return Float64Impl{lib: l, extras: l.hasExtras()}
}

// Float32 returns the library as a gonum blas.Float32.
func (l *Library) Float32() Float32Impl {
	l.check()
	return Float32Impl{lib: l, extras: l.hasExtras()}
}

// Library returns the library behind the implementation.
func (f Float64Impl) Library() *Library { return f.lib }

// Library returns the library behind the implementation.
func (f Float32Impl) Library() *Library { return f.lib }

// Dgemm runs on the library.
func (f Float64Impl) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	f.lib.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemv runs on the library.
func (f Float64Impl) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	f.lib.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}

// Daxpy runs on the library.
func (f Float64Impl) Daxpy(n int, alpha float64, x []float64, incX int, y []float64, incY int) {
	f.lib.Daxpy(n, alpha, x, incX, y, incY)
}

// Ddot runs on the library.
func (f Float64Impl) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	return f.lib.Ddot(n, x, incX, y, incY)
}

// Dscal runs on the library when it has cblas_dscal.
func (f Float64Impl) Dscal(n int, alpha float64, x []float64, incX int) {
	if !f.extras {
		f.Implementation.Dscal(n, alpha, x, incX)
		return
	}
	f.lib.Dscal(n, alpha, x, incX)
}

// Dnrm2 runs on the library when it has cblas_dnrm2.
func (f Float64Impl) Dnrm2(n int, x []float64, incX int) float64 {
	if !f.extras {
		return f.Implementation.Dnrm2(n, x, incX)
	}
	return f.lib.Dnrm2(n, x, incX)
}

// Dasum runs on the library when it has cblas_dasum.
func (f Float64Impl) Dasum(n int, x []float64, incX int) float64 {
	if !f.extras {
		return f.Implementation.Dasum(n, x, incX)
	}
	return f.lib.Dasum(n, x, incX)
}

// Idamax runs on the library when it has cblas_idamax.
func (f Float64Impl) Idamax(n int, x []float64, incX int) int {
	if !f.extras {
		return f.Implementation.Idamax(n, x, incX)
	}
	return f.lib.Idamax(n, x, incX)
}

// Dcopy runs on the library when it has cblas_dcopy.
func (f Float64Impl) Dcopy(n int, x []float64, incX int, y []float64, incY int) {
	if !f.extras {
		f.Implementation.Dcopy(n, x, incX, y, incY)
		return
	}
	f.lib.Dcopy(n, x, incX, y, incY)
}

// Dswap runs on the library when it has cblas_dswap.
func (f Float64Impl) Dswap(n int, x []float64, incX int, y []float64, incY int) {
	if !f.extras {
		f.Implementation.Dswap(n, x, incX, y, incY)
		return
	}
	f.lib.Dswap(n, x, incX, y, incY)
}

// Dtrsm runs on the library when it has cblas_dtrsm.
func (f Float64Impl) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	if !f.extras {
		f.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	f.lib.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// Sgemm runs on the library.
func (f Float32Impl) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	f.lib.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Sgemv runs on the library.
func (f Float32Impl) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	f.lib.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}

// Saxpy runs on the library.
func (f Float32Impl) Saxpy(n int, alpha float32, x []float32, incX int, y []float32, incY int) {
	f.lib.Saxpy(n, alpha, x, incX, y, incY)
}

// Sdot runs on the library.
func (f Float32Impl) Sdot(n int, x []float32, incX int, y []float32, incY int) float32 {
	return f.lib.Sdot(n, x, incX, y, incY)
}

// Sscal runs on the library when it has cblas_sscal.
func (f Float32Impl) Sscal(n int, alpha float32, x []float32, incX int) {
	if !f.extras {
		f.Implementation.Sscal(n, alpha, x, incX)
		return
	}
	f.lib.Sscal(n, alpha, x, incX)
}

// Snrm2 runs on the library when it has cblas_snrm2.
func (f Float32Impl) Snrm2(n int, x []float32, incX int) float32 {
	if !f.extras {
		return f.Implementation.Snrm2(n, x, incX)
	}
	return f.lib.Snrm2(n, x, incX)
}

// Sasum runs on the library when it has cblas_sasum.
func (f Float32Impl) Sasum(n int, x []float32, incX int) float32 {
	if !f.extras {
		return f.Implementation.Sasum(n, x, incX)
	}
	return f.lib.Sasum(n, x, incX)
}

// Isamax runs on the library when it has cblas_isamax.
func (f Float32Impl) Isamax(n int, x []float32, incX int) int {
	if !f.extras {
		return f.Implementation.Isamax(n, x, incX)
	}
	return f.lib.Isamax(n, x, incX)
}

// Scopy runs on the library when it has cblas_scopy.
func (f Float32Impl) Scopy(n int, x []float32, incX int, y []float32, incY int) {
	if !f.extras {
		f.Implementation.Scopy(n, x, incX, y, incY)
		return
	}
	f.lib.Scopy(n, x, incX, y, incY)
}

// Sswap runs on the library when it has cblas_sswap.
func (f Float32Impl) Sswap(n int, x []float32, incX int, y []float32, incY int) {
	if !f.extras {
		f.Implementation.Sswap(n, x, incX, y, incY)
		return
	}
	f.lib.Sswap(n, x, incX, y, incY)
}

// Strsm runs on the library when it has cblas_strsm.
func (f Float32Impl) Strsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float32, a []float32, lda int, b []float32, ldb int) {
	if !f.extras {
		f.Implementation.Strsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	f.lib.Strsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}
