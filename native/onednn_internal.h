/*
 * onednn_internal.h — the oneDNN handle, shared by onednn.c (loading,
 * eltwise, binary, reduction and softmax jobs), onednn_layers.c
 * (convolution, pooling and normalization jobs), onednn_matmul.c
 * (matmul in f32, bf16, f16, s8 and u8×s8) and onednn_reorder.c
 * (quantize and dequantize as reorders with scales and zero points).
 */
#ifndef PB_ONEDNN_INTERNAL_H
#define PB_ONEDNN_INTERNAL_H

#include "pb_internal.h"
#include "vendor/dnnl.h"
#include "vendor/omp.h"

struct pb_dnnl {
	void *dl;
	char path[PATH_MAX];
	dnnl_version_t version;
	char hash[64];

	dnnl_engine_create_fn engine_create;
	dnnl_engine_destroy_fn engine_destroy;
	dnnl_stream_create_fn stream_create;
	dnnl_stream_wait_fn stream_wait;
	dnnl_stream_destroy_fn stream_destroy;
	dnnl_memory_desc_init_by_tag_fn md_init_by_tag;
	dnnl_memory_create_fn memory_create;
	dnnl_memory_destroy_fn memory_destroy;
	dnnl_eltwise_forward_desc_init_fn eltwise_init;
	dnnl_binary_desc_init_fn binary_init;
	dnnl_reduction_desc_init_fn reduction_init;
	dnnl_softmax_forward_desc_init_fn softmax_init;
	dnnl_primitive_desc_create_fn pd_create;
	dnnl_primitive_desc_destroy_fn pd_destroy;
	dnnl_primitive_desc_query_fn pd_query;
	dnnl_primitive_create_fn prim_create;
	dnnl_primitive_destroy_fn prim_destroy;
	dnnl_primitive_execute_fn prim_execute;
	int (*effective_isa)(void);

	dnnl_engine_t engine;
	omp_set_num_threads_fn omp_set;
	omp_get_max_threads_fn omp_get;
	char omp_path[PATH_MAX];
	int threads;
};

/*
 * pb_dnnl_apply_threads sets oneDNN's OpenMP thread count on the calling
 * thread (a no-op with another CPU runtime); an error when it reads back
 * differently.
 */
pb_status pb_dnnl_apply_threads(const pb_dnnl *lib, int n, char *err, size_t errlen);

/* pb_dnnl_status_str names a dnnl_status_t ("unimplemented", ...). */
const char *pb_dnnl_status_str(dnnl_status_t s);

/*
 * pb_dnnl_execute runs a job's primitive on one copy's arguments, and
 * pb_dnnl_wait waits for its stream: the iteration and the after hook of
 * every oneDNN job. what prefixes the call in messages ("gemm: " or "").
 */
pb_status pb_dnnl_execute(const pb_dnnl *lib, dnnl_primitive_t prim, dnnl_stream_t stream,
                          int nargs, const dnnl_exec_arg_t *args, const char *what, char *err,
                          size_t errlen);
pb_status pb_dnnl_wait(const pb_dnnl *lib, dnnl_stream_t stream, const char *what, char *err,
                       size_t errlen);

/*
 * pb_dnnl_prim_job is a job that runs one primitive on copies of its
 * arguments (the matmul and the quantization reorders): what it holds and
 * its hooks. A job's own struct begins with it, so the hooks take ctx as
 * one. pb_dnnl_prim_hooks sets the four hooks; what prefixes the calls in
 * messages ("gemm: " or "").
 */
typedef struct pb_dnnl_prim_job {
	const pb_dnnl *lib;
	dnnl_primitive_attr_destroy_fn attr_destroy;
	const char *what;
	dnnl_primitive_attr_t attr; /* scratchpad mode user, scales, zero points */
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t prim;
	dnnl_stream_t stream;
	dnnl_memory_t *mems; /* [copy * args + arg], then the scratchpad's */
	size_t nmems;
	dnnl_exec_arg_t *args; /* [copy * nexec + i] */
	int nexec;             /* the primitive's arguments, one more with a scratchpad */
	void *scratch;
} pb_dnnl_prim_job;

void pb_dnnl_prim_hooks(pb_job *j);

#endif /* PB_ONEDNN_INTERNAL_H */
