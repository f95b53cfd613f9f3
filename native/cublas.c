/*
 * cublas.c — cuBLAS (11, 12 or 13) on a CUDA device: gemm in f32, f64, f16,
 * bf16, tf32 and i8 (fp8 in cublas_lt.c), gemv, axpy and dot, as GPU jobs.
 *
 * Row-major on column-major: a row-major r×c matrix is, byte for byte, the
 * column-major c×r matrix of its transpose. So the row-major product
 * C = op(A)·op(B) (m×n) is computed as the column-major Cᵀ = op(B)ᵀ·op(A)ᵀ
 * (n×m, leading dimension n): cuBLAS's first operand is our B (op N with
 * ldb = n when B is k×n; op T with ldb = k when B is stored n×k), its second
 * our A (op N with lda = k; op T with lda = m), and its m, n are our n, m.
 *
 * Pointer mode: alpha and beta live on the host (CUBLAS_POINTER_MODE_HOST)
 * for gemm, gemv and axpy, which then return at once. A dot product's
 * result in host mode would make every call wait for the device; dot jobs
 * run in device pointer mode, the result written to device memory (their
 * output argument), so iterations queue like any other kernel. The mode is
 * set before each run, since the handle is shared by the backend's jobs.
 *
 * Math mode stays CUBLAS_DEFAULT_MATH: f32 routines compute in full f32;
 * TF32 is asked for explicitly, per call, with CUBLAS_COMPUTE_32F_FAST_TF32.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cublas_internal.h"


static const char *const cublas_sonames[] = {
	"libcublas.so.13",
	"libcublas.so.12",
	"libcublas.so.11",
	NULL,
};

/* libcublasLt of the same major, beside libcublas, loaded first by full path. */
static const char *const cublas_companions[] = {
	"libcublasLt.so.13",
	"libcublasLt.so.12",
	"libcublasLt.so.11",
	NULL,
};

static const pb_gpu_lib cublas_lib = {
	.name = "libcublas",
	.env = "PEAKBENCH_CUBLAS",
	.sonames = cublas_sonames,
	.search = PB_SEARCH_CUDA,
	.companions = cublas_companions,
};

#define CUBLAS_HINT                                                                             \
	"install the CUDA toolkit's cuBLAS, or `pip install nvidia-cublas-cu12` for CUDA 12, "       \
	"`nvidia-cublas` for CUDA 13 (it installs nvidia/cu13/lib), or set PEAKBENCH_CUBLAS to the "  \
	"path of libcublas.so"

static const char *status_name(int s)
{
	switch (s) {
	case CUBLAS_STATUS_SUCCESS:
		return "CUBLAS_STATUS_SUCCESS";
	case CUBLAS_STATUS_NOT_INITIALIZED:
		return "CUBLAS_STATUS_NOT_INITIALIZED";
	case CUBLAS_STATUS_ALLOC_FAILED:
		return "CUBLAS_STATUS_ALLOC_FAILED";
	case CUBLAS_STATUS_INVALID_VALUE:
		return "CUBLAS_STATUS_INVALID_VALUE";
	case CUBLAS_STATUS_ARCH_MISMATCH:
		return "CUBLAS_STATUS_ARCH_MISMATCH";
	case CUBLAS_STATUS_MAPPING_ERROR:
		return "CUBLAS_STATUS_MAPPING_ERROR";
	case CUBLAS_STATUS_EXECUTION_FAILED:
		return "CUBLAS_STATUS_EXECUTION_FAILED";
	case CUBLAS_STATUS_INTERNAL_ERROR:
		return "CUBLAS_STATUS_INTERNAL_ERROR";
	case CUBLAS_STATUS_NOT_SUPPORTED:
		return "CUBLAS_STATUS_NOT_SUPPORTED";
	case CUBLAS_STATUS_LICENSE_ERROR:
		return "CUBLAS_STATUS_LICENSE_ERROR";
	}
	return "cuBLAS status";
}

pb_status pb_cublas_fail(const pb_cublas *lib, int s, const char *call, char *err, size_t errlen)
{
	const char *text = lib->status_string != NULL ? lib->status_string(s) : NULL;
	pb_status st = PB_ERR_LIBRARY;
	if (s == CUBLAS_STATUS_ALLOC_FAILED)
		st = PB_ERR_NOMEM;
	else if (s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_ARCH_MISMATCH)
		st = PB_ERR_UNSUPPORTED;
	return pb_fail(st, err, errlen, "cublas: %s: %s failed: %s (%d)%s%s", lib->gpu->label, call,
	               status_name(s), s, text != NULL ? ": " : "", text != NULL ? text : "");
}

pb_status pb_cublas_open(pb_gpu *gpu, const char *path, pb_cublas **out, char *tried,
                         size_t triedlen, char *err, size_t errlen)
{
	if (gpu == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cublas_open: NULL argument");
	*out = NULL;
	if (gpu->rt->vendor != PB_GPU_CUDA)
		return pb_fail(PB_ERR_INVALID, err, errlen, "cublas: %s is not a CUDA device",
		               gpu->label);
	pb_cublas *lib = calloc(1, sizeof *lib);
	if (lib == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "cublas: out of memory");
	lib->gpu = gpu;
	/* Prefer the cuBLAS whose major matches the runtime's (a newer one may need a newer driver). */
	const char *order[4] = {NULL, NULL, NULL, NULL};
	int n = 0, rtmajor = gpu->rt->version / 1000;
	char want[32];
	snprintf(want, sizeof want, "libcublas.so.%d", rtmajor);
	for (int i = 0; cublas_sonames[i] != NULL; i++)
		if (strcmp(cublas_sonames[i], want) == 0)
			order[n++] = cublas_sonames[i];
	for (int i = 0; cublas_sonames[i] != NULL; i++)
		if (strcmp(cublas_sonames[i], want) != 0)
			order[n++] = cublas_sonames[i];
	char msg[4096];
	pb_status st = pb_gpu_lib_open(&cublas_lib, path, order, NULL, NULL, &lib->dl, NULL, lib->path,
	                               sizeof lib->path, tried, triedlen, msg, sizeof msg);
	if (st != PB_OK) {
		free(lib);
		return pb_fail(st, err, errlen, "cublas: %s; %s", msg, CUBLAS_HINT);
	}
	pb_sym syms[] = {
		{"cublasCreate_v2", &lib->create, 0},
		{"cublasDestroy_v2", &lib->destroy, 0},
		{"cublasSetStream_v2", &lib->set_stream, 0},
		{"cublasSetPointerMode_v2", &lib->set_pointer_mode, 0},
		{"cublasSetMathMode", &lib->set_math_mode, 0},
		{"cublasGetProperty", &lib->get_property, 0},
		{"cublasGetStatusString", &lib->status_string, 1},
		{"cublasSgemm_v2", &lib->sgemm, 0},
		{"cublasDgemm_v2", &lib->dgemm, 0},
		{"cublasGemmEx", &lib->gemm_ex, 0},
		{"cublasSgemv_v2", &lib->sgemv, 0},
		{"cublasDgemv_v2", &lib->dgemv, 0},
		{"cublasSaxpy_v2", &lib->saxpy, 0},
		{"cublasDaxpy_v2", &lib->daxpy, 0},
		{"cublasSdot_v2", &lib->sdot, 0},
		{"cublasDdot_v2", &lib->ddot, 0},
	};
	char missing[512];
	pb_sb mb;
	pb_sb_init(&mb, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, syms, PB_NSYMS(syms), &mb) > 0) {
		st = pb_fail(PB_ERR_SYMBOL, err, errlen, "cublas: %s is not cuBLAS: missing symbol %s", lib->path,
		             missing);
		free(lib);
		return st;
	}
	lib->get_property(PB_LIBPROP_MAJOR, &lib->major);
	lib->get_property(PB_LIBPROP_MINOR, &lib->minor);
	lib->get_property(PB_LIBPROP_PATCH, &lib->patch);
	if (lib->major < 11) {
		st = pb_fail(PB_ERR_VERSION, err, errlen,
		             "cublas: %s is cuBLAS %d.%d.%d; peakbench needs cuBLAS 11 or later "
		             "(cublasGemmEx's compute type); %s",
		             lib->path, lib->major, lib->minor, lib->patch, CUBLAS_HINT);
		free(lib);
		return st;
	}
	/*
	 * Which libcublasLt the dynamic linker bound: the one beside libcublas
	 * (loaded first, by full path), else the one of its soname in the
	 * process. Beside first: another cuBLAS opened earlier in the process
	 * (a second installation, or a test's fake) holds the same soname.
	 */
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", lib->path);
	char *slash = strrchr(dir, '/');
	for (int pass = slash != NULL ? 0 : 1; pass < 2 && lib->lt_path[0] == '\0'; pass++)
		for (int i = 0; cublas_companions[i] != NULL; i++) {
			char beside[PATH_MAX + 64];
			if (pass == 0)
				snprintf(beside, sizeof beside, "%.*s/%s", (int)(slash - dir), dir,
				         cublas_companions[i]);
			void *lt = dlopen(pass == 0 ? beside : cublas_companions[i], RTLD_NOW | RTLD_NOLOAD);
			if (lt != NULL) {
				pb_dl_realpath(lt, lib->lt_path, sizeof lib->lt_path);
				dlclose(lt);
				break;
			}
		}
	st = pb_gpu_enter(gpu, err, errlen);
	if (st != PB_OK) {
		free(lib);
		return st;
	}
	const pb_gpu_rt *rt = gpu->rt;
	if (rt->c.get_attribute(&lib->cc_major, rt->attr.major, gpu->device) != 0 ||
	    rt->c.get_attribute(&lib->cc_minor, rt->attr.minor, gpu->device) != 0)
		lib->cc_major = lib->cc_minor = 0; /* unknown: no fp8 */
	rt->c.get_last_error();
	int s = lib->create(&lib->h);
	if (s != CUBLAS_STATUS_SUCCESS) {
		st = pb_cublas_fail(lib, s, "cublasCreate", err, errlen);
		free(lib);
		return st;
	}
	s = lib->set_stream(lib->h, gpu->stream);
	if (s == CUBLAS_STATUS_SUCCESS)
		s = lib->set_math_mode(lib->h, CUBLAS_DEFAULT_MATH);
	if (s != CUBLAS_STATUS_SUCCESS) {
		st = pb_cublas_fail(lib, s, "cublasSetStream", err, errlen);
		lib->destroy(lib->h);
		free(lib);
		return st;
	}
	pb_cublas_lt_open(lib);
	*out = lib;
	return PB_OK;
}

pb_status pb_cublas_info(const pb_cublas *lib, char *buf, size_t buflen, char *err, size_t errlen)
{
	if (lib == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cublas_info: NULL argument");
	pb_sb sb;
	pb_sb_init(&sb, buf, buflen);
	pb_sb_printf(&sb, "version=%d.%d.%d\npath=%s\n", lib->major, lib->minor, lib->patch,
	             lib->path);
	if (lib->lt_path[0] != '\0')
		pb_sb_printf(&sb, "lt_path=%s\n", lib->lt_path);
	pb_sb_printf(&sb, "fp8=%s\n", lib->fp8_why[0] != '\0' ? lib->fp8_why : "cublasLtMatmul");
	return PB_OK;
}

void pb_cublas_close(pb_cublas *lib)
{
	if (lib == NULL)
		return;
	if (pb_gpu_enter(lib->gpu, NULL, 0) == PB_OK) {
		pb_cublas_lt_close(lib);
		lib->destroy(lib->h);
	}
	free(lib); /* cuBLAS stays mapped: unloading it under a live runtime is unsafe */
}

/* ---- jobs ---- */

static pb_status host_mode(pb_gpu_job *j, char *err, size_t errlen)
{
	pb_cublas *lib = j->dev.lib;
	int s = lib->set_pointer_mode(lib->h, CUBLAS_POINTER_MODE_HOST);
	if (s != CUBLAS_STATUS_SUCCESS)
		return pb_cublas_fail(lib, s, "cublasSetPointerMode", err, errlen);
	return PB_OK;
}

static pb_status device_mode(pb_gpu_job *j, char *err, size_t errlen)
{
	pb_cublas *lib = j->dev.lib;
	int s = lib->set_pointer_mode(lib->h, CUBLAS_POINTER_MODE_DEVICE);
	if (s != CUBLAS_STATUS_SUCCESS)
		return pb_cublas_fail(lib, s, "cublasSetPointerMode", err, errlen);
	return PB_OK;
}

static int gpu_ok_dtype(pb_gpu_dtype dt)
{
	switch (dt) {
	case PB_GPU_F16:
	case PB_GPU_BF16:
	case PB_GPU_F32:
	case PB_GPU_TF32:
	case PB_GPU_F64:
	case PB_GPU_I8:
	case PB_GPU_E4M3:
	case PB_GPU_E5M2:
		return 1;
	case PB_GPU_I32:
		break;
	}
	return 0;
}

/* The GemmEx form of a gemm job: p[5] C's type, p[6] A's and B's, p[7] the compute type. */
static pb_status gemm_iter(pb_gpu_job *j, int c, char *err, size_t errlen)
{
	pb_cublas *lib = j->dev.lib;
	int m = (int)j->p[0], n = (int)j->p[1], k = (int)j->p[2];
	int ta = (int)j->p[3], tb = (int)j->p[4];
	const void *A = pb_job_buf(j, c, 0), *B = pb_job_buf(j, c, 1);
	void *C = pb_job_buf(j, c, 2);
	/* column-major Cᵀ (n×m) = op(B)ᵀ (n×k) · op(A)ᵀ (k×m) */
	int opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N, ldb = tb ? k : n;
	int opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, lda = ta ? m : k;
	int s;
	const char *call;
	switch (j->dev.dt[0]) {
	case PB_GPU_F64: {
		const double one = 1, zero = 0;
		call = "cublasDgemm";
		s = lib->dgemm(lib->h, opb, opa, n, m, k, &one, B, ldb, A, lda, &zero, C, n);
		break;
	}
	case PB_GPU_F32: {
		const float one = 1, zero = 0;
		call = "cublasSgemm";
		s = lib->sgemm(lib->h, opb, opa, n, m, k, &one, B, ldb, A, lda, &zero, C, n);
		break;
	}
	case PB_GPU_I8: { /* the scale type of CUBLAS_COMPUTE_32I is int32 */
		const int32_t one = 1, zero = 0;
		call = "cublasGemmEx";
		s = lib->gemm_ex(lib->h, opb, opa, n, m, k, &one, B, CUDA_R_8I, ldb, A, CUDA_R_8I, lda,
		                 &zero, C, CUDA_R_32I, n, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
		break;
	}
	default: { /* f16, bf16, tf32 */
		const float one = 1, zero = 0; /* the scale type of CUBLAS_COMPUTE_32F* is float */
		int type = (int)j->p[6], ctype = (int)j->p[5], compute = (int)j->p[7];
		call = "cublasGemmEx";
		s = lib->gemm_ex(lib->h, opb, opa, n, m, k, &one, B, type, ldb, A, type, lda, &zero, C,
		                 ctype, n, compute, CUBLAS_GEMM_DEFAULT);
		break;
	}
	}
	if (s != CUBLAS_STATUS_SUCCESS)
		return pb_cublas_fail(lib, s, call, err, errlen);
	return PB_OK;
}

static pb_status check_dims(const char *what, int m, int n, int k, char *err, size_t errlen)
{
	if (m < 1 || n < 1 || k < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "cublas: %s: dimensions m=%d n=%d k=%d must be at least 1", what, m, n, k);
	return PB_OK;
}

/*
 * i8_refuse: cublasGemmEx with CUBLAS_COMPUTE_32I takes A and B 4-byte
 * aligned (our buffers are 256-byte aligned) with leading dimensions that
 * are multiples of 4 (cuBLAS's documentation of cublasGemmEx); it
 * documents no restriction on the transposes.
 */
static pb_status i8_refuse(pb_trans ta, pb_trans tb, int m, int n, int k, char *err,
                           size_t errlen)
{
	int lda = ta ? m : k, ldb = tb ? k : n; /* of our A and B, as cuBLAS sees them */
	if (lda % 4 == 0 && ldb % 4 == 0)
		return PB_OK;
	return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
	               "cublas: cublasGemmEx with CUBLAS_COMPUTE_32I needs leading dimensions that "
	               "are multiples of 4; A's is %d (%s), B's %d (%s)",
	               lda, ta ? "m" : "k", ldb, tb ? "k" : "n");
}

pb_status pb_cublas_job_gemm(pb_cublas *lib, pb_gpu_dtype dt, pb_trans ta, pb_trans tb, int m,
                             int n, int k, const pb_gpu_job_opts *opts, pb_gpu_job **out,
                             char *err, size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cublas_job_gemm: NULL argument");
	*out = NULL;
	if (!gpu_ok_dtype(dt))
		return pb_fail(PB_ERR_INVALID, err, errlen, "cublas: gemm: bad dtype %d", (int)dt);
	pb_status st = check_dims("gemm", m, n, k, err, errlen);
	if (st != PB_OK)
		return st;
	if (dt == PB_GPU_E4M3 || dt == PB_GPU_E5M2)
		return pb_cublas_lt_job_gemm(lib, dt, ta, tb, m, n, k, opts, out, err, errlen);
	if (dt == PB_GPU_I8 && (st = i8_refuse(ta, tb, m, n, k, err, errlen)) != PB_OK)
		return st;
	char what[160];
	snprintf(what, sizeof what, "cublas gemm %s m=%d n=%d k=%d%s%s", pb_gpu_dtype_name(dt), m, n,
	         k, ta ? " transA" : "", tb ? " transB" : "");
	size_t lens[3] = {(size_t)m * (size_t)k, (size_t)k * (size_t)n, (size_t)m * (size_t)n};
	/* the 16-bit floats accumulate into an f32 output, i8 into i32 */
	pb_gpu_dtype out_dt = dt;
	if (dt == PB_GPU_F16 || dt == PB_GPU_BF16)
		out_dt = PB_GPU_F32;
	else if (dt == PB_GPU_I8)
		out_dt = PB_GPU_I32;
	pb_gpu_dtype dts[3] = {dt, dt, out_dt};
	pb_gpu_job *j;
	st = pb_gpu_job_alloc(lib->gpu, 3, lens, dts, 2, opts, what, &j, err, errlen);
	if (st != PB_OK)
		return st;
	j->dev.lib = lib;
	j->iter = gemm_iter;
	j->before = host_mode;
	j->p[0] = m;
	j->p[1] = n;
	j->p[2] = k;
	j->p[3] = ta != PB_NO_TRANS;
	j->p[4] = tb != PB_NO_TRANS;
	const char *how = dt == PB_GPU_F64 ? "cublasDgemm" : "cublasSgemm";
	switch (dt) {
	case PB_GPU_F16:
		j->p[5] = CUDA_R_32F;
		j->p[6] = CUDA_R_16F;
		j->p[7] = CUBLAS_COMPUTE_32F;
		how = "cublasGemmEx CUDA_R_16F → CUDA_R_32F CUBLAS_COMPUTE_32F";
		break;
	case PB_GPU_BF16:
		j->p[5] = CUDA_R_32F;
		j->p[6] = CUDA_R_16BF;
		j->p[7] = CUBLAS_COMPUTE_32F;
		how = "cublasGemmEx CUDA_R_16BF → CUDA_R_32F CUBLAS_COMPUTE_32F";
		break;
	case PB_GPU_TF32:
		j->p[5] = CUDA_R_32F;
		j->p[6] = CUDA_R_32F;
		j->p[7] = CUBLAS_COMPUTE_32F_FAST_TF32;
		how = "cublasGemmEx CUDA_R_32F CUBLAS_COMPUTE_32F_FAST_TF32";
		break;
	case PB_GPU_I8:
		/* Measured on an H100 (cuBLAS 13.1): 70% of the int8 tensor-core rate
		 * in the row-major NT form, 7% in NN. */
		how = !ta && tb ? "cublasGemmEx CUDA_R_8I → CUDA_R_32I CUBLAS_COMPUTE_32I"
		                : "cublasGemmEx CUDA_R_8I → CUDA_R_32I CUBLAS_COMPUTE_32I (not on "
		                  "int8 tensor cores: they take row-major NT)";
		break;
	default:
		break;
	}
	snprintf(j->desc, sizeof j->desc, "cublas %d.%d.%d %s %c%c m=%d n=%d k=%d on %s (%d cop%s)",
	         lib->major, lib->minor, lib->patch, how, ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k,
	         lib->gpu->label, j->copies, j->copies == 1 ? "y" : "ies");
	*out = j;
	return PB_OK;
}

static pb_status gemv_iter(pb_gpu_job *j, int c, char *err, size_t errlen)
{
	pb_cublas *lib = j->dev.lib;
	int m = (int)j->p[0], n = (int)j->p[1];
	const void *A = pb_job_buf(j, c, 0), *x = pb_job_buf(j, c, 1);
	void *y = pb_job_buf(j, c, 2);
	int s;
	/* row-major A (m×n) is the column-major n×m Aᵀ (lda = n): y = (Aᵀ)ᵀ·x */
	if (j->dev.dt[0] == PB_GPU_F64) {
		const double one = 1, zero = 0;
		s = lib->dgemv(lib->h, CUBLAS_OP_T, n, m, &one, A, n, x, 1, &zero, y, 1);
	} else {
		const float one = 1, zero = 0;
		s = lib->sgemv(lib->h, CUBLAS_OP_T, n, m, &one, A, n, x, 1, &zero, y, 1);
	}
	if (s != CUBLAS_STATUS_SUCCESS)
		return pb_cublas_fail(lib, s, j->dev.dt[0] == PB_GPU_F64 ? "cublasDgemv" : "cublasSgemv", err,
		                   errlen);
	return PB_OK;
}

static pb_status blas12_dtype(const char *op, pb_gpu_dtype dt, char *err, size_t errlen)
{
	if (dt == PB_GPU_F32 || dt == PB_GPU_F64)
		return PB_OK;
	return pb_fail(gpu_ok_dtype(dt) ? PB_ERR_UNSUPPORTED : PB_ERR_INVALID, err, errlen,
	               "cublas: %s %s: only f32 and f64", op, pb_gpu_dtype_name(dt));
}

pb_status pb_cublas_job_gemv(pb_cublas *lib, pb_gpu_dtype dt, int m, int n,
                             const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err,
                             size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cublas_job_gemv: NULL argument");
	*out = NULL;
	pb_status st = blas12_dtype("gemv", dt, err, errlen);
	if (st == PB_OK)
		st = check_dims("gemv", m, n, 1, err, errlen);
	if (st != PB_OK)
		return st;
	char what[128];
	snprintf(what, sizeof what, "cublas gemv %s m=%d n=%d", pb_gpu_dtype_name(dt), m, n);
	size_t lens[3] = {(size_t)m * (size_t)n, (size_t)n, (size_t)m};
	pb_gpu_dtype dts[3] = {dt, dt, dt};
	pb_gpu_job *j;
	st = pb_gpu_job_alloc(lib->gpu, 3, lens, dts, 2, opts, what, &j, err, errlen);
	if (st != PB_OK)
		return st;
	j->dev.lib = lib;
	j->iter = gemv_iter;
	j->before = host_mode;
	j->p[0] = m;
	j->p[1] = n;
	snprintf(j->desc, sizeof j->desc, "cublas %d.%d.%d %s T (row-major N) m=%d n=%d on %s",
	         lib->major, lib->minor, lib->patch, dt == PB_GPU_F64 ? "cublasDgemv" : "cublasSgemv",
	         m, n, lib->gpu->label);
	*out = j;
	return PB_OK;
}

static pb_status axpy_iter(pb_gpu_job *j, int c, char *err, size_t errlen)
{
	pb_cublas *lib = j->dev.lib;
	int n = (int)j->p[0];
	const void *x = pb_job_buf(j, c, 0);
	void *y = pb_job_buf(j, c, 1);
	int s;
	if (j->dev.dt[0] == PB_GPU_F64) {
		const double a = j->alpha;
		s = lib->daxpy(lib->h, n, &a, x, 1, y, 1);
	} else {
		const float a = (float)j->alpha;
		s = lib->saxpy(lib->h, n, &a, x, 1, y, 1);
	}
	if (s != CUBLAS_STATUS_SUCCESS)
		return pb_cublas_fail(lib, s, j->dev.dt[0] == PB_GPU_F64 ? "cublasDaxpy" : "cublasSaxpy", err,
		                   errlen);
	return PB_OK;
}

pb_status pb_cublas_job_axpy(pb_cublas *lib, pb_gpu_dtype dt, int n, double alpha,
                             const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err,
                             size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cublas_job_axpy: NULL argument");
	*out = NULL;
	pb_status st = blas12_dtype("axpy", dt, err, errlen);
	if (st == PB_OK)
		st = check_dims("axpy", n, 1, 1, err, errlen);
	if (st != PB_OK)
		return st;
	char what[128];
	snprintf(what, sizeof what, "cublas axpy %s n=%d", pb_gpu_dtype_name(dt), n);
	size_t lens[2] = {(size_t)n, (size_t)n};
	pb_gpu_dtype dts[2] = {dt, dt};
	pb_gpu_job *j;
	st = pb_gpu_job_alloc(lib->gpu, 2, lens, dts, 1, opts, what, &j, err, errlen);
	if (st != PB_OK)
		return st;
	j->dev.lib = lib;
	j->iter = axpy_iter;
	j->before = host_mode;
	j->p[0] = n;
	j->alpha = alpha;
	snprintf(j->desc, sizeof j->desc, "cublas %d.%d.%d %s n=%d on %s", lib->major, lib->minor,
	         lib->patch, dt == PB_GPU_F64 ? "cublasDaxpy" : "cublasSaxpy", n, lib->gpu->label);
	*out = j;
	return PB_OK;
}

static pb_status dot_iter(pb_gpu_job *j, int c, char *err, size_t errlen)
{
	pb_cublas *lib = j->dev.lib;
	int n = (int)j->p[0];
	const void *x = pb_job_buf(j, c, 0), *y = pb_job_buf(j, c, 1);
	void *r = pb_job_buf(j, c, 2); /* device memory: device pointer mode */
	int s;
	if (j->dev.dt[0] == PB_GPU_F64)
		s = lib->ddot(lib->h, n, x, 1, y, 1, r);
	else
		s = lib->sdot(lib->h, n, x, 1, y, 1, r);
	if (s != CUBLAS_STATUS_SUCCESS)
		return pb_cublas_fail(lib, s, j->dev.dt[0] == PB_GPU_F64 ? "cublasDdot" : "cublasSdot", err,
		                   errlen);
	return PB_OK;
}

pb_status pb_cublas_job_dot(pb_cublas *lib, pb_gpu_dtype dt, int n, const pb_gpu_job_opts *opts,
                            pb_gpu_job **out, char *err, size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cublas_job_dot: NULL argument");
	*out = NULL;
	pb_status st = blas12_dtype("dot", dt, err, errlen);
	if (st == PB_OK)
		st = check_dims("dot", n, 1, 1, err, errlen);
	if (st != PB_OK)
		return st;
	char what[128];
	snprintf(what, sizeof what, "cublas dot %s n=%d", pb_gpu_dtype_name(dt), n);
	size_t lens[3] = {(size_t)n, (size_t)n, 1};
	pb_gpu_dtype dts[3] = {dt, dt, dt};
	pb_gpu_job *j;
	st = pb_gpu_job_alloc(lib->gpu, 3, lens, dts, 2, opts, what, &j, err, errlen);
	if (st != PB_OK)
		return st;
	j->dev.lib = lib;
	j->iter = dot_iter;
	j->before = device_mode;
	j->p[0] = n;
	snprintf(j->desc, sizeof j->desc, "cublas %d.%d.%d %s n=%d, device pointer mode, on %s",
	         lib->major, lib->minor, lib->patch, dt == PB_GPU_F64 ? "cublasDdot" : "cublasSdot", n,
	         lib->gpu->label);
	*out = j;
	return PB_OK;
}
