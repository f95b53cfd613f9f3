/*
 * pb_gpu_registry.h — how a GPU library of native/ makes itself known: one
 * pb_gpu_libdef row, registered by PB_GPU_REGISTER from the library's own
 * file, and nothing in any other file. gpu_registry.c keeps the rows and
 * serves include/peakbench.h's pb_gpu_vlib_* calls from them.
 *
 *	static pb_gpu_libdef cufft_def = {
 *		.name = "cufft", .vendor = PB_GPU_CUDA, .search = &cufft_lib,
 *		.open = cufft_open, .info = cufft_info, .close = cufft_close, .job = cufft_job,
 *	};
 *	PB_GPU_REGISTER(cufft_def)
 */
#ifndef PB_GPU_REGISTRY_H
#define PB_GPU_REGISTRY_H

#include "pb_gpu.h"

typedef struct pb_gpu_libdef {
	const char *name;          /* what pb_gpu_vlib_open is asked for: "cufft" */
	pb_gpu_vendor vendor;      /* the runtime its devices must be of */
	const pb_gpu_lib *search;  /* its file, override variable and search (pb_gpu_lib_open) */
	/*
	 * open loads the library on gpu (already checked to be of vendor) and
	 * makes *lib, its own handle; path, tried and err are as for
	 * pb_gpu_vlib_open.
	 */
	pb_status (*open)(pb_gpu *gpu, const char *path, void **lib, char *tried, size_t triedlen,
	                  char *err, size_t errlen);
	/* info writes key=value lines: version and path at least. */
	pb_status (*info)(const void *lib, char *buf, size_t buflen, char *err, size_t errlen);
	void (*close)(void *lib);
	/*
	 * job makes a job from params (their meaning the library's; the
	 * registry checks nothing but the pointers) and fills reported[0 ..
	 * nreported), zeroed before the call, with what it says of the job.
	 */
	pb_status (*job)(void *lib, pb_gpu_dtype dt, const int64_t *params, int nparams,
	                 const pb_gpu_job_opts *opts, pb_gpu_job **out, int64_t *reported,
	                 int nreported, char *err, size_t errlen);
	struct pb_gpu_libdef *next; /* the registry's list; set by pb_gpu_register */
} pb_gpu_libdef;

/* pb_gpu_register adds def; a second row of the same name makes that name fail to open. */
void pb_gpu_register(pb_gpu_libdef *def);

/* PB_GPU_REGISTER(def) registers def when the program (or test) starts, before main. */
#define PB_GPU_REGISTER(def)                                                                    \
	__attribute__((constructor)) static void pb_gpu_register_##def(void)                        \
	{                                                                                           \
		pb_gpu_register(&def);                                                                  \
	}

#endif /* PB_GPU_REGISTRY_H */
