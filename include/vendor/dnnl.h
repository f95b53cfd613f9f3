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
#define dnnl_f16 1
#define dnnl_bf16 2
#define dnnl_f32 3
#define dnnl_s32 4
#define dnnl_s8 5
#define dnnl_u8 6

typedef int dnnl_format_tag_t;
#define dnnl_a 2
#define dnnl_ab 3
#define dnnl_ba 22

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

/*
 * The layer primitives (native/onednn_layers.c). Values of oneDNN 2.6.3's
 * dnnl_types.h, each printed by a program compiled against the installed
 * headers (/usr/include/oneapi/dnnl, libdnnl-dev 2.6.3):
 *
 *   dnnl_format_tag_any 1, dnnl_abc 4, dnnl_abcd 5, dnnl_abcde 7,
 *   dnnl_acb 17, dnnl_acdb 20, dnnl_acdeb 21 (ncw/oiw, nchw/oihw,
 *   ncdhw/oidhw; nwc/owi, nhwc/ohwi, ndhwc/odhwi are the same values)
 *   dnnl_convolution_direct 1, winograd 2, auto 3
 *   dnnl_pooling_max 0x1ff, avg_include_padding 0x2ff, avg_exclude_padding 0x3ff
 *   dnnl_use_global_stats 0x1, dnnl_use_scale 0x8, dnnl_use_shift 0x10
 *   DNNL_ARG_WEIGHTS 33, MEAN 49, VARIANCE 50, SCALE 51, SHIFT 52,
 *   WORKSPACE 64, FROM 1, TO 17
 *   dnnl_query_weights_md 131, dnnl_query_exec_arg_md 255,
 *   dnnl_query_scratchpad_md 136, DNNL_ARG_SCRATCHPAD 80, dnnl_scratchpad_mode_user 1
 *
 * In 2.6 a convolution descriptor is 5976 bytes, pooling_v2 3288, batch
 * and layer normalization 3496: pb_dnnl_layer_desc_t reserves 8 KiB.
 */
#define dnnl_format_tag_any 1
#define dnnl_abc 4
#define dnnl_abcd 5
#define dnnl_abcde 7
#define dnnl_acb 17
#define dnnl_acdb 20
#define dnnl_acdeb 21

#define dnnl_convolution_direct 0x1
#define dnnl_convolution_winograd 0x2
#define dnnl_convolution_auto 0x3
#define dnnl_pooling_max 0x1ff
#define dnnl_pooling_avg_include_padding 0x2ff
#define dnnl_pooling_avg_exclude_padding 0x3ff

#define dnnl_use_global_stats 0x1u
#define dnnl_use_scale 0x8u
#define dnnl_use_shift 0x10u

#define DNNL_ARG_WEIGHTS 33
#define DNNL_ARG_MEAN 49
#define DNNL_ARG_VARIANCE 50
#define DNNL_ARG_SCALE 51
#define DNNL_ARG_SHIFT 52
#define DNNL_ARG_WORKSPACE 64
#define DNNL_ARG_FROM 1
#define DNNL_ARG_TO 17

#define dnnl_query_weights_md 131
#define dnnl_query_scratchpad_md 136
#define dnnl_query_exec_arg_md 255

/*
 * Scratchpad. In the default mode (library) a primitive's scratchpad is a
 * thread-local buffer of the thread that created it, which another thread
 * executing it does not have (it crashed: Go runs cgo calls on any thread),
 * so the layer jobs own theirs (mode user, dnnl_scratchpad_mode_user 1,
 * DNNL_ARG_SCRATCHPAD 80, dnnl_query_scratchpad_md 136).
 */
#define dnnl_scratchpad_mode_user 1
#define DNNL_ARG_SCRATCHPAD 80
typedef struct dnnl_primitive_attr *dnnl_primitive_attr_t;
typedef dnnl_status_t (*dnnl_primitive_attr_create_fn)(dnnl_primitive_attr_t *attr);
typedef dnnl_status_t (*dnnl_primitive_attr_destroy_fn)(dnnl_primitive_attr_t attr);
typedef dnnl_status_t (*dnnl_primitive_attr_set_scratchpad_mode_fn)(dnnl_primitive_attr_t attr,
                                                                    int mode);

typedef struct {
	_Alignas(8) unsigned char bytes[8192];
} pb_dnnl_layer_desc_t;

typedef dnnl_status_t (*dnnl_dilated_convolution_forward_desc_init_fn)(
	pb_dnnl_layer_desc_t *desc, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg,
	const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *weights,
	const dnnl_memory_desc_t *bias, const dnnl_memory_desc_t *dst, const dnnl_dims_t strides,
	const dnnl_dims_t dilates, const dnnl_dims_t padding_l, const dnnl_dims_t padding_r);
typedef dnnl_status_t (*dnnl_pooling_v2_forward_desc_init_fn)(
	pb_dnnl_layer_desc_t *desc, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg,
	const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst, const dnnl_dims_t strides,
	const dnnl_dims_t kernel, const dnnl_dims_t dilation, const dnnl_dims_t padding_l,
	const dnnl_dims_t padding_r);
typedef dnnl_status_t (*dnnl_batch_normalization_forward_desc_init_fn)(
	pb_dnnl_layer_desc_t *desc, dnnl_prop_kind_t prop, const dnnl_memory_desc_t *data,
	float epsilon, unsigned flags);
typedef dnnl_status_t (*dnnl_layer_normalization_forward_desc_init_fn)(
	pb_dnnl_layer_desc_t *desc, dnnl_prop_kind_t prop, const dnnl_memory_desc_t *data,
	const dnnl_memory_desc_t *stat, float epsilon, unsigned flags);
typedef dnnl_status_t (*dnnl_reorder_primitive_desc_create_fn)(
	dnnl_primitive_desc_t *pd, const dnnl_memory_desc_t *src, dnnl_engine_t src_engine,
	const dnnl_memory_desc_t *dst, dnnl_engine_t dst_engine, const void *attr);
typedef const dnnl_memory_desc_t *(*dnnl_primitive_desc_query_md_fn)(const void *pd,
                                                                      dnnl_query_t what,
                                                                      int index);
typedef int (*dnnl_memory_desc_equal_fn)(const dnnl_memory_desc_t *a,
                                         const dnnl_memory_desc_t *b);
typedef size_t (*dnnl_memory_desc_get_size_fn)(const dnnl_memory_desc_t *md);

/*
 * The matmul primitive (native/onednn_matmul.c). Values of oneDNN 2.6.3's
 * dnnl_types.h, printed by a program compiled against the installed
 * headers: dnnl_f16 1, dnnl_bf16 2, dnnl_f32 3, dnnl_s32 4, dnnl_s8 5,
 * dnnl_u8 6 (above); dnnl_ba 22 (a transposed matrix: dims {rows, cols},
 * strides {1, rows}). In 2.6 a dnnl_matmul_desc_t is 2800 bytes: it fits
 * pb_dnnl_op_desc_t.
 */
typedef dnnl_status_t (*dnnl_matmul_desc_init_fn)(pb_dnnl_op_desc_t *desc,
                                                  const dnnl_memory_desc_t *src,
                                                  const dnnl_memory_desc_t *weights,
                                                  const dnnl_memory_desc_t *bias,
                                                  const dnnl_memory_desc_t *dst);

/*
 * Quantization reorders (native/onednn_reorder.c): oneDNN 2.x's output
 * scales and zero points, set on the attributes before the primitive
 * descriptor is made (3.0 replaced output scales with per-argument scales
 * given at execution). The reorder computes dst = saturate(rne(scale ·
 * (src − zp_src) + zp_dst)) in f32; DNNL_ARG_FROM 1 and DNNL_ARG_TO 17
 * (above) name its src and dst.
 */
typedef dnnl_status_t (*dnnl_primitive_attr_set_output_scales_fn)(dnnl_primitive_attr_t attr,
                                                                  dnnl_dim_t count, int mask,
                                                                  const float *scales);
typedef dnnl_status_t (*dnnl_primitive_attr_set_zero_points_fn)(dnnl_primitive_attr_t attr,
                                                                int arg, dnnl_dim_t count,
                                                                int mask,
                                                                const int32_t *zero_points);

#endif
