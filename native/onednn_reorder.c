/*
 * onednn_reorder.c — quantize and dequantize as oneDNN 2.x reorders with
 * output scales and zero points: f32 → s8/u8 and back, per tensor or with
 * a scale per row (per channel).
 *
 * What oneDNN computes (2.6's jit:uni reorder, which it picks on the Intel
 * VM uncapped and under ONEDNN_MAX_CPU_ISA=AVX2 and SSE41 alike):
 * dst = saturate(rne(f32(scale · (src − zp_src)) + zp_dst)), the zero point
 * added in f32 before the rounding. peakbench's quantize is
 * rne(fl32(x · fl32(1/scale))) + zp: the multiplier is given as 1/scale
 * rounded to f32, so the two agree but where x · (1/scale) is a
 * half-integer (or within the f32 rounding of the sum): oneDNN rounds
 * p + zp to even, we round p, which differs by one step for an odd zero
 * point; the workload's verification forgives one step there and counts
 * such elements. Dequantize is exact: q − zp is a small integer, exact in
 * f32, times the scale rounds once.
 *
 * Zero points: oneDNN 2.6 takes one per tensor (dnnl_primitive_attr_set_
 * zero_points refuses a per-channel mask with dnnl_unimplemented). A
 * per-channel job whose rows share one zero point (every i8 one: they are
 * 0) passes it once; other rows are refused as unsupported, with why.
 *
 * Threads and scratchpad are as for the matmul (onednn_matmul.c): the
 * job's thread count applied before each run, a scratchpad of the job's
 * own (mode user).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn_internal.h"

typedef struct reorder_fns {
	dnnl_reorder_primitive_desc_create_fn reorder_pd;
	dnnl_primitive_attr_create_fn attr_create;
	dnnl_primitive_attr_destroy_fn attr_destroy;
	dnnl_primitive_attr_set_scratchpad_mode_fn attr_scratchpad;
	dnnl_primitive_attr_set_output_scales_fn attr_scales;
	dnnl_primitive_attr_set_zero_points_fn attr_zero_points;
	dnnl_primitive_desc_query_md_fn query_md;
	dnnl_memory_desc_get_size_fn md_size;
} reorder_fns;

static pb_status resolve(const pb_dnnl *lib, reorder_fns *f, char *err, size_t errlen)
{
	const pb_sym need[] = {
		{"dnnl_reorder_primitive_desc_create", &f->reorder_pd, 0},
		{"dnnl_primitive_attr_create", &f->attr_create, 0},
		{"dnnl_primitive_attr_destroy", &f->attr_destroy, 0},
		{"dnnl_primitive_attr_set_scratchpad_mode", &f->attr_scratchpad, 0},
		{"dnnl_primitive_attr_set_output_scales", &f->attr_scales, 0},
		{"dnnl_primitive_attr_set_zero_points", &f->attr_zero_points, 0},
		{"dnnl_primitive_desc_query_md", &f->query_md, 0},
		{"dnnl_memory_desc_get_size", &f->md_size, 0},
	};
	char missing[1024];
	pb_sb m;
	pb_sb_init(&m, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, need, PB_NSYMS(need), &m) > 0)
		return pb_fail(PB_ERR_SYMBOL, err, errlen,
		               "onednn: %s (oneDNN %d.%d.%d) lacks %s (the quantization reorders take "
		               "oneDNN 2.x's output scales)",
		               lib->path, lib->version.major, lib->version.minor, lib->version.patch,
		               missing);
	return PB_OK;
}

typedef struct reorder_job {
	pb_dnnl_prim_job p; /* first: the hooks take ctx as one */
	reorder_fns f;
} reorder_job;

/* FAIL and CHECK end pb_dnnl_quant_job with a message naming the op and type. */
#define FAIL(status, fmt, ...)                                                                 \
	do {                                                                                       \
		st = pb_fail(status, err, errlen, "onednn: %s %s: " fmt, opname, tname, ##__VA_ARGS__); \
		goto fail;                                                                             \
	} while (0)

#define CHECK(call, what)                                                                      \
	do {                                                                                       \
		dnnl_status_t s_ = (call);                                                             \
		if (s_ != dnnl_success)                                                                \
			FAIL(s_ == dnnl_unimplemented ? PB_ERR_UNSUPPORTED : PB_ERR_LIBRARY, "%s: %s", what, \
			     pb_dnnl_status_str(s_));                                                      \
	} while (0)

/* set_zero_points gives the attributes the job's zero points, when any is not 0. */
static pb_status set_zero_points(reorder_job *d, int arg, int64_t count, const int32_t *zps,
                                 const char *opname, const char *tname, char *err,
                                 size_t errlen)
{
	int same = 1, zero = 1;
	for (int64_t i = 0; i < count; i++) {
		same &= zps[i] == zps[0];
		zero &= zps[i] == 0;
	}
	if (zero)
		return PB_OK;
	const pb_dnnl *lib = d->p.lib;
	dnnl_status_t s = same ? d->f.attr_zero_points(d->p.attr, arg, 1, 0, zps)
	                       : d->f.attr_zero_points(d->p.attr, arg, count, 1, zps);
	if (s == dnnl_unimplemented && !same)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "onednn: %s %s: oneDNN %d.%d.%d takes one zero point per tensor "
		               "(dnnl_primitive_attr_set_zero_points with a per-channel mask: %s), and "
		               "these %lld channels have different ones",
		               opname, tname, lib->version.major, lib->version.minor, lib->version.patch,
		               pb_dnnl_status_str(s), (long long)count);
	if (s != dnnl_success)
		return pb_fail(s == dnnl_unimplemented ? PB_ERR_UNSUPPORTED : PB_ERR_LIBRARY, err, errlen,
		               "onednn: %s %s: dnnl_primitive_attr_set_zero_points: %s", opname, tname,
		               pb_dnnl_status_str(s));
	return PB_OK;
}

pb_status pb_dnnl_quant_job(pb_dnnl *lib, pb_dnnl_quant_op op, int is_unsigned, int64_t rows,
                            int64_t cols, int per_channel, const float *scales,
                            const int32_t *zero_points, const pb_job_opts *opts, pb_job **out,
                            char *err, size_t errlen)
{
	if (lib == NULL || out == NULL || scales == NULL || zero_points == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dnnl_quant_job: NULL argument");
	*out = NULL;
	if ((int)op < PB_DNNL_QUANTIZE || op > PB_DNNL_DEQUANTIZE)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "onednn: quantization: bad op %d (accepted: 0 quantize, 1 dequantize)",
		               (int)op);
	const char *opname = op == PB_DNNL_QUANTIZE ? "quantize" : "dequantize";
	const char *tname = is_unsigned ? "u8" : "i8";
	if (rows < 1 || cols < 1 || rows > INT64_MAX / cols)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "onednn: %s %s: bad shape %lld×%lld (each at least 1)", opname, tname,
		               (long long)rows, (long long)cols);
	int64_t nscales = per_channel ? rows : 1;
	for (int64_t i = 0; i < nscales; i++)
		if (!(scales[i] > 0) || scales[i] > 3.4e38f)
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "onednn: %s %s: scale %lld is %g (a positive finite value)", opname,
			               tname, (long long)i, (double)scales[i]);
	int threads = opts != NULL ? opts->threads : 0;
	pb_status st;
	if (threads != 0) {
		st = pb_dnnl_set_threads(lib, threads, err, errlen);
		if (st != PB_OK)
			return st;
	} else if (lib->omp_set != NULL) {
		threads = lib->threads;
	}
	if (threads != 0) {
		/* Primitives size their work split by the thread count at creation. */
		st = pb_dnnl_apply_threads(lib, threads, err, errlen);
		if (st != PB_OK)
			return st;
	}

	pb_host_dtype q = is_unsigned ? PB_HOST_U8 : PB_HOST_S8;
	pb_host_dtype types[2] = {PB_HOST_F32, q};
	if (op == PB_DNNL_DEQUANTIZE) {
		types[0] = q;
		types[1] = PB_HOST_F32;
	}
	size_t lens[2] = {(size_t)(rows * cols), (size_t)(rows * cols)};
	pb_job_opts jo = {opts != NULL ? opts->copies : 1, threads};
	st = pb_job_alloc_typed(2, lens, types, 1, &jo, out, err, errlen);
	if (st != PB_OK)
		return st;
	pb_job *j = *out;
	reorder_job *d = calloc(1, sizeof *d);
	float *mult = NULL;
	if (d == NULL) {
		pb_job_free(j);
		*out = NULL;
		return pb_fail(PB_ERR_NOMEM, err, errlen, "onednn: out of memory");
	}
	d->p.lib = lib;
	j->ctx = d;
	pb_dnnl_prim_hooks(j);
	st = resolve(lib, &d->f, err, errlen);
	if (st != PB_OK)
		goto fail;
	d->p.attr_destroy = d->f.attr_destroy;
	d->p.what = "";

	/* A per-channel tensor is 2-D, rows × cols, its scales on dimension 0. */
	dnnl_memory_desc_t md[2];
	memset(md, 0, sizeof md);
	dnnl_dims_t dims = {0};
	int ndims = per_channel ? 2 : 1;
	if (per_channel) {
		dims[0] = rows;
		dims[1] = cols;
	} else {
		dims[0] = rows * cols;
	}
	dnnl_data_type_t qt = is_unsigned ? dnnl_u8 : dnnl_s8;
	dnnl_data_type_t src_t = op == PB_DNNL_QUANTIZE ? dnnl_f32 : qt;
	dnnl_data_type_t dst_t = op == PB_DNNL_QUANTIZE ? qt : dnnl_f32;
	dnnl_format_tag_t tag = per_channel ? dnnl_ab : dnnl_a;
	CHECK(lib->md_init_by_tag(&md[0], ndims, dims, src_t, tag), "memory desc");
	CHECK(lib->md_init_by_tag(&md[1], ndims, dims, dst_t, tag), "memory desc");

	CHECK(d->f.attr_create(&d->p.attr), "dnnl_primitive_attr_create");
	CHECK(d->f.attr_scratchpad(d->p.attr, dnnl_scratchpad_mode_user),
	      "dnnl_primitive_attr_set_scratchpad_mode");
	/* Quantize multiplies by 1/scale rounded to f32, as the workload defines it. */
	mult = malloc((size_t)nscales * sizeof *mult);
	if (mult == NULL)
		FAIL(PB_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; i < nscales; i++)
		mult[i] = op == PB_DNNL_QUANTIZE ? 1.0f / scales[i] : scales[i];
	CHECK(d->f.attr_scales(d->p.attr, nscales, per_channel ? 1 : 0, mult),
	      "dnnl_primitive_attr_set_output_scales");
	free(mult);
	mult = NULL;
	st = set_zero_points(d, op == PB_DNNL_QUANTIZE ? DNNL_ARG_DST : DNNL_ARG_SRC, nscales,
	                     zero_points, opname, tname, err, errlen);
	if (st != PB_OK)
		goto fail;
	dnnl_status_t s = d->f.reorder_pd(&d->p.pd, &md[0], lib->engine, &md[1], lib->engine, d->p.attr);
	if (s == dnnl_unimplemented)
		FAIL(PB_ERR_UNSUPPORTED,
		     "oneDNN %d.%d.%d has no reorder %s → %s with %s scales and zero points "
		     "(dnnl_unimplemented)",
		     lib->version.major, lib->version.minor, lib->version.patch,
		     pb_host_dtype_name(types[0]), pb_host_dtype_name(types[1]),
		     per_channel ? "per-channel" : "per-tensor");
	CHECK(s, "dnnl_reorder_primitive_desc_create");
	CHECK(lib->prim_create(&d->p.prim, d->p.pd), "primitive");
	CHECK(lib->stream_create(&d->p.stream, lib->engine, dnnl_stream_default_flags), "stream");

	const dnnl_memory_desc_t *smd = d->f.query_md(d->p.pd, dnnl_query_scratchpad_md, 0);
	size_t sbytes = smd != NULL ? d->f.md_size(smd) : 0;
	d->p.nexec = sbytes > 0 ? 3 : 2;
	d->p.mems = calloc((size_t)j->copies * 2 + 1, sizeof *d->p.mems);
	d->p.args = calloc((size_t)j->copies * (size_t)d->p.nexec, sizeof *d->p.args);
	if (d->p.mems == NULL || d->p.args == NULL)
		FAIL(PB_ERR_NOMEM, "out of memory");
	dnnl_memory_t scratch = NULL;
	if (sbytes > 0) {
		if (posix_memalign(&d->p.scratch, 64, sbytes) != 0) {
			d->p.scratch = NULL;
			FAIL(PB_ERR_NOMEM, "out of memory (scratchpad of %zu bytes)", sbytes);
		}
		CHECK(lib->memory_create(&scratch, smd, lib->engine, d->p.scratch), "memory");
		d->p.mems[d->p.nmems++] = scratch;
	}
	static const int ids[2] = {DNNL_ARG_FROM, DNNL_ARG_TO};
	for (int c = 0; c < j->copies; c++) {
		dnnl_exec_arg_t *ea = d->p.args + (size_t)c * (size_t)d->p.nexec;
		for (int a = 0; a < 2; a++) {
			dnnl_memory_t mem = NULL;
			CHECK(lib->memory_create(&mem, &md[a], lib->engine, pb_job_buf(j, c, a)), "memory");
			d->p.mems[d->p.nmems++] = mem;
			ea[a] = (dnnl_exec_arg_t){ids[a], mem};
		}
		if (scratch != NULL)
			ea[2] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, scratch};
	}

	const char *impl = NULL;
	if (lib->pd_query(d->p.pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || impl == NULL)
		impl = "unknown";
	snprintf(j->desc, sizeof j->desc, "onednn %s %s %lldx%lld%s impl=%s", opname, tname,
	         (long long)rows, (long long)cols, per_channel ? " per-channel" : "", impl);
	return PB_OK;

fail:
	free(mult);
	pb_job_free(j);
	*out = NULL;
	return st;
}
