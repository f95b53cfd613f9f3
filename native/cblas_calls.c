/*
 * cblas_calls.c — the CBLAS routines called once through a loaded library
 * (pb_cblas_sgemm …, and the extensions: scal, nrm2, asum, iamax, copy, swap,
 * trsm), with the argument checks the BLAS would make, before the library
 * sees them.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_internal.h"

static pb_status bad(char *err, size_t errlen, const char *routine, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static pb_status bad(char *err, size_t errlen, const char *routine, const char *fmt, ...)
{
	if (err != NULL && errlen > 0) {
		int n = snprintf(err, errlen, "%s: ", routine);
		if (n > 0 && (size_t)n < errlen) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return PB_ERR_INVALID;
}

static int imax1(int a) { return a > 1 ? a : 1; }

static pb_status check_gemm(const char *r, pb_trans ta, pb_trans tb, int m, int n, int k,
                            const void *a, int lda, const void *b, int ldb, const void *c,
                            int ldc, char *err, size_t errlen)
{
	if ((ta != PB_NO_TRANS && ta != PB_TRANS) || (tb != PB_NO_TRANS && tb != PB_TRANS))
		return bad(err, errlen, r, "bad transpose %d/%d (accepted: 0 no, 1 yes)", ta, tb);
	if (m < 0 || n < 0 || k < 0)
		return bad(err, errlen, r, "negative dimension m=%d n=%d k=%d", m, n, k);
	int acols = ta == PB_TRANS ? m : k, bcols = tb == PB_TRANS ? k : n;
	if (lda < imax1(acols))
		return bad(err, errlen, r, "lda %d < max(1, %d)", lda, acols);
	if (ldb < imax1(bcols))
		return bad(err, errlen, r, "ldb %d < max(1, %d)", ldb, bcols);
	if (ldc < imax1(n))
		return bad(err, errlen, r, "ldc %d < max(1, n=%d)", ldc, n);
	if (m > 0 && n > 0 && (c == NULL || (k > 0 && (a == NULL || b == NULL))))
		return bad(err, errlen, r, "NULL matrix");
	return PB_OK;
}

static pb_status check_gemv(const char *r, pb_trans ta, int m, int n, const void *a, int lda,
                            const void *x, int incx, const void *y, int incy, char *err,
                            size_t errlen)
{
	if (ta != PB_NO_TRANS && ta != PB_TRANS)
		return bad(err, errlen, r, "bad transpose %d (accepted: 0 no, 1 yes)", ta);
	if (m < 0 || n < 0)
		return bad(err, errlen, r, "negative dimension m=%d n=%d", m, n);
	if (lda < imax1(n))
		return bad(err, errlen, r, "lda %d < max(1, n=%d)", lda, n);
	if (incx == 0 || incy == 0)
		return bad(err, errlen, r, "zero increment incx=%d incy=%d", incx, incy);
	if (m > 0 && n > 0 && (a == NULL || x == NULL || y == NULL))
		return bad(err, errlen, r, "NULL operand");
	return PB_OK;
}

static pb_status check_vec(const char *r, int n, const void *x, int incx, const void *y,
                           int incy, int need_y, char *err, size_t errlen)
{
	if (n < 0)
		return bad(err, errlen, r, "negative length n=%d", n);
	if (incx == 0 || (need_y && incy == 0))
		return bad(err, errlen, r, "zero increment");
	if (n > 0 && (x == NULL || (need_y && y == NULL)))
		return bad(err, errlen, r, "NULL vector");
	return PB_OK;
}

static pb_status check_lib(const pb_cblas *lib, char *err, size_t errlen)
{
	if (lib == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "NULL library handle");
	return PB_OK;
}

pb_status pb_cblas_sgemm(const pb_cblas *lib, pb_trans ta, pb_trans tb, int m, int n, int k,
                         float alpha, const float *a, int lda, const float *b, int ldb,
                         float beta, float *c, int ldc, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_gemm("sgemm", ta, tb, m, n, k, a, lda, b, ldb, c, ldc, err, errlen);
	if (st != PB_OK)
		return st;
	if (m == 0 || n == 0)
		return PB_OK;
	lib->sgemm(CblasRowMajor, CBLAS_T(ta), CBLAS_T(tb), m, n, k, alpha, a, lda, b, ldb, beta, c,
	           ldc);
	return PB_OK;
}

pb_status pb_cblas_dgemm(const pb_cblas *lib, pb_trans ta, pb_trans tb, int m, int n, int k,
                         double alpha, const double *a, int lda, const double *b, int ldb,
                         double beta, double *c, int ldc, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_gemm("dgemm", ta, tb, m, n, k, a, lda, b, ldb, c, ldc, err, errlen);
	if (st != PB_OK)
		return st;
	if (m == 0 || n == 0)
		return PB_OK;
	lib->dgemm(CblasRowMajor, CBLAS_T(ta), CBLAS_T(tb), m, n, k, alpha, a, lda, b, ldb, beta, c,
	           ldc);
	return PB_OK;
}

pb_status pb_cblas_sgemv(const pb_cblas *lib, pb_trans ta, int m, int n, float alpha,
                         const float *a, int lda, const float *x, int incx, float beta,
                         float *y, int incy, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_gemv("sgemv", ta, m, n, a, lda, x, incx, y, incy, err, errlen);
	if (st != PB_OK)
		return st;
	if (m == 0 || n == 0)
		return PB_OK;
	lib->sgemv(CblasRowMajor, CBLAS_T(ta), m, n, alpha, a, lda, x, incx, beta, y, incy);
	return PB_OK;
}

pb_status pb_cblas_dgemv(const pb_cblas *lib, pb_trans ta, int m, int n, double alpha,
                         const double *a, int lda, const double *x, int incx, double beta,
                         double *y, int incy, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_gemv("dgemv", ta, m, n, a, lda, x, incx, y, incy, err, errlen);
	if (st != PB_OK)
		return st;
	if (m == 0 || n == 0)
		return PB_OK;
	lib->dgemv(CblasRowMajor, CBLAS_T(ta), m, n, alpha, a, lda, x, incx, beta, y, incy);
	return PB_OK;
}

pb_status pb_cblas_saxpy(const pb_cblas *lib, int n, float alpha, const float *x, int incx,
                         float *y, int incy, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_vec("saxpy", n, x, incx, y, incy, 1, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	lib->saxpy(n, alpha, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_daxpy(const pb_cblas *lib, int n, double alpha, const double *x, int incx,
                         double *y, int incy, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_vec("daxpy", n, x, incx, y, incy, 1, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	lib->daxpy(n, alpha, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_sdot(const pb_cblas *lib, int n, const float *x, int incx, const float *y,
                        int incy, float *result, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_vec("sdot", n, x, incx, y, incy, 1, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "sdot", "NULL result");
	if (st != PB_OK)
		return st;
	*result = n == 0 ? 0.0f : lib->sdot(n, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_ddot(const pb_cblas *lib, int n, const double *x, int incx, const double *y,
                        int incy, double *result, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_vec("ddot", n, x, incx, y, incy, 1, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "ddot", "NULL result");
	if (st != PB_OK)
		return st;
	*result = n == 0 ? 0.0 : lib->ddot(n, x, incx, y, incy);
	return PB_OK;
}

/* Extras */

int pb_cblas_has(const pb_cblas *lib, pb_cblas_ext ext, pb_dtype dt)
{
	if (lib == NULL || (int)ext < 0 || ext >= PB_EXT_COUNT || (dt != PB_F32 && dt != PB_F64))
		return 0;
	return lib->ext[ext][dt == PB_F64] != NULL;
}

static pb_status ext_fn(const pb_cblas *lib, pb_cblas_ext ext, pb_dtype dt, void **fn, char *err,
                        size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st != PB_OK)
		return st;
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	*fn = lib->ext[ext][dt == PB_F64];
	if (*fn == NULL)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "%s: %s lacks %s", lib->name, lib->path,
		               pb_cblas_ext_names[ext][dt == PB_F64]);
	return PB_OK;
}

pb_status pb_cblas_scal(const pb_cblas *lib, pb_dtype dt, int n, double alpha, void *x, int incx,
                        char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_SCAL, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("scal", n, x, incx, NULL, 0, 0, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	if (incx < 0) /* BLAS: a negative increment makes scal a no-op */
		return PB_OK;
	if (dt == PB_F32)
		((cblas_sscal_fn)fn)(n, (float)alpha, x, incx);
	else
		((cblas_dscal_fn)fn)(n, alpha, x, incx);
	return PB_OK;
}

pb_status pb_cblas_nrm2(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                        double *result, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_NRM2, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("nrm2", n, x, incx, NULL, 0, 0, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "nrm2", "NULL result");
	if (st != PB_OK)
		return st;
	if (n == 0 || incx < 0) {
		*result = 0;
		return PB_OK;
	}
	*result = dt == PB_F32 ? (double)((cblas_snrm2_fn)fn)(n, x, incx)
	                       : ((cblas_dnrm2_fn)fn)(n, x, incx);
	return PB_OK;
}

pb_status pb_cblas_asum(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                        double *result, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_ASUM, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("asum", n, x, incx, NULL, 0, 0, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "asum", "NULL result");
	if (st != PB_OK)
		return st;
	if (n == 0 || incx < 0) {
		*result = 0;
		return PB_OK;
	}
	*result = dt == PB_F32 ? (double)((cblas_sasum_fn)fn)(n, x, incx)
	                       : ((cblas_dasum_fn)fn)(n, x, incx);
	return PB_OK;
}

pb_status pb_cblas_iamax(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                         int *result, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_IAMAX, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("iamax", n, x, incx, NULL, 0, 0, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "iamax", "NULL result");
	if (st != PB_OK)
		return st;
	if (n == 0 || incx < 0) {
		*result = -1;
		return PB_OK;
	}
	size_t i = dt == PB_F32 ? ((cblas_isamax_fn)fn)(n, x, incx) : ((cblas_idamax_fn)fn)(n, x, incx);
	*result = (int)i;
	return PB_OK;
}

pb_status pb_cblas_copy(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                        void *y, int incy, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_COPY, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("copy", n, x, incx, y, incy, 1, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	if (dt == PB_F32)
		((cblas_scopy_fn)fn)(n, x, incx, y, incy);
	else
		((cblas_dcopy_fn)fn)(n, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_swap(const pb_cblas *lib, pb_dtype dt, int n, void *x, int incx, void *y,
                        int incy, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_SWAP, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("swap", n, x, incx, y, incy, 1, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	if (dt == PB_F32)
		((cblas_sswap_fn)fn)(n, x, incx, y, incy);
	else
		((cblas_dswap_fn)fn)(n, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_trsm(const pb_cblas *lib, pb_dtype dt, pb_side side, pb_uplo uplo,
                        pb_trans ta, pb_diag diag, int m, int n, double alpha, const void *a,
                        int lda, void *b, int ldb, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_TRSM, dt, &fn, err, errlen);
	if (st != PB_OK)
		return st;
	if ((side != PB_LEFT && side != PB_RIGHT) || (uplo != PB_UPPER && uplo != PB_LOWER) ||
	    (ta != PB_NO_TRANS && ta != PB_TRANS) || (diag != PB_NON_UNIT && diag != PB_UNIT))
		return bad(err, errlen, "trsm", "bad side/uplo/trans/diag %d/%d/%d/%d", side, uplo, ta,
		           diag);
	if (m < 0 || n < 0)
		return bad(err, errlen, "trsm", "negative dimension m=%d n=%d", m, n);
	int k = side == PB_LEFT ? m : n;
	if (lda < imax1(k))
		return bad(err, errlen, "trsm", "lda %d < max(1, %d)", lda, k);
	if (ldb < imax1(n))
		return bad(err, errlen, "trsm", "ldb %d < max(1, n=%d)", ldb, n);
	if (m == 0 || n == 0)
		return PB_OK;
	if (a == NULL || b == NULL)
		return bad(err, errlen, "trsm", "NULL matrix");
	int cs = side == PB_LEFT ? CblasLeft : CblasRight;
	int cu = uplo == PB_UPPER ? CblasUpper : CblasLower;
	int cd = diag == PB_UNIT ? CblasUnit : CblasNonUnit;
	if (dt == PB_F32)
		((cblas_strsm_fn)fn)(CblasRowMajor, cs, cu, CBLAS_T(ta), cd, m, n, (float)alpha, a, lda,
		                     b, ldb);
	else
		((cblas_dtrsm_fn)fn)(CblasRowMajor, cs, cu, CBLAS_T(ta), cd, m, n, alpha, a, lda, b,
		                     ldb);
	return PB_OK;
}
