/*
 * cublas_internal.h — what cublas.c (cuBLAS: its handle and the BLAS jobs)
 * and cublas_lt.c (cuBLASLt: fp8 gemm) share.
 */
#ifndef PB_CUBLAS_INTERNAL_H
#define PB_CUBLAS_INTERNAL_H

#include "pb_gpu.h"
#include "vendor/cublas.h"
#include "vendor/cublaslt.h"

/* The cuBLASLt calls of fp8 gemm, resolved from the libcublasLt cuBLAS loaded. */
typedef struct pb_cublas_lt {
	void *dl; /* NULL: not loaded */
	cublasLtHandle_t h;
	cublasLtCreate_fn create;
	cublasLtDestroy_fn destroy;
	cublasLtMatmulDescCreate_fn desc_create;
	cublasLtMatmulDescDestroy_fn desc_destroy;
	cublasLtMatmulDescSetAttribute_fn desc_set;
	cublasLtMatrixLayoutCreate_fn layout_create;
	cublasLtMatrixLayoutDestroy_fn layout_destroy;
	cublasLtMatmulPreferenceCreate_fn pref_create;
	cublasLtMatmulPreferenceDestroy_fn pref_destroy;
	cublasLtMatmulPreferenceSetAttribute_fn pref_set;
	cublasLtMatmulAlgoGetHeuristic_fn heuristic;
	cublasLtMatmul_fn matmul;
} pb_cublas_lt;

struct pb_cublas {
	pb_gpu *gpu;
	void *dl;
	char path[PATH_MAX];
	char lt_path[PATH_MAX];
	int major, minor, patch;
	int cc_major, cc_minor; /* the device's compute capability */
	cublasHandle_t h;

	cublasCreate_fn create;
	cublasDestroy_fn destroy;
	cublasSetStream_fn set_stream;
	cublasSetPointerMode_fn set_pointer_mode;
	cublasSetMathMode_fn set_math_mode;
	cublasGetProperty_fn get_property;
	cublasGetStatusString_fn status_string;
	cublasSgemm_fn sgemm;
	cublasDgemm_fn dgemm;
	cublasGemmEx_fn gemm_ex;
	cublasSgemv_fn sgemv;
	cublasDgemv_fn dgemv;
	cublasSaxpy_fn saxpy;
	cublasDaxpy_fn daxpy;
	cublasSdot_fn sdot;
	cublasDdot_fn ddot;

	pb_cublas_lt lt;
	/* why fp8 gemm cannot run here ("" when it can): the device or the library */
	char fp8_why[256];
};

/* pb_cublas_fail formats a cuBLAS status as an error of call. */
pb_status pb_cublas_fail(const pb_cublas *lib, int s, const char *call, char *err, size_t errlen);

/*
 * pb_cublas_lt_open resolves cuBLASLt from lib->lt_path and creates its
 * handle when the device can run fp8 (compute capability 8.9 or later);
 * otherwise, or when that fails, it says why in lib->fp8_why. Never fatal.
 */
void pb_cublas_lt_open(pb_cublas *lib);
void pb_cublas_lt_close(pb_cublas *lib);

/* pb_cublas_lt_job_gemm prepares an fp8 gemm (see pb_cublas_job_gemm). */
pb_status pb_cublas_lt_job_gemm(pb_cublas *lib, pb_gpu_dtype dt, pb_trans ta, pb_trans tb, int m,
                                int n, int k, const pb_gpu_job_opts *opts, pb_gpu_job **out,
                                char *err, size_t errlen);

#endif /* PB_CUBLAS_INTERNAL_H */
