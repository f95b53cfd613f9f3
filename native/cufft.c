/*
 * cufft.c — cuFFT (10, 11 or 12) on a CUDA device: batched 1-D and 2-D
 * Fourier transforms (complex forward and backward, real to complex) in
 * f32 and f64, as GPU jobs.
 *
 * One plan per job (cufftPlanMany, contiguous transforms one after another,
 * out of place), made when the job is made and bound to the device's
 * stream, so that its executions queue between the job's timing events. The
 * plan allocates its own work area. cuFFT's backward transform is
 * unnormalized, as the workload's ifft is.
 *
 * The library registers itself as "cufft" (pb_gpu_registry.h); its job
 * parameters are {kind, batch, n} (1-D) or {kind, batch, rows, columns}
 * (2-D, row-major), kind a cufft_kind, and it reports the plan's time in
 * ns. cgo/cufft speaks these terms in Go.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_gpu_registry.h"

/*
 * cuFFT's ABI as peakbench uses it: our own declarations of the calls it
 * makes (cufft.h of CUDA 11–13), resolved with dlsym from libcufft. Only
 * the values used are given; they are part of the stable ABI:
 *
 *   cufftType: CUFFT_R2C 0x2a, CUFFT_C2C 0x29, CUFFT_D2Z 0x6a, CUFFT_Z2Z 0x69
 *   direction: CUFFT_FORWARD -1, CUFFT_INVERSE 1
 *   cufftResult: CUFFT_SUCCESS 0 … CUFFT_NOT_SUPPORTED 16 (below)
 *   cufftGetVersion: major·1000 + minor·100 + patch (CUFFT_VERSION)
 *
 * A plan is an int handle; cufftComplex is interleaved (re, im) float,
 * cufftDoubleComplex the same in double, as our buffers hold them.
 */
typedef int cufftHandle;
typedef int cufftResult;

#define CUFFT_SUCCESS 0
#define CUFFT_INVALID_PLAN 1
#define CUFFT_ALLOC_FAILED 2
#define CUFFT_INVALID_TYPE 3
#define CUFFT_INVALID_VALUE 4
#define CUFFT_INTERNAL_ERROR 5
#define CUFFT_EXEC_FAILED 6
#define CUFFT_SETUP_FAILED 7
#define CUFFT_INVALID_SIZE 8
#define CUFFT_UNALIGNED_DATA 9
#define CUFFT_INCOMPLETE_PARAMETER_LIST 10
#define CUFFT_INVALID_DEVICE 11
#define CUFFT_PARSE_ERROR 12
#define CUFFT_NO_WORKSPACE 13
#define CUFFT_NOT_IMPLEMENTED 14
#define CUFFT_LICENSE_ERROR 15
#define CUFFT_NOT_SUPPORTED 16

#define CUFFT_R2C 0x2a
#define CUFFT_C2C 0x29
#define CUFFT_D2Z 0x6a
#define CUFFT_Z2Z 0x69

#define CUFFT_FORWARD (-1)
#define CUFFT_INVERSE 1

typedef cufftResult (*cufftPlanMany_fn)(cufftHandle *plan, int rank, int *n, int *inembed,
                                        int istride, int idist, int *onembed, int ostride,
                                        int odist, int type, int batch);
typedef cufftResult (*cufftSetStream_fn)(cufftHandle plan, void *stream);
typedef cufftResult (*cufftExecC2C_fn)(cufftHandle plan, void *idata, void *odata, int direction);
typedef cufftResult (*cufftExecZ2Z_fn)(cufftHandle plan, void *idata, void *odata, int direction);
typedef cufftResult (*cufftExecR2C_fn)(cufftHandle plan, void *idata, void *odata);
typedef cufftResult (*cufftExecD2Z_fn)(cufftHandle plan, void *idata, void *odata);
typedef cufftResult (*cufftDestroy_fn)(cufftHandle plan);
typedef cufftResult (*cufftGetVersion_fn)(int *version);

/* The transforms (cgo/cufft's Kind has the same values). */
typedef enum cufft_kind {
	PB_CUFFT_FORWARD = 0,  /* complex → complex, e^(−2πi·jk/n): C2C/Z2Z, CUFFT_FORWARD */
	PB_CUFFT_BACKWARD = 1, /* complex → complex, e^(+2πi·jk/n), unnormalized: CUFFT_INVERSE */
	PB_CUFFT_R2C = 2       /* real → the n/2+1 outputs of the last dimension: R2C/D2Z */
} cufft_kind;

typedef struct pb_cufft {
	pb_gpu *gpu;
	void *dl;
	char path[PATH_MAX];
	int version; /* cufftGetVersion: major·1000 + minor·100 + patch */
	cufftPlanMany_fn plan_many;
	cufftSetStream_fn set_stream;
	cufftExecC2C_fn exec_c2c;
	cufftExecZ2Z_fn exec_z2z;
	cufftExecR2C_fn exec_r2c;
	cufftExecD2Z_fn exec_d2z;
	cufftDestroy_fn destroy;
	cufftGetVersion_fn get_version;
} pb_cufft;

/* cuFFT's major is one below CUDA's: CUDA 13 ships libcufft.so.12, 12 .11, 11 .10. */
static const char *const cufft_sonames[] = {
	"libcufft.so.12",
	"libcufft.so.11",
	"libcufft.so.10",
	NULL,
};

/* cuFFT 11.2 and later link to nvJitLink (LTO callbacks); the toolkit keeps it beside. */
static const char *const cufft_companions[] = {
	"libnvJitLink.so.13",
	"libnvJitLink.so.12",
	NULL,
};

static const pb_gpu_lib cufft_lib = {
	.name = "libcufft",
	.env = "PEAKBENCH_CUFFT",
	.sonames = cufft_sonames,
	.search = PB_SEARCH_CUDA,
	.companions = cufft_companions,
};

#define CUFFT_HINT                                                                              \
	"install the CUDA toolkit's cuFFT, or `pip install nvidia-cufft-cu12` for CUDA 12, "         \
	"`nvidia-cufft` for CUDA 13 (it installs nvidia/cu13/lib), or set PEAKBENCH_CUFFT to the "    \
	"path of libcufft.so"

static const char *result_name(int r)
{
	static const char *const names[] = {
		"CUFFT_SUCCESS",         "CUFFT_INVALID_PLAN",   "CUFFT_ALLOC_FAILED",
		"CUFFT_INVALID_TYPE",    "CUFFT_INVALID_VALUE",  "CUFFT_INTERNAL_ERROR",
		"CUFFT_EXEC_FAILED",     "CUFFT_SETUP_FAILED",   "CUFFT_INVALID_SIZE",
		"CUFFT_UNALIGNED_DATA",  "CUFFT_INCOMPLETE_PARAMETER_LIST",
		"CUFFT_INVALID_DEVICE",  "CUFFT_PARSE_ERROR",    "CUFFT_NO_WORKSPACE",
		"CUFFT_NOT_IMPLEMENTED", "CUFFT_LICENSE_ERROR",  "CUFFT_NOT_SUPPORTED",
	};
	if (r >= 0 && r < (int)(sizeof names / sizeof names[0]))
		return names[r];
	return "cufftResult";
}

/* cufft_fail: a size or type cuFFT does not implement is unsupported, not an error. */
static pb_status cufft_fail(const pb_cufft *lib, int r, const char *call, char *err, size_t errlen)
{
	pb_status st = PB_ERR_LIBRARY;
	if (r == CUFFT_ALLOC_FAILED)
		st = PB_ERR_NOMEM;
	else if (r == CUFFT_INVALID_SIZE || r == CUFFT_NOT_IMPLEMENTED || r == CUFFT_NOT_SUPPORTED)
		st = PB_ERR_UNSUPPORTED;
	return pb_fail(st, err, errlen, "cufft: %s: %s failed: %s (%d)", lib->gpu->label, call,
	               result_name(r), r);
}

/* cufft_open: the registry has checked the arguments and that gpu is a CUDA device. */
static pb_status cufft_open(pb_gpu *gpu, const char *path, void **out, char *tried,
                            size_t triedlen, char *err, size_t errlen)
{
	pb_cufft *lib = calloc(1, sizeof *lib);
	if (lib == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "cufft: out of memory");
	lib->gpu = gpu;
	/* Prefer the cuFFT of the runtime's CUDA (a newer one may need a newer driver). */
	const char *order[4] = {NULL, NULL, NULL, NULL};
	int n = 0;
	char want[32];
	snprintf(want, sizeof want, "libcufft.so.%d", gpu->rt->version / 1000 - 1);
	for (int i = 0; cufft_sonames[i] != NULL; i++)
		if (strcmp(cufft_sonames[i], want) == 0)
			order[n++] = cufft_sonames[i];
	for (int i = 0; cufft_sonames[i] != NULL; i++)
		if (strcmp(cufft_sonames[i], want) != 0)
			order[n++] = cufft_sonames[i];
	char msg[4096];
	pb_status st = pb_gpu_lib_open(&cufft_lib, path, order, NULL, NULL, &lib->dl, NULL, lib->path,
	                               sizeof lib->path, tried, triedlen, msg, sizeof msg);
	if (st != PB_OK) {
		free(lib);
		return pb_fail(st, err, errlen, "cufft: %s; %s", msg, CUFFT_HINT);
	}
	pb_sym syms[] = {
		{"cufftPlanMany", &lib->plan_many, 0},
		{"cufftSetStream", &lib->set_stream, 0},
		{"cufftExecC2C", &lib->exec_c2c, 0},
		{"cufftExecZ2Z", &lib->exec_z2z, 0},
		{"cufftExecR2C", &lib->exec_r2c, 0},
		{"cufftExecD2Z", &lib->exec_d2z, 0},
		{"cufftDestroy", &lib->destroy, 0},
		{"cufftGetVersion", &lib->get_version, 0},
	};
	char missing[512];
	pb_sb mb;
	pb_sb_init(&mb, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, syms, PB_NSYMS(syms), &mb) > 0) {
		st = pb_fail(PB_ERR_SYMBOL, err, errlen, "cufft: %s is not cuFFT: missing symbol %s",
		             lib->path, missing);
		free(lib);
		return st;
	}
	int r = lib->get_version(&lib->version);
	if (r != CUFFT_SUCCESS) {
		st = cufft_fail(lib, r, "cufftGetVersion", err, errlen);
		free(lib);
		return st;
	}
	*out = lib;
	return PB_OK;
}

static pb_status cufft_info(const void *handle, char *buf, size_t buflen, char *err,
                           size_t errlen)
{
	const pb_cufft *lib = handle;
	pb_sb sb;
	pb_sb_init(&sb, buf, buflen);
	pb_sb_printf(&sb, "version=%d.%d.%d\npath=%s\n", lib->version / 1000,
	             lib->version % 1000 / 100, lib->version % 100, lib->path);
	return PB_OK;
}

/* cuFFT stays mapped: unloading it under a live runtime is unsafe. */
static void cufft_close(void *lib) { free(lib); }

/* ---- jobs ---- */

typedef struct cufft_ctx {
	cufftHandle plan;
	int planned;
} cufft_ctx;

static void cufft_destroy(pb_gpu_job *j)
{
	pb_cufft *lib = j->dev.lib;
	cufft_ctx *c = j->ctx;
	if (c != NULL && c->planned)
		lib->destroy(c->plan);
	free(c);
	j->ctx = NULL;
}

static pb_status cufft_iter(pb_gpu_job *j, int copy, char *err, size_t errlen)
{
	pb_cufft *lib = j->dev.lib;
	cufft_ctx *c = j->ctx;
	void *in = pb_job_buf(j, copy, 0), *out = pb_job_buf(j, copy, 1);
	int kind = (int)j->p[0], f64 = j->dev.dt[0] == PB_GPU_F64;
	int dir = kind == PB_CUFFT_BACKWARD ? CUFFT_INVERSE : CUFFT_FORWARD;
	int r;
	const char *call;
	if (kind == PB_CUFFT_R2C) {
		call = f64 ? "cufftExecD2Z" : "cufftExecR2C";
		r = f64 ? lib->exec_d2z(c->plan, in, out) : lib->exec_r2c(c->plan, in, out);
	} else {
		call = f64 ? "cufftExecZ2Z" : "cufftExecC2C";
		r = f64 ? lib->exec_z2z(c->plan, in, out, dir) : lib->exec_c2c(c->plan, in, out, dir);
	}
	if (r != CUFFT_SUCCESS)
		return cufft_fail(lib, r, call, err, errlen);
	return PB_OK;
}

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static const char *kind_name(int kind, int f64)
{
	switch (kind) {
	case PB_CUFFT_FORWARD:
		return f64 ? "Z2Z forward" : "C2C forward";
	case PB_CUFFT_BACKWARD:
		return f64 ? "Z2Z inverse" : "C2C inverse";
	}
	return f64 ? "D2Z" : "R2C";
}

/*
 * cufft_job prepares params[1] transforms of rank nparams−2 (params[2]
 * points, or params[2] rows × params[3] columns, row-major), contiguous one
 * after another, out of place, in F32 (complex64) or F64 (complex128): one
 * cufftPlanMany, made here on the device's stream; reported[0] is the time
 * it took. Arguments: 0 the input (interleaved complex; reals for R2C), 1
 * the output (interleaved complex; R2C: each row's n/2+1 outputs).
 */
static pb_status cufft_job(void *handle, pb_gpu_dtype dt, const int64_t *params, int nparams,
                           const pb_gpu_job_opts *opts, pb_gpu_job **out, int64_t *reported,
                           int nreported, char *err, size_t errlen)
{
	pb_cufft *lib = handle;
	if (nparams < 3 || nparams > 4)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "cufft: %d parameters; want kind, batch and 1 or 2 dimensions", nparams);
	int rank = nparams - 2;
	if (params[0] != PB_CUFFT_FORWARD && params[0] != PB_CUFFT_BACKWARD &&
	    params[0] != PB_CUFFT_R2C)
		return pb_fail(PB_ERR_INVALID, err, errlen, "cufft: bad transform %lld",
		               (long long)params[0]);
	for (int i = 1; i < nparams; i++)
		if (params[i] < 1 || params[i] > INT_MAX)
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "cufft: bad shape: %s %lld outside [1, 2³¹−1]",
			               i == 1 ? "batch" : "dimension", (long long)params[i]);
	int kind = (int)params[0];
	int batch = (int)params[1];
	const int dims[2] = {(int)params[2], rank == 2 ? (int)params[3] : 1};
	if (dt != PB_GPU_F32 && dt != PB_GPU_F64)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cufft: %s: only f32 (complex64) and f64 (complex128)",
		               pb_gpu_dtype_name(dt));
	int f64 = dt == PB_GPU_F64;
	int n[2] = {dims[0], dims[1]};
	int last = n[rank - 1];
	long long rows = rank == 2 ? n[0] : 1;
	long long in_pts = rows * last;                                     /* per transform */
	long long out_pts = kind == PB_CUFFT_R2C ? rows * (last / 2 + 1) : in_pts; /* complex */
	/*
	 * cufftPlanMany's distances and batch are ints, and its 32-bit plans
	 * address at most 2³¹−1 elements a side (larger ones take
	 * cufftMakePlanMany64, which this job does not use).
	 */
	long long in_len = (kind == PB_CUFFT_R2C ? 1 : 2) * in_pts * batch; /* reals */
	long long out_len = 2 * out_pts * batch;
	if (in_pts * batch > INT_MAX || out_pts * batch > INT_MAX)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cufft: %d transforms of %lld points exceed the 2³¹−1 elements of "
		               "cufftPlanMany's 32-bit plans",
		               batch, in_pts);
	char shape[64];
	if (rank == 2)
		snprintf(shape, sizeof shape, "%dx%dx%d:2d", batch, n[0], n[1]);
	else
		snprintf(shape, sizeof shape, "%dx%d", batch, n[0]);
	char what[160];
	snprintf(what, sizeof what, "cufft %s %s %s", kind_name(kind, f64), pb_gpu_dtype_name(dt),
	         shape);
	size_t lens[2] = {(size_t)in_len, (size_t)out_len};
	pb_gpu_dtype dts[2] = {dt, dt};
	pb_gpu_job *j;
	pb_status st = pb_gpu_job_alloc(lib->gpu, 2, lens, dts, 1, opts, what, &j, err, errlen);
	if (st != PB_OK)
		return st;
	cufft_ctx *c = calloc(1, sizeof *c);
	if (c == NULL) {
		pb_gpu_job_free(j);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "cufft: out of memory");
	}
	j->dev.lib = lib;
	j->ctx = c;
	j->destroy = cufft_destroy;
	j->iter = cufft_iter;
	j->p[0] = kind;
	int type = kind == PB_CUFFT_R2C ? (f64 ? CUFFT_D2Z : CUFFT_R2C) : (f64 ? CUFFT_Z2Z : CUFFT_C2C);
	/* the input's distance counts its own elements: reals for R2C, complex values otherwise */
	int64_t t0 = now_ns();
	int r = lib->plan_many(&c->plan, rank, n, NULL, 1, (int)in_pts, NULL, 1, (int)out_pts, type,
	                       batch);
	int64_t t1 = now_ns();
	const char *call = "cufftPlanMany";
	if (r == CUFFT_SUCCESS) {
		c->planned = 1;
		call = "cufftSetStream";
		r = lib->set_stream(c->plan, lib->gpu->stream);
	}
	if (r != CUFFT_SUCCESS) {
		st = cufft_fail(lib, r, call, err, errlen);
		pb_gpu_job_free(j);
		return st;
	}
	if (nreported > 0)
		reported[0] = t1 - t0;
	snprintf(j->desc, sizeof j->desc, "cufft %d.%d.%d cufftPlanMany %s %s %s on %s (%d cop%s)",
	         lib->version / 1000, lib->version % 1000 / 100, lib->version % 100,
	         kind_name(kind, f64), pb_gpu_dtype_name(dt), shape, lib->gpu->label, j->copies,
	         j->copies == 1 ? "y" : "ies");
	*out = j;
	return PB_OK;
}

static pb_gpu_libdef cufft_def = {
	.name = "cufft",
	.vendor = PB_GPU_CUDA,
	.search = &cufft_lib,
	.open = cufft_open,
	.info = cufft_info,
	.close = cufft_close,
	.job = cufft_job,
};
PB_GPU_REGISTER(cufft_def)
