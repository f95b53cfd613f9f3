/*
 * Our own declarations of the cuSPARSE generic-API calls peakbench makes
 * (cusparse.h of CUDA 11.2–13), resolved with dlsym from libcusparse. Only
 * the values we use are given; they are part of the stable ABI:
 *
 *   cusparseStatus_t: SUCCESS 0, NOT_INITIALIZED 1, ALLOC_FAILED 2,
 *   INVALID_VALUE 3, ARCH_MISMATCH 4, MAPPING_ERROR 5, EXECUTION_FAILED 6,
 *   INTERNAL_ERROR 7, MATRIX_TYPE_NOT_SUPPORTED 8, ZERO_PIVOT 9,
 *   NOT_SUPPORTED 10, INSUFFICIENT_RESOURCES 11
 *   CUSPARSE_OPERATION_NON_TRANSPOSE 0
 *   CUSPARSE_INDEX_32I 2, CUSPARSE_INDEX_BASE_ZERO 0, CUSPARSE_ORDER_ROW 2
 *   CUSPARSE_SPMV_ALG_DEFAULT 0, CUSPARSE_SPMM_ALG_DEFAULT 0
 *   CUSPARSE_ACTION_SYMBOLIC 0, CUSPARSE_ACTION_NUMERIC 1
 *   CUSPARSE_CSR2CSC_ALG1 1 (CUSPARSE_CSR2CSC_ALG_DEFAULT is 1 too; ALG2,
 *   2, left cuSPARSE 12)
 *   cudaDataType: CUDA_R_32F 0, CUDA_R_64F 1 (vendor/cublas.h)
 *
 * The format conversions (cusparseXcsr2coo, cusparseXcoo2csr,
 * cusparseCsr2cscEx2 and its _bufferSize) are the legacy API's: plain
 * device arrays of int32 indices, no descriptors.
 *
 * The descriptors are opaque pointers (cusparseConst*Descr_t of cuSPARSE
 * 12 are the same pointers, const).
 */
#ifndef PB_VENDOR_CUSPARSE_H
#define PB_VENDOR_CUSPARSE_H

#include <stddef.h>
#include <stdint.h>

typedef void *cusparseHandle_t;
typedef void *cusparseSpMatDescr_t;
typedef void *cusparseDnVecDescr_t;
typedef void *cusparseDnMatDescr_t;

#define CUSPARSE_STATUS_SUCCESS 0
#define CUSPARSE_STATUS_NOT_INITIALIZED 1
#define CUSPARSE_STATUS_ALLOC_FAILED 2
#define CUSPARSE_STATUS_INVALID_VALUE 3
#define CUSPARSE_STATUS_ARCH_MISMATCH 4
#define CUSPARSE_STATUS_MAPPING_ERROR 5
#define CUSPARSE_STATUS_EXECUTION_FAILED 6
#define CUSPARSE_STATUS_INTERNAL_ERROR 7
#define CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED 8
#define CUSPARSE_STATUS_ZERO_PIVOT 9
#define CUSPARSE_STATUS_NOT_SUPPORTED 10
#define CUSPARSE_STATUS_INSUFFICIENT_RESOURCES 11

#define CUSPARSE_OPERATION_NON_TRANSPOSE 0
#define CUSPARSE_INDEX_32I 2
#define CUSPARSE_INDEX_BASE_ZERO 0
#define CUSPARSE_ORDER_ROW 2
#define CUSPARSE_SPMV_ALG_DEFAULT 0
#define CUSPARSE_SPMM_ALG_DEFAULT 0
#define CUSPARSE_ACTION_SYMBOLIC 0
#define CUSPARSE_ACTION_NUMERIC 1
#define CUSPARSE_CSR2CSC_ALG1 1

typedef int (*cusparseCreate_fn)(cusparseHandle_t *handle);
typedef int (*cusparseDestroy_fn)(cusparseHandle_t handle);
typedef int (*cusparseSetStream_fn)(cusparseHandle_t handle, void *stream);
typedef int (*cusparseGetProperty_fn)(int type, int *value);
typedef const char *(*cusparseGetErrorString_fn)(int status);
typedef int (*cusparseCreateCsr_fn)(cusparseSpMatDescr_t *mat, int64_t rows, int64_t cols,
                                    int64_t nnz, void *row_offsets, void *col_ind, void *values,
                                    int row_offsets_type, int col_ind_type, int base,
                                    int value_type);
typedef int (*cusparseDestroySpMat_fn)(cusparseSpMatDescr_t mat);
typedef int (*cusparseCreateDnVec_fn)(cusparseDnVecDescr_t *vec, int64_t size, void *values,
                                      int value_type);
typedef int (*cusparseDestroyDnVec_fn)(cusparseDnVecDescr_t vec);
typedef int (*cusparseCreateDnMat_fn)(cusparseDnMatDescr_t *mat, int64_t rows, int64_t cols,
                                      int64_t ld, void *values, int value_type, int order);
typedef int (*cusparseDestroyDnMat_fn)(cusparseDnMatDescr_t mat);
typedef int (*cusparseSpMV_bufferSize_fn)(cusparseHandle_t handle, int op_a, const void *alpha,
                                          cusparseSpMatDescr_t a, cusparseDnVecDescr_t x,
                                          const void *beta, cusparseDnVecDescr_t y,
                                          int compute_type, int alg, size_t *bytes);
typedef int (*cusparseSpMV_fn)(cusparseHandle_t handle, int op_a, const void *alpha,
                               cusparseSpMatDescr_t a, cusparseDnVecDescr_t x, const void *beta,
                               cusparseDnVecDescr_t y, int compute_type, int alg, void *buffer);
typedef int (*cusparseSpMM_bufferSize_fn)(cusparseHandle_t handle, int op_a, int op_b,
                                          const void *alpha, cusparseSpMatDescr_t a,
                                          cusparseDnMatDescr_t b, const void *beta,
                                          cusparseDnMatDescr_t c, int compute_type, int alg,
                                          size_t *bytes);
typedef int (*cusparseSpMM_fn)(cusparseHandle_t handle, int op_a, int op_b, const void *alpha,
                               cusparseSpMatDescr_t a, cusparseDnMatDescr_t b, const void *beta,
                               cusparseDnMatDescr_t c, int compute_type, int alg, void *buffer);
typedef int (*cusparseXcsr2coo_fn)(cusparseHandle_t handle, const int *csr_row_ptr, int nnz,
                                   int m, int *coo_row_ind, int base);
typedef int (*cusparseXcoo2csr_fn)(cusparseHandle_t handle, const int *coo_row_ind, int nnz,
                                   int m, int *csr_row_ptr, int base);
typedef int (*cusparseCsr2cscEx2_bufferSize_fn)(cusparseHandle_t handle, int m, int n, int nnz,
                                                const void *csr_val, const int *csr_row_ptr,
                                                const int *csr_col_ind, void *csc_val,
                                                int *csc_col_ptr, int *csc_row_ind, int val_type,
                                                int action, int base, int alg, size_t *bytes);
typedef int (*cusparseCsr2cscEx2_fn)(cusparseHandle_t handle, int m, int n, int nnz,
                                     const void *csr_val, const int *csr_row_ptr,
                                     const int *csr_col_ind, void *csc_val, int *csc_col_ptr,
                                     int *csc_row_ind, int val_type, int action, int base, int alg,
                                     void *buffer);

#endif /* PB_VENDOR_CUSPARSE_H */
