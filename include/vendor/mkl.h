/*
 * Our own declarations of the Intel MKL service and VML calls we make
 * (mkl_service.h, mkl_types.h, mkl_vml_functions.h of MKL 2020). We resolve
 * the C-cased names (MKL_Set_Num_Threads...): in libmkl_rt.so the lower-case
 * names (mkl_set_num_threads) are the Fortran bindings, taking pointers.
 * MKL_INT is the LP64 int, which we select with MKL_Set_Interface_Layer.
 */
#ifndef PB_VENDOR_MKL_H
#define PB_VENDOR_MKL_H

typedef struct {
	int MajorVersion;
	int MinorVersion;
	int UpdateVersion;
	char *ProductStatus;
	char *Build;
	char *Processor; /* the code path, e.g. "Intel(R) Architecture processors" */
	char *Platform;
} MKLVersion;

#define MKL_THREADING_INTEL 0
#define MKL_THREADING_SEQUENTIAL 1
#define MKL_THREADING_PGI 2
#define MKL_THREADING_GNU 3
#define MKL_THREADING_TBB 4

#define MKL_INTERFACE_LP64 0
#define MKL_INTERFACE_ILP64 1
#define MKL_INTERFACE_GNU 2

/* mkl_cbwr_get_auto_branch results (mkl_types.h) */
#define MKL_CBWR_AUTO 2
#define MKL_CBWR_COMPATIBLE 3
#define MKL_CBWR_SSE2 4
#define MKL_CBWR_SSE3 5
#define MKL_CBWR_SSSE3 6
#define MKL_CBWR_SSE4_1 7
#define MKL_CBWR_SSE4_2 8
#define MKL_CBWR_AVX 9
#define MKL_CBWR_AVX2 10
#define MKL_CBWR_AVX512_MIC 11
#define MKL_CBWR_AVX512 12
#define MKL_CBWR_AVX512_MIC_E1 13
#define MKL_CBWR_AVX512_E1 14

typedef int (*MKL_Set_Threading_Layer_fn)(int code);
typedef int (*MKL_Set_Interface_Layer_fn)(int code);
typedef void (*MKL_Set_Num_Threads_fn)(int n);
typedef int (*MKL_Get_Max_Threads_fn)(void);
typedef void (*MKL_Get_Version_fn)(MKLVersion *v);
typedef void (*MKL_Get_Version_String_fn)(char *buf, int len);
typedef int (*MKL_CBWR_Get_Auto_Branch_fn)(void);

/* VML (n is MKL_INT: int in LP64) */
typedef void (*vs_binary_fn)(int n, const float *a, const float *b, float *r);
typedef void (*vd_binary_fn)(int n, const double *a, const double *b, double *r);
typedef void (*vs_unary_fn)(int n, const float *a, float *r);
typedef void (*vd_unary_fn)(int n, const double *a, double *r);

/*
 * Low-precision gemm (mkl_cblas.h), row- or column-major like cblas_sgemm.
 * MKL_BF16 and MKL_F16 are unsigned 16-bit storage. cblas_gemm_s8u8s32
 * computes C = alpha·(op(A)+oa)·(op(B)+ob) + beta·C + C_offset; which
 * operand is unsigned depends on the layout: column-major A is s8 and B u8
 * (the routine's name), row-major A is u8 and B s8 (MKL swaps the operands
 * to reach its column-major kernel). Measured on MKL 2020.4: row-major
 * A=200, B=1 gives 200; column-major gives -56. Where the code path MKL
 * runs has no VNNI (AVX2, AVX-512 without DL Boost) it multiplies with
 * VPMADDUBSW, whose 16-bit pair sums saturate: 255·127 + 255·127 comes out
 * 32767. cblas_gemm_s16s16s32 (s16 operands, s32 sums) has no such limit.
 */
typedef void (*cblas_gemm_bf16bf16f32_fn)(int layout, int ta, int tb, int m, int n, int k,
                                          float alpha, const unsigned short *a, int lda,
                                          const unsigned short *b, int ldb, float beta, float *c,
                                          int ldc);
typedef cblas_gemm_bf16bf16f32_fn cblas_gemm_f16f16f32_fn; /* same shape, MKL_F16 operands */
typedef void (*cblas_gemm_s8u8s32_fn)(int layout, int ta, int tb, int offsetc, int m, int n,
                                      int k, float alpha, const void *a, int lda, signed char oa,
                                      const void *b, int ldb, signed char ob, float beta, int *c,
                                      int ldc, const int *oc);
typedef void (*cblas_gemm_s16s16s32_fn)(int layout, int ta, int tb, int offsetc, int m, int n,
                                        int k, float alpha, const short *a, int lda, short oa,
                                        const short *b, int ldb, short ob, float beta, int *c,
                                        int ldc, const int *oc);

#endif
