/*
 * Our own minimal CBLAS declarations: the enum values of the CBLAS standard
 * (cblas.h of netlib's CBLAS, identical in OpenBLAS, BLIS and MKL) and
 * function-pointer types for the routines peakbench resolves with dlsym.
 * Integers are the LP64 CBLAS int (32 bits); ILP64 builds are not loaded.
 */
#ifndef PB_VENDOR_CBLAS_H
#define PB_VENDOR_CBLAS_H

#include <stddef.h>

enum {
	CblasRowMajor = 101,
	CblasColMajor = 102
};
enum {
	CblasNoTrans = 111,
	CblasTrans = 112,
	CblasConjTrans = 113
};
enum {
	CblasUpper = 121,
	CblasLower = 122
};
enum {
	CblasNonUnit = 131,
	CblasUnit = 132
};
enum {
	CblasLeft = 141,
	CblasRight = 142
};
/* CBLAS_OFFSET of MKL's integer gemm (mkl_cblas.h): how oc applies to C. */
enum {
	CblasRowOffset = 171,
	CblasColOffset = 172,
	CblasFixOffset = 173
};

/* Level 3 */
typedef void (*cblas_sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha,
                               const float *a, int lda, const float *b, int ldb, float beta,
                               float *c, int ldc);
typedef void (*cblas_dgemm_fn)(int order, int ta, int tb, int m, int n, int k, double alpha,
                               const double *a, int lda, const double *b, int ldb, double beta,
                               double *c, int ldc);
typedef void (*cblas_strsm_fn)(int order, int side, int uplo, int ta, int diag, int m, int n,
                               float alpha, const float *a, int lda, float *b, int ldb);
typedef void (*cblas_dtrsm_fn)(int order, int side, int uplo, int ta, int diag, int m, int n,
                               double alpha, const double *a, int lda, double *b, int ldb);

/* Level 2 */
typedef void (*cblas_sgemv_fn)(int order, int ta, int m, int n, float alpha, const float *a,
                               int lda, const float *x, int incx, float beta, float *y, int incy);
typedef void (*cblas_dgemv_fn)(int order, int ta, int m, int n, double alpha, const double *a,
                               int lda, const double *x, int incx, double beta, double *y,
                               int incy);

/* Level 1 */
typedef void (*cblas_saxpy_fn)(int n, float alpha, const float *x, int incx, float *y, int incy);
typedef void (*cblas_daxpy_fn)(int n, double alpha, const double *x, int incx, double *y,
                               int incy);
typedef float (*cblas_sdot_fn)(int n, const float *x, int incx, const float *y, int incy);
typedef double (*cblas_ddot_fn)(int n, const double *x, int incx, const double *y, int incy);
typedef void (*cblas_sscal_fn)(int n, float alpha, float *x, int incx);
typedef void (*cblas_dscal_fn)(int n, double alpha, double *x, int incx);
typedef float (*cblas_snrm2_fn)(int n, const float *x, int incx);
typedef double (*cblas_dnrm2_fn)(int n, const double *x, int incx);
typedef float (*cblas_sasum_fn)(int n, const float *x, int incx);
typedef double (*cblas_dasum_fn)(int n, const double *x, int incx);
/* CBLAS_INDEX is size_t in netlib's, OpenBLAS's, BLIS's and MKL's cblas.h. */
typedef size_t (*cblas_isamax_fn)(int n, const float *x, int incx);
typedef size_t (*cblas_idamax_fn)(int n, const double *x, int incx);
typedef void (*cblas_scopy_fn)(int n, const float *x, int incx, float *y, int incy);
typedef void (*cblas_dcopy_fn)(int n, const double *x, int incx, double *y, int incy);
typedef void (*cblas_sswap_fn)(int n, float *x, int incx, float *y, int incy);
typedef void (*cblas_dswap_fn)(int n, double *x, int incx, double *y, int incy);

#endif /* PB_VENDOR_CBLAS_H */
