/*
 * pb_gpu.h — what the GPU files of native/ share (gpu.c, cuda.c, cublas.c,
 * cudnn.c, rocblas.c) and C users do not see: the runtime table that hides
 * CUDA and HIP behind one set of calls, devices, jobs on device buffers, the
 * library search, and the f16/bf16 conversions.
 */
#ifndef PB_GPU_H
#define PB_GPU_H

#include <stdint.h>

#include "pb_internal.h"

/*
 * The runtime calls peakbench makes, with the shapes CUDA and HIP share:
 * every call returns the runtime's error code (0 on success); streams and
 * events are opaque pointers.
 */
typedef struct pb_gpu_calls {
	int (*get_device_count)(int *count);
	int (*set_device)(int device);
	int (*get_attribute)(int *value, int attr, int device);
	int (*pci_bus_id)(char *id, int len, int device);
	int (*runtime_version)(int *version);
	int (*driver_version)(int *version);
	const char *(*error_string)(int code);
	const char *(*error_name)(int code);
	int (*get_last_error)(void);
	int (*malloc)(void **ptr, size_t size);
	int (*free)(void *ptr);
	int (*mem_get_info)(size_t *free, size_t *total);
	int (*memcpy_async)(void *dst, const void *src, size_t count, int kind, void *stream);
	int (*memset_async)(void *ptr, int value, size_t count, void *stream);
	int (*stream_create)(void **stream, unsigned flags);
	int (*stream_destroy)(void *stream);
	int (*stream_sync)(void *stream);
	int (*event_create)(void **event);
	int (*event_record)(void *event, void *stream);
	int (*event_sync)(void *event);
	int (*event_elapsed)(float *ms, void *start, void *end);
	int (*event_destroy)(void *event);
} pb_gpu_calls;

/* Attribute numbers of the runtime (-1: not queried). */
typedef struct pb_gpu_attrs {
	int clock, sms, mem_clock, bus_width, l2, major, minor;
} pb_gpu_attrs;

struct pb_gpu_rt {
	pb_gpu_vendor vendor;
	const char *prefix; /* "cuda" or "rocm": the device label and message prefix */
	const char *api;    /* "cuda" or "hip": the call prefix in messages */
	void *dl;
	char path[PATH_MAX];
	int version;        /* cudaRuntimeGetVersion / hipRuntimeGetVersion */
	int driver_version; /* 0 when no driver */
	pb_gpu_calls c;
	pb_gpu_attrs attr;
	/* the device name: CUDA reads the property block, HIP hipDeviceGetName */
	int (*device_name)(struct pb_gpu_rt *rt, int device, char *name, size_t len);
	void *props_fn; /* cudaGetDeviceProperties(_v2) or hipDeviceGetName */
};

struct pb_gpu {
	pb_gpu_rt *rt;
	int device;
	void *stream;
	char label[32]; /* "cuda:0" */
};

/* The memcpy directions (equal in CUDA and HIP). */
#define PB_GPU_H2D 1
#define PB_GPU_D2H 2
#define PB_GPU_D2D 3

/* PB_GPU_CALL(rt, "Malloc") names a runtime call in messages: "cudaMalloc", "hipMalloc". */
#define PB_GPU_CALL(rt, name) ((rt)->vendor == PB_GPU_CUDA ? "cuda" name : "hip" name)

/* pb_gpu_fail formats "LABEL: CALL failed: NAME (CODE): TEXT" for a runtime error. */
pb_status pb_gpu_fail(const pb_gpu_rt *rt, const char *label, int code, const char *call,
                      char *err, size_t errlen);
/* pb_gpu_enter makes gpu's device current on the calling thread. */
pb_status pb_gpu_enter(const pb_gpu *gpu, char *err, size_t errlen);
/* pb_gpu_bytes writes n bytes as "12.0 GiB", "512 MiB", ... into buf. */
const char *pb_gpu_bytes(double n, char *buf, size_t len);

/* Jobs */

typedef pb_status (*pb_gpu_iter_fn)(pb_gpu_job *job, int copy, char *err, size_t errlen);
typedef pb_status (*pb_gpu_hook_fn)(pb_gpu_job *job, char *err, size_t errlen);

struct pb_gpu_job {
	pb_gpu *gpu;
	int nargs;
	int output;
	int copies;
	int next;
	int last;
	size_t len[PB_JOB_MAX_ARGS];
	pb_gpu_dtype dt[PB_JOB_MAX_ARGS]; /* storage type of each argument */
	void **dbuf;                      /* device buffers [copy*nargs + arg] */
	void *block;                      /* the one allocation they are carved from */
	void *ev[2];                      /* timing events */

	pb_gpu_iter_fn iter;   /* enqueue one iteration on one copy (required) */
	pb_gpu_hook_fn before; /* before the first event (e.g. the pointer mode) */
	void (*destroy)(pb_gpu_job *job);

	void *lib;
	void *ctx;
	void *scratch[2]; /* device workspaces, freed with the job */
	size_t scratch_bytes[2];
	int64_t p[8];
	double alpha;
	char desc[256];
};

/*
 * pb_gpu_job_alloc makes a job on gpu: nargs device buffers of lens[i]
 * elements of types dts[i] for each copy, zero-filled, carved 256-byte
 * aligned from one device allocation (one cudaMalloc however many copies
 * a cold run rotates through). what names the job in
 * an out-of-memory message ("cublas gemm f32 m=… n=… k=…"). Device memory
 * short of the total is PB_ERR_NOMEM before any allocation is made.
 */
pb_status pb_gpu_job_alloc(pb_gpu *gpu, int nargs, const size_t *lens, const pb_gpu_dtype *dts,
                           int output, const pb_gpu_job_opts *opts, const char *what,
                           pb_gpu_job **out, char *err, size_t errlen);
/* pb_gpu_job_scratch allocates workspace i (bytes may be 0: nothing). */
pb_status pb_gpu_job_scratch(pb_gpu_job *job, int i, size_t bytes, char *err, size_t errlen);

static inline void *pb_gpu_job_buf(const pb_gpu_job *j, int copy, int arg)
{
	return j->dbuf[(size_t)copy * (size_t)j->nargs + (size_t)arg];
}

/* Element sizes, names and conversions. */
size_t pb_gpu_dtype_size(pb_gpu_dtype dt);
const char *pb_gpu_dtype_name(pb_gpu_dtype dt);
/* IEEE binary16 and bfloat16, rounded to nearest, ties to even; NaN stays NaN. */
uint16_t pb_f64_to_f16(double v);
uint16_t pb_f64_to_bf16(double v);
double pb_f16_to_f64(uint16_t h);
double pb_bf16_to_f64(uint16_t b);

/* The library search */

/* Which folders to search besides the dynamic linker's own path. */
enum {
	PB_SEARCH_CUDA = 1, /* CUDA_HOME, CUDA_PATH, /usr/local/cuda*, pip's nvidia/<pkg>/lib */
	PB_SEARCH_ROCM = 2  /* ROCM_PATH, /opt/rocm* */
};

/*
 * pb_gpu_dlopen loads the first loadable candidate for library (e.g.
 * "libcublas"): with env set and non-empty, its value alone; else each of
 * sonames (NULL-terminated, newest first) as is, then in each searched
 * folder where the file exists. Before dlopen'ing a file by path, the files
 * of companions (NULL-terminated sonames, may be NULL) present in the same
 * folder are loaded by full path. *index receives the soname index of the
 * file loaded (-1 for an override). accept, when not NULL, may refuse a
 * loaded candidate (returning nonzero and a reason in why) to go on to the
 * next: the refused handle stays loaded. On failure, err holds
 * "LIBRARY not found (tried: CAND: WHY; ...); searched: ..." and tried one
 * "CAND: WHY" per line.
 */
typedef int (*pb_gpu_accept_fn)(void *dl, const char *path, void *arg, char *why, size_t whylen);

pb_status pb_gpu_dlopen(const char *library, const char *env, const char *const *sonames,
                        int search, const char *const *companions, pb_gpu_accept_fn accept,
                        void *accept_arg, void **handle, int *index, char *path, size_t pathlen,
                        char *tried, size_t triedlen, char *err, size_t errlen);

/* cuda.c / rocblas.c: the runtime tables. */
pb_status pb_cuda_load(pb_gpu_rt *rt, const char *path, int *code, char *tried, size_t triedlen,
                       char *err, size_t errlen);
pb_status pb_hip_load(pb_gpu_rt *rt, const char *path, int *code, char *tried, size_t triedlen,
                      char *err, size_t errlen);

#endif /* PB_GPU_H */
