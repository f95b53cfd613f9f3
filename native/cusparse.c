/*
 * cusparse.c — cuSPARSE's generic API on a CUDA device: y = A·x
 * (cusparseSpMV) and Y = A·X (cusparseSpMM, X and Y row-major) for A in CSR
 * with int32 indices from 0, in f32 and f64, as GPU jobs.
 *
 * The job's arguments are the values, x (X) and y (Y), which the harness
 * fills and reads, and the row offsets and column indices, copied to the
 * device when the job is made, one set per copy, so that a cold-cache copy's
 * indices are cold too. Each copy has its descriptors (cusparseCreateCsr and
 * cusparseCreateDnVec or DnMat on its buffers), made with the job; the
 * workspace cusparseSpMV_bufferSize (SpMM_bufferSize) asks for is allocated
 * once, also with the job, and shared by the copies, whose iterations run
 * one after another on the stream. alpha = 1 and beta = 0 are host scalars
 * (the handle's default pointer mode). The format conversions are
 * cusparse_convert.c's.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cusparse_internal.h"
#include "vendor/cublas.h" /* cudaDataType: CUDA_R_32F, CUDA_R_64F */

#ifndef PB_LIBPROP_MAJOR
#define PB_LIBPROP_MAJOR 0
#define PB_LIBPROP_MINOR 1
#define PB_LIBPROP_PATCH 2
#endif

/* CUDA 12 and 13 ship libcusparse.so.12, CUDA 11 .11. */
static const char *const cusparse_sonames[] = {
	"libcusparse.so.12",
	"libcusparse.so.11",
	NULL,
};

/* libcusparse.so.12 needs nvJitLink; the toolkit keeps it beside. */
static const char *const cusparse_companions[] = {
	"libnvJitLink.so.13",
	"libnvJitLink.so.12",
	NULL,
};

static const pb_gpu_lib cusparse_lib = {
	.name = "libcusparse",
	.env = "PEAKBENCH_CUSPARSE",
	.sonames = cusparse_sonames,
	.search = PB_SEARCH_CUDA,
	.companions = cusparse_companions,
};

#define CUSPARSE_HINT                                                                           \
	"install the CUDA toolkit's cuSPARSE, or `pip install nvidia-cusparse-cu12` for CUDA 12, "   \
	"`nvidia-cusparse` for CUDA 13 (it installs nvidia/cu13/lib), or set PEAKBENCH_CUSPARSE to " \
	"the path of libcusparse.so"

static const char *status_name(int s)
{
	static const char *const names[] = {
		"CUSPARSE_STATUS_SUCCESS",          "CUSPARSE_STATUS_NOT_INITIALIZED",
		"CUSPARSE_STATUS_ALLOC_FAILED",     "CUSPARSE_STATUS_INVALID_VALUE",
		"CUSPARSE_STATUS_ARCH_MISMATCH",    "CUSPARSE_STATUS_MAPPING_ERROR",
		"CUSPARSE_STATUS_EXECUTION_FAILED", "CUSPARSE_STATUS_INTERNAL_ERROR",
		"CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "CUSPARSE_STATUS_ZERO_PIVOT",
		"CUSPARSE_STATUS_NOT_SUPPORTED",    "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
	};
	if (s >= 0 && s < (int)(sizeof names / sizeof names[0]))
		return names[s];
	return "cusparseStatus_t";
}

pb_status pb_cusparse_fail(const pb_cusparse *lib, int s, const char *call, char *err,
                           size_t errlen)
{
	const char *text = lib->error_string != NULL ? lib->error_string(s) : NULL;
	pb_status st = PB_ERR_LIBRARY;
	if (s == CUSPARSE_STATUS_ALLOC_FAILED || s == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES)
		st = PB_ERR_NOMEM;
	else if (s == CUSPARSE_STATUS_NOT_SUPPORTED || s == CUSPARSE_STATUS_ARCH_MISMATCH ||
	         s == CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED)
		st = PB_ERR_UNSUPPORTED;
	return pb_fail(st, err, errlen, "cusparse: %s: %s failed: %s (%d)%s%s", lib->gpu->label, call,
	               status_name(s), s, text != NULL ? ": " : "", text != NULL ? text : "");
}

pb_status pb_cusparse_open(pb_gpu *gpu, const char *path, pb_cusparse **out, char *tried,
                           size_t triedlen, char *err, size_t errlen)
{
	if (gpu == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cusparse_open: NULL argument");
	*out = NULL;
	if (gpu->rt->vendor != PB_GPU_CUDA)
		return pb_fail(PB_ERR_INVALID, err, errlen, "cusparse: %s is not a CUDA device",
		               gpu->label);
	pb_cusparse *lib = calloc(1, sizeof *lib);
	if (lib == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "cusparse: out of memory");
	lib->gpu = gpu;
	char msg[4096];
	pb_status st = pb_gpu_lib_open(&cusparse_lib, path, NULL, NULL, NULL, &lib->dl, NULL,
	                               lib->path, sizeof lib->path, tried, triedlen, msg, sizeof msg);
	if (st != PB_OK) {
		free(lib);
		return pb_fail(st, err, errlen, "cusparse: %s; %s", msg, CUSPARSE_HINT);
	}
	pb_sym syms[] = {
		{"cusparseCreate", &lib->create, 0},
		{"cusparseDestroy", &lib->destroy, 0},
		{"cusparseSetStream", &lib->set_stream, 0},
		{"cusparseGetProperty", &lib->get_property, 0},
		{"cusparseGetErrorString", &lib->error_string, 1},
		{"cusparseCreateCsr", &lib->create_csr, 0},
		{"cusparseDestroySpMat", &lib->destroy_spmat, 0},
		{"cusparseCreateDnVec", &lib->create_dnvec, 0},
		{"cusparseDestroyDnVec", &lib->destroy_dnvec, 0},
		{"cusparseCreateDnMat", &lib->create_dnmat, 0},
		{"cusparseDestroyDnMat", &lib->destroy_dnmat, 0},
		{"cusparseSpMV_bufferSize", &lib->spmv_buffer_size, 0},
		{"cusparseSpMV", &lib->spmv, 0},
		{"cusparseSpMM_bufferSize", &lib->spmm_buffer_size, 0},
		{"cusparseSpMM", &lib->spmm, 0},
		{"cusparseXcsr2coo", &lib->csr2coo, 1},
		{"cusparseXcoo2csr", &lib->coo2csr, 1},
		{"cusparseCsr2cscEx2_bufferSize", &lib->csr2csc_buffer_size, 1},
		{"cusparseCsr2cscEx2", &lib->csr2csc, 1},
	};
	char missing[512];
	pb_sb mb;
	pb_sb_init(&mb, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, syms, PB_NSYMS(syms), &mb) > 0) {
		st = pb_fail(PB_ERR_SYMBOL, err, errlen,
		             "cusparse: %s is not cuSPARSE 11.2 or later (the generic API): missing "
		             "symbol %s; %s",
		             lib->path, missing, CUSPARSE_HINT);
		free(lib);
		return st;
	}
	lib->get_property(PB_LIBPROP_MAJOR, &lib->major);
	lib->get_property(PB_LIBPROP_MINOR, &lib->minor);
	lib->get_property(PB_LIBPROP_PATCH, &lib->patch);
	st = pb_gpu_enter(gpu, err, errlen);
	if (st != PB_OK) {
		free(lib);
		return st;
	}
	int s = lib->create(&lib->h);
	if (s != CUSPARSE_STATUS_SUCCESS) {
		st = pb_cusparse_fail(lib, s, "cusparseCreate", err, errlen);
		free(lib);
		return st;
	}
	s = lib->set_stream(lib->h, gpu->stream);
	if (s != CUSPARSE_STATUS_SUCCESS) {
		st = pb_cusparse_fail(lib, s, "cusparseSetStream", err, errlen);
		lib->destroy(lib->h);
		free(lib);
		return st;
	}
	*out = lib;
	return PB_OK;
}

pb_status pb_cusparse_info(const pb_cusparse *lib, char *buf, size_t buflen, char *err,
                           size_t errlen)
{
	if (lib == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cusparse_info: NULL argument");
	pb_sb sb;
	pb_sb_init(&sb, buf, buflen);
	pb_sb_printf(&sb, "version=%d.%d.%d\npath=%s\n", lib->major, lib->minor, lib->patch,
	             lib->path);
	return PB_OK;
}

void pb_cusparse_close(pb_cusparse *lib)
{
	if (lib == NULL)
		return;
	if (pb_gpu_enter(lib->gpu, NULL, 0) == PB_OK)
		lib->destroy(lib->h);
	free(lib); /* cuSPARSE stays mapped: unloading it under a live runtime is unsafe */
}

/* ---- jobs ---- */

/* The arguments of a sparse job: the harness's three, then the indices. */
enum { ARG_VAL, ARG_X, ARG_Y, ARG_ROWPTR, ARG_COLIDX, NARGS };

typedef struct sparse_ctx {
	int copies;
	cusparseSpMatDescr_t *a; /* per copy */
	void **x, **y;           /* per copy: DnVec (spmv) or DnMat (spmm) descriptors */
} sparse_ctx;

static void sparse_destroy(pb_gpu_job *j)
{
	pb_cusparse *lib = j->dev.lib;
	sparse_ctx *c = j->ctx;
	if (c == NULL)
		return;
	int mm = j->p[2] > 0;
	for (int i = 0; i < c->copies; i++) {
		if (c->a[i] != NULL)
			lib->destroy_spmat(c->a[i]);
		if (c->x[i] != NULL)
			mm ? lib->destroy_dnmat(c->x[i]) : lib->destroy_dnvec(c->x[i]);
		if (c->y[i] != NULL)
			mm ? lib->destroy_dnmat(c->y[i]) : lib->destroy_dnvec(c->y[i]);
	}
	free(c->a);
	free(c->x);
	free(c->y);
	free(c);
	j->ctx = NULL;
}

static pb_status sparse_iter(pb_gpu_job *j, int copy, char *err, size_t errlen)
{
	pb_cusparse *lib = j->dev.lib;
	sparse_ctx *c = j->ctx;
	int type = (int)j->p[3];
	const double one64 = 1, zero64 = 0;
	const float one32 = 1, zero32 = 0;
	const void *one = type == CUDA_R_64F ? (const void *)&one64 : (const void *)&one32;
	const void *zero = type == CUDA_R_64F ? (const void *)&zero64 : (const void *)&zero32;
	int s;
	const char *call;
	if (j->p[2] > 0) {
		call = "cusparseSpMM";
		s = lib->spmm(lib->h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
		              one, c->a[copy], c->x[copy], zero, c->y[copy], type,
		              CUSPARSE_SPMM_ALG_DEFAULT, j->dev.scratch[0]);
	} else {
		call = "cusparseSpMV";
		s = lib->spmv(lib->h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, c->a[copy], c->x[copy], zero,
		              c->y[copy], type, CUSPARSE_SPMV_ALG_DEFAULT, j->dev.scratch[0]);
	}
	if (s != CUSPARSE_STATUS_SUCCESS)
		return pb_cusparse_fail(lib, s, call, err, errlen);
	return PB_OK;
}

/* describe_copy makes copy i's descriptors on its buffers. */
static int describe_copy(pb_cusparse *lib, pb_gpu_job *j, sparse_ctx *c, int i, const char **call)
{
	int rows = (int)j->p[0], cols = (int)j->p[1], k = (int)j->p[2], type = (int)j->p[3];
	*call = "cusparseCreateCsr";
	int s = lib->create_csr(&c->a[i], rows, cols, (int64_t)j->len[ARG_VAL],
	                        pb_job_buf(j, i, ARG_ROWPTR), pb_job_buf(j, i, ARG_COLIDX),
	                        pb_job_buf(j, i, ARG_VAL), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
	                        CUSPARSE_INDEX_BASE_ZERO, type);
	if (s != CUSPARSE_STATUS_SUCCESS)
		return s;
	if (k > 0) {
		*call = "cusparseCreateDnMat";
		s = lib->create_dnmat(&c->x[i], cols, k, k, pb_job_buf(j, i, ARG_X), type,
		                      CUSPARSE_ORDER_ROW);
		if (s == CUSPARSE_STATUS_SUCCESS)
			s = lib->create_dnmat(&c->y[i], rows, k, k, pb_job_buf(j, i, ARG_Y), type,
			                      CUSPARSE_ORDER_ROW);
		return s;
	}
	*call = "cusparseCreateDnVec";
	s = lib->create_dnvec(&c->x[i], cols, pb_job_buf(j, i, ARG_X), type);
	if (s == CUSPARSE_STATUS_SUCCESS)
		s = lib->create_dnvec(&c->y[i], rows, pb_job_buf(j, i, ARG_Y), type);
	return s;
}

pb_status pb_cusparse_copy_in(pb_gpu_job *j, int arg, const int32_t *src, size_t n, char *err,
                              size_t errlen)
{
	const pb_gpu *g = ((pb_cusparse *)j->dev.lib)->gpu;
	const pb_gpu_calls *c = &g->rt->c;
	int e = 0;
	for (int i = 0; e == 0 && i < j->copies; i++)
		e = c->memcpy_async(pb_job_buf(j, i, arg), src, n * sizeof(int32_t), PB_GPU_H2D,
		                    g->stream);
	int e2 = c->stream_sync(g->stream); /* the copies read the caller's array */
	if (e == 0)
		e = e2;
	if (e != 0)
		return pb_gpu_fail(g->rt, g->label, e, PB_GPU_CALL(g->rt, "MemcpyAsync"), err, errlen);
	return PB_OK;
}

pb_status pb_cusparse_job(pb_cusparse *lib, pb_gpu_dtype dt, int rows, int cols, size_t nnz,
                          int k, const int32_t *row_ptr, const int32_t *col_idx,
                          const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err,
                          size_t errlen)
{
	if (lib == NULL || row_ptr == NULL || col_idx == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cusparse_job: NULL argument");
	*out = NULL;
	if (dt != PB_GPU_F32 && dt != PB_GPU_F64)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "cusparse: %s: only f32 and f64",
		               pb_gpu_dtype_name(dt));
	if (rows < 1 || cols < 1 || k < 0 || nnz < 1 || nnz > INT32_MAX)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "cusparse: bad shape: %d×%d with %zu entries, k=%d", rows, cols, nnz, k);
	if (row_ptr[0] != 0 || (size_t)row_ptr[rows] != nnz)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "cusparse: row offsets run from %d to %d; want 0 to %zu", row_ptr[0],
		               row_ptr[rows], nnz);
	int mm = k > 0;
	size_t kk = mm ? (size_t)k : 1;
	char kb[32] = "", what[160];
	if (mm)
		snprintf(kb, sizeof kb, " k=%d", k);
	snprintf(what, sizeof what, "cusparse %s %s %d×%d nnz=%zu%s", mm ? "spmm" : "spmv",
	         pb_gpu_dtype_name(dt), rows, cols, nnz, kb);
	size_t lens[NARGS] = {nnz, (size_t)cols * kk, (size_t)rows * kk, (size_t)rows + 1, nnz};
	pb_gpu_dtype dts[NARGS] = {dt, dt, dt, PB_GPU_I32, PB_GPU_I32};
	pb_gpu_job *j;
	pb_status st = pb_gpu_job_alloc(lib->gpu, NARGS, lens, dts, ARG_Y, opts, what, &j, err, errlen);
	if (st != PB_OK)
		return st;
	j->dev.lib = lib;
	j->iter = sparse_iter;
	j->destroy = sparse_destroy;
	j->p[0] = rows;
	j->p[1] = cols;
	j->p[2] = k;
	j->p[3] = dt == PB_GPU_F64 ? CUDA_R_64F : CUDA_R_32F;
	sparse_ctx *c = calloc(1, sizeof *c);
	if (c != NULL) {
		c->copies = j->copies;
		c->a = calloc((size_t)j->copies, sizeof *c->a);
		c->x = calloc((size_t)j->copies, sizeof *c->x);
		c->y = calloc((size_t)j->copies, sizeof *c->y);
	}
	j->ctx = c;
	if (c == NULL || c->a == NULL || c->x == NULL || c->y == NULL) {
		pb_gpu_job_free(j);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "cusparse: out of memory");
	}
	if ((st = pb_cusparse_copy_in(j, ARG_ROWPTR, row_ptr, (size_t)rows + 1, err, errlen)) !=
	        PB_OK ||
	    (st = pb_cusparse_copy_in(j, ARG_COLIDX, col_idx, nnz, err, errlen)) != PB_OK) {
		pb_gpu_job_free(j);
		return st;
	}
	const char *call = "";
	int s = CUSPARSE_STATUS_SUCCESS;
	for (int i = 0; s == CUSPARSE_STATUS_SUCCESS && i < j->copies; i++)
		s = describe_copy(lib, j, c, i, &call);
	size_t ws = 0;
	if (s == CUSPARSE_STATUS_SUCCESS) {
		const double one64 = 1, zero64 = 0;
		const float one32 = 1, zero32 = 0;
		const void *one = dt == PB_GPU_F64 ? (const void *)&one64 : (const void *)&one32;
		const void *zero = dt == PB_GPU_F64 ? (const void *)&zero64 : (const void *)&zero32;
		int type = (int)j->p[3];
		if (mm) {
			call = "cusparseSpMM_bufferSize";
			s = lib->spmm_buffer_size(lib->h, CUSPARSE_OPERATION_NON_TRANSPOSE,
			                          CUSPARSE_OPERATION_NON_TRANSPOSE, one, c->a[0], c->x[0],
			                          zero, c->y[0], type, CUSPARSE_SPMM_ALG_DEFAULT, &ws);
		} else {
			call = "cusparseSpMV_bufferSize";
			s = lib->spmv_buffer_size(lib->h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, c->a[0],
			                          c->x[0], zero, c->y[0], type, CUSPARSE_SPMV_ALG_DEFAULT,
			                          &ws);
		}
	}
	if (s != CUSPARSE_STATUS_SUCCESS) {
		st = pb_cusparse_fail(lib, s, call, err, errlen);
		pb_gpu_job_free(j);
		return st;
	}
	if ((st = pb_gpu_job_scratch(j, 0, ws, err, errlen)) != PB_OK) {
		pb_gpu_job_free(j);
		return st;
	}
	char wsb[32];
	snprintf(j->desc, sizeof j->desc,
	         "cusparse %d.%d.%d %s CSR int32 %s %d×%d nnz=%zu%s, default algorithm, "
	         "%s workspace, on %s (%d cop%s)",
	         lib->major, lib->minor, lib->patch, mm ? "cusparseSpMM" : "cusparseSpMV",
	         pb_gpu_dtype_name(dt), rows, cols, nnz, kb,
	         pb_gpu_bytes((double)ws, wsb, sizeof wsb), lib->gpu->label, j->copies,
	         j->copies == 1 ? "y" : "ies");
	*out = j;
	return PB_OK;
}
