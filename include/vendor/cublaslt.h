/*
 * Our own declarations of the cuBLASLt calls peakbench makes (cublasLt.h of
 * cuBLAS 12–13), resolved with dlsym from the libcublasLt loaded beside
 * libcublas. Only fp8 gemm goes through cuBLASLt: cuBLAS's GemmEx has no
 * 8-bit float types. The data and compute types are cuBLAS's
 * (vendor/cublas.h).
 *
 *   cublasLtMatmulDescAttributes_t: TRANSA 3, TRANSB 4,
 *   A_SCALE_POINTER 17, B_SCALE_POINTER 18 (device pointers to one value of
 *   the scale type; NULL means 1)
 *   cublasLtMatmulPreferenceAttributes_t: MAX_WORKSPACE_BYTES 1 (uint64_t)
 *   cublasLtMatmulAlgo_t: 8 × uint64_t, opaque
 *   cublasLtMatmulHeuristicResult_t: algo, workspaceSize, state, wavesCount,
 *   int reserved[4]
 *
 * cuBLAS's documentation of cublasLtMatmul lists what fp8 needs: compute
 * type CUBLAS_COMPUTE_32F, scale type CUDA_R_32F, A transposed and B not
 * ("TN", column-major) on compute capability 8.9, 9.0 and 12.x, 16-byte
 * aligned pointers and leading dimensions; E4M3 × E4M3, E4M3 × E5M2 and
 * E5M2 × E4M3 inputs, with a CUDA_R_32F C and D among the output types;
 * no E5M2 × E5M2.
 */
#ifndef PB_VENDOR_CUBLASLT_H
#define PB_VENDOR_CUBLASLT_H

#include <stddef.h>
#include <stdint.h>

typedef void *cublasLtHandle_t;
typedef void *cublasLtMatmulDesc_t;
typedef void *cublasLtMatrixLayout_t;
typedef void *cublasLtMatmulPreference_t;

#define CUBLASLT_MATMUL_DESC_TRANSA 3
#define CUBLASLT_MATMUL_DESC_TRANSB 4
#define CUBLASLT_MATMUL_DESC_A_SCALE_POINTER 17
#define CUBLASLT_MATMUL_DESC_B_SCALE_POINTER 18

#define CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES 1

typedef struct {
	uint64_t data[8];
} cublasLtMatmulAlgo_t;

typedef struct {
	cublasLtMatmulAlgo_t algo;
	size_t workspaceSize;
	int state; /* cublasStatus_t */
	float wavesCount;
	int reserved[4];
} cublasLtMatmulHeuristicResult_t;

typedef int (*cublasLtCreate_fn)(cublasLtHandle_t *h);
typedef int (*cublasLtDestroy_fn)(cublasLtHandle_t h);
typedef int (*cublasLtMatmulDescCreate_fn)(cublasLtMatmulDesc_t *desc, int compute, int scale);
typedef int (*cublasLtMatmulDescDestroy_fn)(cublasLtMatmulDesc_t desc);
typedef int (*cublasLtMatmulDescSetAttribute_fn)(cublasLtMatmulDesc_t desc, int attr,
                                                 const void *buf, size_t size);
typedef int (*cublasLtMatrixLayoutCreate_fn)(cublasLtMatrixLayout_t *layout, int type,
                                             uint64_t rows, uint64_t cols, int64_t ld);
typedef int (*cublasLtMatrixLayoutDestroy_fn)(cublasLtMatrixLayout_t layout);
typedef int (*cublasLtMatmulPreferenceCreate_fn)(cublasLtMatmulPreference_t *pref);
typedef int (*cublasLtMatmulPreferenceDestroy_fn)(cublasLtMatmulPreference_t pref);
typedef int (*cublasLtMatmulPreferenceSetAttribute_fn)(cublasLtMatmulPreference_t pref, int attr,
                                                       const void *buf, size_t size);
typedef int (*cublasLtMatmulAlgoGetHeuristic_fn)(
	cublasLtHandle_t h, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
	cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
	cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t *results,
	int *returned);
typedef int (*cublasLtMatmul_fn)(cublasLtHandle_t h, cublasLtMatmulDesc_t desc,
                                 const void *alpha, const void *a, cublasLtMatrixLayout_t adesc,
                                 const void *b, cublasLtMatrixLayout_t bdesc, const void *beta,
                                 const void *c, cublasLtMatrixLayout_t cdesc, void *d,
                                 cublasLtMatrixLayout_t ddesc, const cublasLtMatmulAlgo_t *algo,
                                 void *workspace, size_t workspace_bytes, void *stream);

#endif /* PB_VENDOR_CUBLASLT_H */
