/*
 * rocblas.c — AMD's HIP runtime (libamdhip64) as a pb_gpu_rt, and rocBLAS
 * gemm (f32, f64) as GPU jobs.
 *
 * HIP mirrors the CUDA runtime call for call, so devices, buffers, streams,
 * events and jobs are gpu_device.c's and gpu_job.c's. rocBLAS is column-major like cuBLAS: the
 * row-major C = op(A)·op(B) is the column-major Cᵀ = op(B)ᵀ·op(A)ᵀ (see
 * cublas.c). Scalars stay on the host (rocBLAS's default pointer mode).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu.h"
#include "vendor/hip.h"
#include "vendor/rocblas.h"

static const char *const hip_sonames[] = {
	"libamdhip64.so.7",
	"libamdhip64.so.6",
	"libamdhip64.so.5",
	NULL,
};

#define HIP_HINT                                                                                \
	"install ROCm (the amdgpu driver and the HIP runtime, /opt/rocm) or set PEAKBENCH_HIP to "   \
	"the path of libamdhip64.so"

static int hip_device_name(pb_gpu_rt *rt, int device, char *name, size_t len)
{
	hipDeviceGetName_fn get;
	memcpy(&get, &rt->props_fn, sizeof get);
	char buf[256];
	memset(buf, 0, sizeof buf);
	int e = get(buf, (int)sizeof buf - 1, device);
	if (e == 0)
		snprintf(name, len, "%s", buf);
	return e;
}

static int hip_accept(void *dl, const char *path, void *arg, char *why, size_t whylen)
{
	pb_gpu_rt *rt = arg;
	pb_gpu_calls *c = &rt->c;
	void *name = NULL;
	pb_sym want[] = {
		{"hipGetDeviceCount", &c->get_device_count, 0},
		{"hipSetDevice", &c->set_device, 0},
		{"hipDeviceGetAttribute", &c->get_attribute, 0},
		{"hipDeviceGetName", &name, 0},
		{"hipDeviceGetPCIBusId", &c->pci_bus_id, 1},
		{"hipRuntimeGetVersion", &c->runtime_version, 0},
		{"hipDriverGetVersion", &c->driver_version, 0},
		{"hipGetErrorString", &c->error_string, 0},
		{"hipGetErrorName", &c->error_name, 0},
		{"hipGetLastError", &c->get_last_error, 0},
		{"hipMalloc", &c->malloc, 0},
		{"hipFree", &c->free, 0},
		{"hipMemGetInfo", &c->mem_get_info, 0},
		{"hipMemcpyAsync", &c->memcpy_async, 0},
		{"hipMemsetAsync", &c->memset_async, 0},
		{"hipStreamCreateWithFlags", &c->stream_create, 0},
		{"hipStreamDestroy", &c->stream_destroy, 0},
		{"hipStreamSynchronize", &c->stream_sync, 0},
		{"hipEventCreate", &c->event_create, 0},
		{"hipEventRecord", &c->event_record, 0},
		{"hipEventSynchronize", &c->event_sync, 0},
		{"hipEventElapsedTime", &c->event_elapsed, 0},
		{"hipEventDestroy", &c->event_destroy, 0},
	};
	pb_sb mb;
	pb_sb_init(&mb, why, whylen);
	pb_sb_printf(&mb, "not a HIP runtime: missing symbol ");
	if (pb_dl_resolve(dl, want, PB_NSYMS(want), &mb) > 0)
		return -1;
	why[0] = '\0';
	rt->dl = dl;
	rt->vendor = PB_GPU_HIP;
	rt->prefix = "rocm";
	rt->api = "hip";
	rt->props_fn = name;
	rt->device_name = hip_device_name;
	snprintf(rt->path, sizeof rt->path, "%s", path);
	rt->version = rt->driver_version = 0;
	c->runtime_version(&rt->version);
	c->driver_version(&rt->driver_version);
	c->get_last_error();
	if (rt->version / 10000000 >= 5) /* the ROCm 5+ attribute numbering */
		rt->attr = (pb_gpu_attrs){
			.clock = hipDeviceAttributeClockRate,
			.sms = hipDeviceAttributeMultiprocessorCount,
			.mem_clock = hipDeviceAttributeMemoryClockRate,
			.bus_width = hipDeviceAttributeMemoryBusWidth,
			.l2 = hipDeviceAttributeL2CacheSize,
			.major = hipDeviceAttributeComputeCapabilityMajor,
			.minor = hipDeviceAttributeComputeCapabilityMinor,
		};
	else
		rt->attr = (pb_gpu_attrs){-1, -1, -1, -1, -1, -1, -1};
	return 0;
}

static const pb_gpu_lib hip_lib = {
	.name = "libamdhip64",
	.env = "PEAKBENCH_HIP",
	.sonames = hip_sonames,
	.search = PB_SEARCH_ROCM,
};

pb_status pb_hip_load(pb_gpu_rt *rt, const char *path, int *code, char *tried, size_t triedlen,
                      char *err, size_t errlen)
{
	(void)code;
	void *dl = NULL;
	char msg[4096];
	pb_status st = pb_gpu_lib_open(&hip_lib, path, NULL, hip_accept, rt, &dl, NULL, rt->path,
	                               sizeof rt->path, tried, triedlen, msg, sizeof msg);
	if (st != PB_OK)
		return pb_fail(st, err, errlen, "rocm: %s; %s", msg, HIP_HINT);
	return PB_OK;
}

/* ---- rocBLAS ---- */

struct pb_rocblas {
	pb_gpu *gpu;
	void *dl;
	char path[PATH_MAX];
	char version[128];
	rocblas_handle h;
	rocblas_create_handle_fn create;
	rocblas_destroy_handle_fn destroy;
	rocblas_set_stream_fn set_stream;
	rocblas_status_to_string_fn status_string;
	rocblas_get_version_string_fn version_string;
	rocblas_sgemm_fn sgemm;
	rocblas_dgemm_fn dgemm;
};

/*
 * Newest first. rocBLAS's SOVERSION does not follow ROCm's version: ROCm 7.x
 * ships .5, 6.x .4, 5.6–5.7 .3, and 5.0–5.5 (rocBLAS 2.42–2.47, SOVERSION
 * 0.1) .0, whose HIP runtime (libamdhip64.so.5) is accepted too.
 */
static const char *const rocblas_sonames[] = {
	"librocblas.so.5",
	"librocblas.so.4",
	"librocblas.so.3",
	"librocblas.so.0",
	NULL,
};

static const pb_gpu_lib rocblas_lib = {
	.name = "librocblas",
	.env = "PEAKBENCH_ROCBLAS",
	.sonames = rocblas_sonames,
	.search = PB_SEARCH_ROCM,
};

#define ROCBLAS_HINT                                                                            \
	"install rocBLAS (ROCm's rocblas package) or set PEAKBENCH_ROCBLAS to the path of "          \
	"librocblas.so"

static pb_status rocblas_fail(const pb_rocblas *lib, int s, const char *call, char *err,
                              size_t errlen)
{
	const char *text = lib->status_string != NULL ? lib->status_string(s) : NULL;
	return pb_fail(PB_ERR_LIBRARY, err, errlen, "rocblas: %s: %s failed (%d): %s",
	               lib->gpu->label, call, s, text != NULL ? text : "unknown rocBLAS status");
}

pb_status pb_rocblas_open(pb_gpu *gpu, const char *path, pb_rocblas **out, char *tried,
                          size_t triedlen, char *err, size_t errlen)
{
	if (gpu == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_rocblas_open: NULL argument");
	*out = NULL;
	if (gpu->rt->vendor != PB_GPU_HIP)
		return pb_fail(PB_ERR_INVALID, err, errlen, "rocblas: %s is not a HIP device", gpu->label);
	pb_rocblas *lib = calloc(1, sizeof *lib);
	if (lib == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "rocblas: out of memory");
	lib->gpu = gpu;
	char msg[4096];
	pb_status st = pb_gpu_lib_open(&rocblas_lib, path, NULL, NULL, NULL, &lib->dl, NULL, lib->path,
	                               sizeof lib->path, tried, triedlen, msg, sizeof msg);
	if (st != PB_OK) {
		free(lib);
		return pb_fail(st, err, errlen, "rocblas: %s; %s", msg, ROCBLAS_HINT);
	}
	pb_sym syms[] = {
		{"rocblas_create_handle", &lib->create, 0},
		{"rocblas_destroy_handle", &lib->destroy, 0},
		{"rocblas_set_stream", &lib->set_stream, 0},
		{"rocblas_status_to_string", &lib->status_string, 1},
		{"rocblas_get_version_string", &lib->version_string, 1},
		{"rocblas_sgemm", &lib->sgemm, 0},
		{"rocblas_dgemm", &lib->dgemm, 0},
	};
	char missing[512];
	pb_sb mb;
	pb_sb_init(&mb, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, syms, PB_NSYMS(syms), &mb) > 0) {
		st = pb_fail(PB_ERR_SYMBOL, err, errlen, "rocblas: %s is not rocBLAS: missing symbol %s", lib->path,
		             missing);
		free(lib);
		return st;
	}
	snprintf(lib->version, sizeof lib->version, "unknown");
	if (lib->version_string != NULL &&
	    lib->version_string(lib->version, sizeof lib->version) != rocblas_status_success)
		snprintf(lib->version, sizeof lib->version, "unknown");
	st = pb_gpu_enter(gpu, err, errlen);
	if (st != PB_OK) {
		free(lib);
		return st;
	}
	int s = lib->create(&lib->h);
	if (s != rocblas_status_success) {
		st = rocblas_fail(lib, s, "rocblas_create_handle", err, errlen);
		free(lib);
		return st;
	}
	s = lib->set_stream(lib->h, gpu->stream);
	if (s != rocblas_status_success) {
		st = rocblas_fail(lib, s, "rocblas_set_stream", err, errlen);
		lib->destroy(lib->h);
		free(lib);
		return st;
	}
	*out = lib;
	return PB_OK;
}

pb_status pb_rocblas_info(const pb_rocblas *lib, char *buf, size_t buflen, char *err,
                          size_t errlen)
{
	if (lib == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_rocblas_info: NULL argument");
	pb_sb sb;
	pb_sb_init(&sb, buf, buflen);
	pb_sb_printf(&sb, "version=%s\npath=%s\n", lib->version, lib->path);
	return PB_OK;
}

void pb_rocblas_close(pb_rocblas *lib)
{
	if (lib == NULL)
		return;
	if (pb_gpu_enter(lib->gpu, NULL, 0) == PB_OK)
		lib->destroy(lib->h);
	free(lib);
}

static pb_status gemm_iter(pb_gpu_job *j, int c, char *err, size_t errlen)
{
	pb_rocblas *lib = j->dev.lib;
	int m = (int)j->p[0], n = (int)j->p[1], k = (int)j->p[2];
	int ta = (int)j->p[3], tb = (int)j->p[4];
	const void *A = pb_job_buf(j, c, 0), *B = pb_job_buf(j, c, 1);
	void *C = pb_job_buf(j, c, 2);
	/* column-major Cᵀ (n×m) = op(B)ᵀ (n×k) · op(A)ᵀ (k×m) */
	int opb = tb ? rocblas_operation_transpose : rocblas_operation_none, ldb = tb ? k : n;
	int opa = ta ? rocblas_operation_transpose : rocblas_operation_none, lda = ta ? m : k;
	int s;
	if (j->dev.dt[2] == PB_GPU_F64) {
		const double one = 1, zero = 0;
		s = lib->dgemm(lib->h, opb, opa, n, m, k, &one, B, ldb, A, lda, &zero, C, n);
	} else {
		const float one = 1, zero = 0;
		s = lib->sgemm(lib->h, opb, opa, n, m, k, &one, B, ldb, A, lda, &zero, C, n);
	}
	if (s != rocblas_status_success)
		return rocblas_fail(lib, s, j->dev.dt[2] == PB_GPU_F64 ? "rocblas_dgemm" : "rocblas_sgemm",
		                    err, errlen);
	return PB_OK;
}

pb_status pb_rocblas_job_gemm(pb_rocblas *lib, pb_gpu_dtype dt, pb_trans ta, pb_trans tb, int m,
                              int n, int k, const pb_gpu_job_opts *opts, pb_gpu_job **out,
                              char *err, size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_rocblas_job_gemm: NULL argument");
	*out = NULL;
	if (dt != PB_GPU_F32 && dt != PB_GPU_F64)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "rocblas: gemm %s: only f32 and f64",
		               pb_gpu_dtype_name(dt));
	if (m < 1 || n < 1 || k < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "rocblas: gemm: dimensions m=%d n=%d k=%d must be at least 1", m, n, k);
	char what[160];
	snprintf(what, sizeof what, "rocblas gemm %s m=%d n=%d k=%d", pb_gpu_dtype_name(dt), m, n, k);
	size_t lens[3] = {(size_t)m * (size_t)k, (size_t)k * (size_t)n, (size_t)m * (size_t)n};
	pb_gpu_dtype dts[3] = {dt, dt, dt};
	pb_gpu_job *j;
	pb_status st = pb_gpu_job_alloc(lib->gpu, 3, lens, dts, 2, opts, what, &j, err, errlen);
	if (st != PB_OK)
		return st;
	j->dev.lib = lib;
	j->iter = gemm_iter;
	j->p[0] = m;
	j->p[1] = n;
	j->p[2] = k;
	j->p[3] = ta != PB_NO_TRANS;
	j->p[4] = tb != PB_NO_TRANS;
	snprintf(j->desc, sizeof j->desc, "rocblas %s %s %c%c m=%d n=%d k=%d on %s (%d cop%s)",
	         lib->version, dt == PB_GPU_F64 ? "rocblas_dgemm" : "rocblas_sgemm", ta ? 'T' : 'N',
	         tb ? 'T' : 'N', m, n, k, lib->gpu->label, j->copies, j->copies == 1 ? "y" : "ies");
	*out = j;
	return PB_OK;
}
