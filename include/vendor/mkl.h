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

#endif
