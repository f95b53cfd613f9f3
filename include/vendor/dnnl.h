/*
 * Our own declarations of the oneDNN 2.x C API calls we make, with the enum
 * VALUES of oneDNN 2.6's dnnl_types.h. They differ between major versions
 * (3.0 replaced the *_desc_init calls and renumbered algorithms), so the
 * loader reads dnnl_version() and refuses any major version but 2. Values
 * checked against oneDNN 2.6.3's headers by printing each constant from a
 * program compiled with them (not needed to build peakbench):
 *
 *   dnnl_success 0 ... dnnl_not_required 6   dnnl_f32 3 (no f64 in 2.x)
 *   dnnl_a 2, dnnl_ab 3                      dnnl_forward_inference 96
 *   dnnl_eltwise_relu 0x1f, tanh 0x2f, linear 0x7f, logistic 0xaf, exp 0xbf
 *   dnnl_binary_add 0x1fff0, mul 0x1fff1     dnnl_reduction_max 0x2fff2, sum 0x2fff4
 *   dnnl_cpu 1, dnnl_stream_default_flags 1  DNNL_ARG_SRC 1, SRC_1 2, DST 17
 *   dnnl_query_impl_info_str 8               DNNL_RUNTIME_SEQ 1, OMP 2, TBB 4, THREADPOOL 8
 *
 * Descriptors are opaque storage here: in 2.6 a dnnl_memory_desc_t is 696
 * bytes and the largest op descriptor we use (binary) 2096; we reserve
 * more, aligned to 8, since the library writes only its own size.
 */
#ifndef PB_VENDOR_DNNL_H
#define PB_VENDOR_DNNL_H

#include <stddef.h>
#include <stdint.h>

typedef int dnnl_status_t;
#define dnnl_success 0
#define dnnl_out_of_memory 1
#define dnnl_invalid_arguments 2
#define dnnl_unimplemented 3
#define dnnl_iterator_ends 4
#define dnnl_runtime_error 5
#define dnnl_not_required 6

typedef int dnnl_data_type_t;
#define dnnl_f32 3

typedef int dnnl_format_tag_t;
#define dnnl_a 2
#define dnnl_ab 3

typedef int dnnl_prop_kind_t;
#define dnnl_forward_inference 96

typedef int dnnl_alg_kind_t;
#define dnnl_eltwise_relu 0x1f
#define dnnl_eltwise_tanh 0x2f
#define dnnl_eltwise_linear 0x7f
#define dnnl_eltwise_logistic 0xaf
#define dnnl_eltwise_exp 0xbf
#define dnnl_binary_add 0x1fff0
#define dnnl_binary_mul 0x1fff1
#define dnnl_reduction_max 0x2fff2
#define dnnl_reduction_sum 0x2fff4

typedef int dnnl_engine_kind_t;
#define dnnl_cpu 1

#define dnnl_stream_default_flags 1u

typedef int dnnl_query_t;
#define dnnl_query_impl_info_str 8

#define DNNL_ARG_SRC 1
#define DNNL_ARG_SRC_1 2
#define DNNL_ARG_DST 17

#define DNNL_RUNTIME_SEQ 1u
#define DNNL_RUNTIME_OMP 2u
#define DNNL_RUNTIME_TBB 4u
#define DNNL_RUNTIME_THREADPOOL 8u

#define DNNL_MAX_NDIMS 12
typedef int64_t dnnl_dim_t;
typedef dnnl_dim_t dnnl_dims_t[DNNL_MAX_NDIMS];

typedef struct {
	_Alignas(8) unsigned char bytes[1024];
} dnnl_memory_desc_t;
typedef struct {
	_Alignas(8) unsigned char bytes[4096];
} pb_dnnl_op_desc_t;

typedef struct dnnl_engine *dnnl_engine_t;
typedef struct dnnl_stream *dnnl_stream_t;
typedef struct dnnl_memory *dnnl_memory_t;
typedef struct dnnl_primitive_desc *dnnl_primitive_desc_t;
typedef struct dnnl_primitive *dnnl_primitive_t;

typedef struct {
	int arg;
	dnnl_memory_t memory;
} dnnl_exec_arg_t;

typedef struct {
	int major;
	int minor;
	int patch;
	const char *hash;
	unsigned cpu_runtime;
	unsigned gpu_runtime;
} dnnl_version_t;

typedef const dnnl_version_t *(*dnnl_version_fn)(void);
typedef dnnl_status_t (*dnnl_engine_create_fn)(dnnl_engine_t *engine, dnnl_engine_kind_t kind,
                                               size_t index);
typedef dnnl_status_t (*dnnl_engine_destroy_fn)(dnnl_engine_t engine);
typedef dnnl_status_t (*dnnl_stream_create_fn)(dnnl_stream_t *stream, dnnl_engine_t engine,
                                               unsigned flags);
typedef dnnl_status_t (*dnnl_stream_wait_fn)(dnnl_stream_t stream);
typedef dnnl_status_t (*dnnl_stream_destroy_fn)(dnnl_stream_t stream);
typedef dnnl_status_t (*dnnl_memory_desc_init_by_tag_fn)(dnnl_memory_desc_t *md, int ndims,
                                                         const dnnl_dims_t dims,
                                                         dnnl_data_type_t dt,
                                                         dnnl_format_tag_t tag);
typedef dnnl_status_t (*dnnl_memory_create_fn)(dnnl_memory_t *mem, const dnnl_memory_desc_t *md,
                                               dnnl_engine_t engine, void *handle);
typedef dnnl_status_t (*dnnl_memory_destroy_fn)(dnnl_memory_t mem);
typedef dnnl_status_t (*dnnl_eltwise_forward_desc_init_fn)(pb_dnnl_op_desc_t *desc,
                                                           dnnl_prop_kind_t prop,
                                                           dnnl_alg_kind_t alg,
                                                           const dnnl_memory_desc_t *data,
                                                           float alpha, float beta);
typedef dnnl_status_t (*dnnl_binary_desc_init_fn)(pb_dnnl_op_desc_t *desc, dnnl_alg_kind_t alg,
                                                  const dnnl_memory_desc_t *src0,
                                                  const dnnl_memory_desc_t *src1,
                                                  const dnnl_memory_desc_t *dst);
typedef dnnl_status_t (*dnnl_reduction_desc_init_fn)(pb_dnnl_op_desc_t *desc, dnnl_alg_kind_t alg,
                                                     const dnnl_memory_desc_t *src,
                                                     const dnnl_memory_desc_t *dst, float p,
                                                     float eps);
typedef dnnl_status_t (*dnnl_softmax_forward_desc_init_fn)(pb_dnnl_op_desc_t *desc,
                                                           dnnl_prop_kind_t prop,
                                                           const dnnl_memory_desc_t *data,
                                                           int axis);
typedef dnnl_status_t (*dnnl_primitive_desc_create_fn)(dnnl_primitive_desc_t *pd,
                                                       const void *op_desc, const void *attr,
                                                       dnnl_engine_t engine,
                                                       const void *hint);
typedef dnnl_status_t (*dnnl_primitive_desc_destroy_fn)(dnnl_primitive_desc_t pd);
typedef dnnl_status_t (*dnnl_primitive_desc_query_fn)(const void *pd, dnnl_query_t what,
                                                      int index, void *result);
typedef dnnl_status_t (*dnnl_primitive_create_fn)(dnnl_primitive_t *prim,
                                                  const void *pd);
typedef dnnl_status_t (*dnnl_primitive_destroy_fn)(dnnl_primitive_t prim);
typedef dnnl_status_t (*dnnl_primitive_execute_fn)(const void *prim, dnnl_stream_t stream,
                                                   int nargs, const dnnl_exec_arg_t *args);

#endif
