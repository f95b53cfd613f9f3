/*
 * pb_gpu.h — what the GPU files of native/ share and C users do not see:
 * the runtime table that hides CUDA and HIP behind one set of calls
 * (gpu_runtime.c), devices (gpu_device.c), jobs on device buffers
 * (gpu_job.c), the library search (gpu_search.c), and the element types'
 * sizes and names (gpu_dtype.c). cuda.c, cublas.c, cudnn.c, cudnn_conv.c
 * and rocblas.c are the libraries.
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
/*
 * pb_gpu_check_device fails, with "cuda:N: no such device (…)" and
 * PB_GPU_CODE_INVALID_DEVICE in *code, unless rt has device.
 */
pb_status pb_gpu_check_device(pb_gpu_rt *rt, int device, int *code, char *err, size_t errlen);
/* pb_gpu_enter makes gpu's device current on the calling thread. */
pb_status pb_gpu_enter(const pb_gpu *gpu, char *err, size_t errlen);
/* pb_gpu_bytes writes n bytes as "12.0 GiB", "512 MiB", ... into buf. */
const char *pb_gpu_bytes(double n, char *buf, size_t len);

/* Jobs on a device: the device place of the job contract (gpu_job.c, pb_internal.h). */

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
                           pb_job **out, char *err, size_t errlen);
/* pb_gpu_job_scratch allocates workspace i (bytes may be 0: nothing), replacing one made before. */
pb_status pb_gpu_job_scratch(pb_job *job, int i, size_t bytes, char *err, size_t errlen);

/* Element sizes and names (the conversions are pb_internal.h's, shared with host jobs). */
size_t pb_gpu_dtype_size(pb_gpu_dtype dt);
const char *pb_gpu_dtype_name(pb_gpu_dtype dt);

/* The library search */

/* Which folders to search besides the dynamic linker's own path. */
enum {
	PB_SEARCH_CUDA = 1, /* CUDA_HOME, CUDA_PATH, /usr/local/cuda*, pip's nvidia/<pkg>/lib */
	PB_SEARCH_ROCM = 2  /* ROCM_PATH, /opt/rocm* */
};

/*
 * A GPU library as the search sees it: each library file of native/ (cuda.c,
 * cublas.c, cudnn.c, rocblas.c) describes its own with one of these and a
 * pb_sym table of the symbols it requires or can do without.
 */
typedef struct pb_gpu_lib {
	const char *name;              /* "libcublas": starts the not-found message */
	const char *env;               /* the override variable, e.g. "PEAKBENCH_CUBLAS" */
	const char *const *sonames;    /* tried in order, newest first (NULL-terminated) */
	int search;                    /* PB_SEARCH_*: folders besides the linker's path */
	const char *const *companions; /* loaded from a candidate's folder first (may be NULL) */
} pb_gpu_lib;

/*
 * pb_gpu_lib_open loads lib through pb_dl_search: path, when not empty,
 * alone (no override, no search); else the override variable's file, or
 * each soname (order, when not NULL, in place of lib->sonames) as is and in
 * the folders of lib->search. accept and *index are as for pb_dl_search.
 */
pb_status pb_gpu_lib_open(const pb_gpu_lib *lib, const char *path, const char *const *order,
                          pb_dl_accept_fn accept, void *accept_arg, void **handle, int *index,
                          char *out_path, size_t pathlen, char *tried, size_t triedlen, char *err,
                          size_t errlen);

/* cuda.c / rocblas.c: the runtime tables. */
pb_status pb_cuda_load(pb_gpu_rt *rt, const char *path, int *code, char *tried, size_t triedlen,
                       char *err, size_t errlen);
pb_status pb_hip_load(pb_gpu_rt *rt, const char *path, int *code, char *tried, size_t triedlen,
                      char *err, size_t errlen);

#endif /* PB_GPU_H */
