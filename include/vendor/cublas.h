/*
 * Our own declarations of the cuBLAS calls peakbench makes (cublas_api.h
 * of cuBLAS 11–13, the "_v2" entry points the header maps the plain names
 * to), resolved with dlsym from libcublas. cuBLAS is column-major.
 *
 *   CUBLAS_STATUS_SUCCESS 0, NOT_INITIALIZED 1, ALLOC_FAILED 3,
 *   INVALID_VALUE 7, ARCH_MISMATCH 8, MAPPING_ERROR 11, EXECUTION_FAILED 13,
 *   INTERNAL_ERROR 14, NOT_SUPPORTED 15, LICENSE_ERROR 16
 *   CUBLAS_OP_N 0, CUBLAS_OP_T 1
 *   CUBLAS_POINTER_MODE_HOST 0, DEVICE 1
 *   CUBLAS_DEFAULT_MATH 0 (no TF32 for f32 routines unless asked)
 *   cudaDataType (library_types.h): CUDA_R_32F 0, CUDA_R_64F 1, CUDA_R_16F 2,
 *   CUDA_R_8I 3, CUDA_R_32I 10, CUDA_R_16BF 14, CUDA_R_8F_E4M3 28,
 *   CUDA_R_8F_E5M2 29
 *   cublasComputeType_t (cuBLAS 11+): CUBLAS_COMPUTE_32F 68,
 *   CUBLAS_COMPUTE_32I 72, CUBLAS_COMPUTE_32F_FAST_TF32 77
 *   CUBLAS_GEMM_DEFAULT -1
 *   libraryPropertyType: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2
 *
 * cublasGemmEx's computeType parameter is a cublasComputeType_t since
 * cuBLAS 11 (a cudaDataType in 10): the loader refuses cuBLAS older than 11.
 */
#ifndef PB_VENDOR_CUBLAS_H
#define PB_VENDOR_CUBLAS_H

#include <stddef.h>

typedef int cublasStatus_t;
typedef void *cublasHandle_t;

#define CUBLAS_STATUS_SUCCESS 0
#define CUBLAS_STATUS_NOT_INITIALIZED 1
#define CUBLAS_STATUS_ALLOC_FAILED 3
#define CUBLAS_STATUS_INVALID_VALUE 7
#define CUBLAS_STATUS_ARCH_MISMATCH 8
#define CUBLAS_STATUS_MAPPING_ERROR 11
#define CUBLAS_STATUS_EXECUTION_FAILED 13
#define CUBLAS_STATUS_INTERNAL_ERROR 14
#define CUBLAS_STATUS_NOT_SUPPORTED 15
#define CUBLAS_STATUS_LICENSE_ERROR 16

#define CUBLAS_OP_N 0
#define CUBLAS_OP_T 1

#define CUBLAS_POINTER_MODE_HOST 0
#define CUBLAS_POINTER_MODE_DEVICE 1

#define CUBLAS_DEFAULT_MATH 0

#define CUDA_R_32F 0
#define CUDA_R_64F 1
#define CUDA_R_16F 2
#define CUDA_R_8I 3
#define CUDA_R_32I 10
#define CUDA_R_16BF 14
#define CUDA_R_8F_E4M3 28
#define CUDA_R_8F_E5M2 29

#define CUBLAS_COMPUTE_32F 68
#define CUBLAS_COMPUTE_32I 72
#define CUBLAS_COMPUTE_32F_FAST_TF32 77

#define CUBLAS_GEMM_DEFAULT (-1)

#ifndef PB_LIBPROP_MAJOR
#define PB_LIBPROP_MAJOR 0
#define PB_LIBPROP_MINOR 1
#define PB_LIBPROP_PATCH 2
#endif

typedef cublasStatus_t (*cublasCreate_fn)(cublasHandle_t *handle);
typedef cublasStatus_t (*cublasDestroy_fn)(cublasHandle_t handle);
typedef cublasStatus_t (*cublasSetStream_fn)(cublasHandle_t handle, void *stream);
typedef cublasStatus_t (*cublasSetPointerMode_fn)(cublasHandle_t handle, int mode);
typedef cublasStatus_t (*cublasSetMathMode_fn)(cublasHandle_t handle, int mode);
typedef cublasStatus_t (*cublasGetProperty_fn)(int type, int *value);
typedef const char *(*cublasGetStatusString_fn)(cublasStatus_t status);

typedef cublasStatus_t (*cublasSgemm_fn)(cublasHandle_t h, int ta, int tb, int m, int n, int k,
                                         const float *alpha, const float *a, int lda,
                                         const float *b, int ldb, const float *beta, float *c,
                                         int ldc);
typedef cublasStatus_t (*cublasDgemm_fn)(cublasHandle_t h, int ta, int tb, int m, int n, int k,
                                         const double *alpha, const double *a, int lda,
                                         const double *b, int ldb, const double *beta, double *c,
                                         int ldc);
typedef cublasStatus_t (*cublasGemmEx_fn)(cublasHandle_t h, int ta, int tb, int m, int n, int k,
                                          const void *alpha, const void *a, int atype, int lda,
                                          const void *b, int btype, int ldb, const void *beta,
                                          void *c, int ctype, int ldc, int compute, int algo);
typedef cublasStatus_t (*cublasSgemv_fn)(cublasHandle_t h, int trans, int m, int n,
                                         const float *alpha, const float *a, int lda,
                                         const float *x, int incx, const float *beta, float *y,
                                         int incy);
typedef cublasStatus_t (*cublasDgemv_fn)(cublasHandle_t h, int trans, int m, int n,
                                         const double *alpha, const double *a, int lda,
                                         const double *x, int incx, const double *beta,
                                         double *y, int incy);
typedef cublasStatus_t (*cublasSaxpy_fn)(cublasHandle_t h, int n, const float *alpha,
                                         const float *x, int incx, float *y, int incy);
typedef cublasStatus_t (*cublasDaxpy_fn)(cublasHandle_t h, int n, const double *alpha,
                                         const double *x, int incx, double *y, int incy);
typedef cublasStatus_t (*cublasSdot_fn)(cublasHandle_t h, int n, const float *x, int incx,
                                        const float *y, int incy, float *result);
typedef cublasStatus_t (*cublasDdot_fn)(cublasHandle_t h, int n, const double *x, int incx,
                                        const double *y, int incy, double *result);

#endif /* PB_VENDOR_CUBLAS_H */
