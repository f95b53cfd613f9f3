/*
 * Our own declarations of the rocBLAS calls peakbench makes (rocblas.h,
 * rocblas-types.h of ROCm 5–7), resolved with dlsym from librocblas.
 * rocBLAS is column-major, like cuBLAS; rocblas_int is 32-bit (the LP64
 * build every ROCm release ships).
 *
 *   rocblas_status_success 0
 *   rocblas_operation_none 111, rocblas_operation_transpose 112
 */
#ifndef PB_VENDOR_ROCBLAS_H
#define PB_VENDOR_ROCBLAS_H

#include <stddef.h>

typedef int rocblas_status;
typedef void *rocblas_handle;

#define rocblas_status_success 0
#define rocblas_operation_none 111
#define rocblas_operation_transpose 112

typedef rocblas_status (*rocblas_create_handle_fn)(rocblas_handle *handle);
typedef rocblas_status (*rocblas_destroy_handle_fn)(rocblas_handle handle);
typedef rocblas_status (*rocblas_set_stream_fn)(rocblas_handle handle, void *stream);
typedef const char *(*rocblas_status_to_string_fn)(rocblas_status status);
typedef rocblas_status (*rocblas_get_version_string_fn)(char *buf, size_t len);
typedef rocblas_status (*rocblas_sgemm_fn)(rocblas_handle h, int ta, int tb, int m, int n, int k,
                                           const float *alpha, const float *a, int lda,
                                           const float *b, int ldb, const float *beta, float *c,
                                           int ldc);
typedef rocblas_status (*rocblas_dgemm_fn)(rocblas_handle h, int ta, int tb, int m, int n, int k,
                                           const double *alpha, const double *a, int lda,
                                           const double *b, int ldb, const double *beta,
                                           double *c, int ldc);

#endif /* PB_VENDOR_ROCBLAS_H */
