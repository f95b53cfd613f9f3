/*
 * cublas_lt.c — fp8 gemm (e4m3) through cuBLASLt, the library cuBLAS loads
 * beside itself: cuBLAS's GemmEx has no 8-bit float types.
 *
 * The row-major product C = A·Bᵀ (A m×k, B stored n×k) is cuBLASLt's
 * column-major Cᵀ (n×m) = op(B')·op(A') with A' our B read transposed (the
 * stored k×n column-major view, op T) and B' our A (its k×m column-major
 * view, op N): the "TN" form cuBLASLt's fp8 kernels require on compute
 * capability 8.9, 9.0 and 12.x. Other transposes would need a copy of an
 * operand, not the library's kernel: they are refused. cuBLASLt has no
 * E5M2 × E5M2 kernel (its documented fp8 types are E4M3 × E4M3, E4M3 × E5M2
 * and E5M2 × E4M3), so e5m2 gemm is refused too.
 *
 * Inputs are e4m3, the output f32 (C and D both CUDA_R_32F, one of
 * cublasLtMatmul's documented fp8 outputs), the compute type
 * CUBLAS_COMPUTE_32F and the scale type CUDA_R_32F, as fp8 requires. The A
 * and B scale pointers point at device floats holding 1, each 16-byte
 * aligned: the inputs are exact in e4m3, so the scaling that fp8 inference
 * does is there, with the factor that leaves them as they are.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cublas_internal.h"

/* Workspace offered to cuBLASLt's heuristic; NVIDIA's samples use 32 MiB on Hopper. */
#define LT_WORKSPACE (32u << 20)

/*
 * The B scale's offset from the A scale, in floats: each on its own 16 bytes.
 * cublasLtMatmul refuses a scale pointer off 16-byte alignment (13.1, H100).
 */
#define LT_SCALE_STRIDE 4

void pb_cublas_lt_open(pb_cublas *lib)
{
	pb_cublas_lt *lt = &lib->lt;
	if (lib->cc_major * 10 + lib->cc_minor < 89) {
		snprintf(lib->fp8_why, sizeof lib->fp8_why,
		         "fp8 gemm needs compute capability 8.9 or later (Ada, Hopper); %s is %d.%d",
		         lib->gpu->label, lib->cc_major, lib->cc_minor);
		return;
	}
	if (lib->major < 12) {
		snprintf(lib->fp8_why, sizeof lib->fp8_why,
		         "fp8 gemm needs cuBLAS 12 or later (cuBLASLt's fp8 matmul); this is %d.%d.%d",
		         lib->major, lib->minor, lib->patch);
		return;
	}
	if (lib->lt_path[0] == '\0') {
		snprintf(lib->fp8_why, sizeof lib->fp8_why, "fp8 gemm needs libcublasLt, not loaded");
		return;
	}
	void *dl = dlopen(lib->lt_path, RTLD_NOW | RTLD_NOLOAD);
	if (dl == NULL) {
		snprintf(lib->fp8_why, sizeof lib->fp8_why, "fp8 gemm: %s is not loaded", lib->lt_path);
		return;
	}
	pb_sym syms[] = {
		{"cublasLtCreate", &lt->create, 0},
		{"cublasLtDestroy", &lt->destroy, 0},
		{"cublasLtMatmulDescCreate", &lt->desc_create, 0},
		{"cublasLtMatmulDescDestroy", &lt->desc_destroy, 0},
		{"cublasLtMatmulDescSetAttribute", &lt->desc_set, 0},
		{"cublasLtMatrixLayoutCreate", &lt->layout_create, 0},
		{"cublasLtMatrixLayoutDestroy", &lt->layout_destroy, 0},
		{"cublasLtMatmulPreferenceCreate", &lt->pref_create, 0},
		{"cublasLtMatmulPreferenceDestroy", &lt->pref_destroy, 0},
		{"cublasLtMatmulPreferenceSetAttribute", &lt->pref_set, 0},
		{"cublasLtMatmulAlgoGetHeuristic", &lt->heuristic, 0},
		{"cublasLtMatmul", &lt->matmul, 0},
	};
	char missing[256];
	pb_sb mb;
	pb_sb_init(&mb, missing, sizeof missing);
	if (pb_dl_resolve(dl, syms, PB_NSYMS(syms), &mb) > 0) {
		snprintf(lib->fp8_why, sizeof lib->fp8_why, "fp8 gemm: %s lacks %s", lib->lt_path,
		         missing);
		dlclose(dl);
		return;
	}
	int s = lt->create(&lt->h);
	if (s != CUBLAS_STATUS_SUCCESS) {
		snprintf(lib->fp8_why, sizeof lib->fp8_why, "fp8 gemm: cublasLtCreate failed (%d)", s);
		dlclose(dl);
		return;
	}
	lt->dl = dl; /* kept: the NOLOAD reference holds the library the handle lives in */
}

void pb_cublas_lt_close(pb_cublas *lib)
{
	if (lib->lt.dl != NULL)
		lib->lt.destroy(lib->lt.h);
}

/* What an fp8 job keeps besides its buffers: the descriptors and the chosen algorithm. */
typedef struct lt_job {
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t a, b, c; /* cuBLASLt's A (our B), B (our A), C and D */
	cublasLtMatmulHeuristicResult_t algo;
} lt_job;

static void lt_destroy(pb_gpu_job *j)
{
	pb_cublas *lib = j->dev.lib;
	lt_job *x = j->ctx;
	if (x == NULL)
		return;
	if (x->desc != NULL)
		lib->lt.desc_destroy(x->desc);
	cublasLtMatrixLayout_t ls[3] = {x->a, x->b, x->c};
	for (int i = 0; i < 3; i++)
		if (ls[i] != NULL)
			lib->lt.layout_destroy(ls[i]);
	free(x);
	j->ctx = NULL;
}

/* lt_matmul enqueues copy c's product; it returns cuBLASLt's status. */
static int lt_matmul(pb_gpu_job *j, int c)
{
	pb_cublas *lib = j->dev.lib;
	lt_job *x = j->ctx;
	const float one = 1, zero = 0; /* host pointer mode, cuBLASLt's default */
	void *C = pb_job_buf(j, c, 2);
	return lib->lt.matmul(lib->lt.h, x->desc, &one, pb_job_buf(j, c, 1), x->a, pb_job_buf(j, c, 0),
	                      x->b, &zero, C, x->c, C, x->c, &x->algo.algo, j->dev.scratch[0],
	                      j->dev.scratch_bytes[0], lib->gpu->stream);
}

static pb_status lt_iter(pb_gpu_job *j, int c, char *err, size_t errlen)
{
	int s = lt_matmul(j, c);
	if (s != CUBLAS_STATUS_SUCCESS)
		return pb_cublas_fail(j->dev.lib, s, "cublasLtMatmul", err, errlen);
	return PB_OK;
}

/* lt_refuse says why cuBLASLt cannot run this fp8 gemm, or returns PB_OK. */
static pb_status lt_refuse(const pb_cublas *lib, pb_gpu_dtype dt, pb_trans ta, pb_trans tb, int n,
                           int k, char *err, size_t errlen)
{
	if (lib->fp8_why[0] != '\0')
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "cublas: %s", lib->fp8_why);
	if (dt == PB_GPU_E5M2)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cublas: cuBLASLt has no E5M2 × E5M2 kernel (only E4M3 × E4M3, E4M3 × E5M2, "
		               "E5M2 × E4M3)");
	if (ta != PB_NO_TRANS || tb != PB_TRANS)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cublas: cuBLASLt's fp8 kernels take only the TN form, row-major transB "
		               "without transA (this is%s%s)",
		               ta ? " transA" : "", tb ? " transB" : " not transB");
	if (k % 16 != 0 || n % 4 != 0)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cublas: cuBLASLt's fp8 kernels need 16-byte leading dimensions: k a "
		               "multiple of 16 (the operands' rows) and n of 4 (the f32 output's); "
		               "k=%d n=%d",
		               k, n);
	return PB_OK;
}

/*
 * lt_plan creates x's descriptors and asks the heuristic for an algorithm;
 * scales NULL leaves the scale pointers unset (a scale of 1).
 */
static pb_status lt_plan(pb_cublas *lib, lt_job *x, const float *scales, int m, int n, int k,
                         char *err, size_t errlen)
{
	pb_cublas_lt *lt = &lib->lt;
	int s = lt->desc_create(&x->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	const char *call = "cublasLtMatmulDescCreate";
	int opa = CUBLAS_OP_T, opb = CUBLAS_OP_N;
	const float *sa = scales, *sb = scales != NULL ? scales + LT_SCALE_STRIDE : NULL;
	if (s == CUBLAS_STATUS_SUCCESS) {
		call = "cublasLtMatmulDescSetAttribute";
		s = lt->desc_set(x->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa);
	}
	if (s == CUBLAS_STATUS_SUCCESS)
		s = lt->desc_set(x->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb);
	if (s == CUBLAS_STATUS_SUCCESS && scales != NULL)
		s = lt->desc_set(x->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa);
	if (s == CUBLAS_STATUS_SUCCESS && scales != NULL)
		s = lt->desc_set(x->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb);
	if (s == CUBLAS_STATUS_SUCCESS) {
		call = "cublasLtMatrixLayoutCreate";
		/* stored shapes, column-major: our B as k×n, our A as k×m, C as n×m */
		s = lt->layout_create(&x->a, CUDA_R_8F_E4M3, (uint64_t)k, (uint64_t)n, k);
	}
	if (s == CUBLAS_STATUS_SUCCESS)
		s = lt->layout_create(&x->b, CUDA_R_8F_E4M3, (uint64_t)k, (uint64_t)m, k);
	if (s == CUBLAS_STATUS_SUCCESS)
		s = lt->layout_create(&x->c, CUDA_R_32F, (uint64_t)n, (uint64_t)m, n);
	if (s != CUBLAS_STATUS_SUCCESS)
		return pb_cublas_fail(lib, s, call, err, errlen);

	cublasLtMatmulPreference_t pref = NULL;
	uint64_t ws = LT_WORKSPACE;
	int got = 0;
	call = "cublasLtMatmulPreferenceCreate";
	s = lt->pref_create(&pref);
	if (s == CUBLAS_STATUS_SUCCESS) {
		call = "cublasLtMatmulPreferenceSetAttribute";
		s = lt->pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
	}
	if (s == CUBLAS_STATUS_SUCCESS) {
		call = "cublasLtMatmulAlgoGetHeuristic";
		s = lt->heuristic(lt->h, x->desc, x->a, x->b, x->c, x->c, pref, 1, &x->algo, &got);
	}
	if (pref != NULL)
		lt->pref_destroy(pref);
	if (s != CUBLAS_STATUS_SUCCESS)
		return pb_cublas_fail(lib, s, call, err, errlen);
	if (got < 1 || x->algo.state != CUBLAS_STATUS_SUCCESS)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cublas: %s: cublasLtMatmulAlgoGetHeuristic found no fp8 algorithm for "
		               "m=%d n=%d k=%d",
		               lib->gpu->label, m, n, k);
	return PB_OK;
}

pb_status pb_cublas_lt_job_gemm(pb_cublas *lib, pb_gpu_dtype dt, pb_trans ta, pb_trans tb, int m,
                                int n, int k, const pb_gpu_job_opts *opts, pb_gpu_job **out,
                                char *err, size_t errlen)
{
	*out = NULL;
	pb_status st = lt_refuse(lib, dt, ta, tb, n, k, err, errlen);
	if (st != PB_OK)
		return st;
	char what[160];
	snprintf(what, sizeof what, "cublas gemm %s m=%d n=%d k=%d transB", pb_gpu_dtype_name(dt), m,
	         n, k);
	size_t lens[3] = {(size_t)m * (size_t)k, (size_t)k * (size_t)n, (size_t)m * (size_t)n};
	pb_gpu_dtype dts[3] = {dt, dt, PB_GPU_F32};
	pb_gpu_job *j;
	st = pb_gpu_job_alloc(lib->gpu, 3, lens, dts, 2, opts, what, &j, err, errlen);
	if (st != PB_OK)
		return st;
	j->dev.lib = lib;
	j->iter = lt_iter;
	j->destroy = lt_destroy;
	lt_job *x = calloc(1, sizeof *x);
	if (x == NULL) {
		pb_job_free(j);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "cublas: out of memory");
	}
	j->ctx = x;
	/* the A and B scales: device floats holding 1, 16 bytes apart */
	static const float ones[LT_SCALE_STRIDE + 1] = {1, 0, 0, 0, 1};
	const pb_gpu_calls *c = &lib->gpu->rt->c;
	st = pb_gpu_job_scratch(j, 1, sizeof ones, err, errlen);
	if (st == PB_OK) {
		int e = c->memcpy_async(j->dev.scratch[1], ones, sizeof ones, PB_GPU_H2D, lib->gpu->stream);
		if (e == 0)
			e = c->stream_sync(lib->gpu->stream);
		if (e != 0)
			st = pb_gpu_fail(lib->gpu->rt, lib->gpu->label, e, "cudaMemcpyAsync", err, errlen);
	}
	if (st == PB_OK)
		st = lt_plan(lib, x, j->dev.scratch[1], m, n, k, err, errlen);
	if (st == PB_OK)
		st = pb_gpu_job_scratch(j, 0, x->algo.workspaceSize, err, errlen);
	/*
	 * One product now, as a guard: cuBLASLt's heuristic takes scale pointers
	 * that cublasLtMatmul then refuses (NOT_SUPPORTED; 13.1 on an H100 did so
	 * for a scale 4 bytes off 16-byte alignment, hence LT_SCALE_STRIDE). A
	 * library that refuses them anyway computes without: the scale is 1.
	 */
	int scaled = 1;
	if (st == PB_OK && lt_matmul(j, 0) == CUBLAS_STATUS_NOT_SUPPORTED) {
		lt_destroy(j);
		x = calloc(1, sizeof *x);
		if (x == NULL)
			st = pb_fail(PB_ERR_NOMEM, err, errlen, "cublas: out of memory");
		j->ctx = x;
		scaled = 0;
		if (st == PB_OK)
			st = lt_plan(lib, x, NULL, m, n, k, err, errlen);
		if (st == PB_OK)
			st = pb_gpu_job_scratch(j, 0, x->algo.workspaceSize, err, errlen);
	}
	if (st == PB_OK) {
		int e = c->stream_sync(lib->gpu->stream);
		if (e != 0)
			st = pb_gpu_fail(lib->gpu->rt, lib->gpu->label, e, "cublasLtMatmul", err, errlen);
	}
	if (st != PB_OK) {
		pb_job_free(j);
		return st;
	}
	snprintf(j->desc, sizeof j->desc,
	         "cublas %d.%d.%d cublasLtMatmul CUDA_R_8F_E4M3 → CUDA_R_32F CUBLAS_COMPUTE_32F, "
	         "%s, TN m=%d n=%d k=%d on %s (%d cop%s)",
	         lib->major, lib->minor, lib->patch,
	         scaled ? "A and B scales 1" : "no scale pointers (refused by cublasLtMatmul)", m, n, k,
	         lib->gpu->label, j->copies,
	         j->copies == 1 ? "y" : "ies");
	*out = j;
	return PB_OK;
}
