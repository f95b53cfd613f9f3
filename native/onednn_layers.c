/*
 * onednn_layers.c — oneDNN 2.x layer primitives as timed jobs: convolution
 * forward (no bias; algorithm auto, direct or winograd), max and average
 * pooling (pooling_v2), batch normalization (inference, global statistics,
 * scale and shift) and layer normalization (scale and shift), f32, on the
 * CPU engine. oneDNN 2.x has no group normalization.
 *
 * Tensors are plain, in the layout the workload gives (nchw or nhwc and
 * their 1-D and 3-D kin): every library measured reads and writes the same
 * layout. The convolution's weights are the one exception: they are given
 * to oneDNN plain (oihw or ohwi) but created with format any, and when the
 * primitive prefers a blocked layout a reorder to it runs before the clock
 * starts on every Run, since inference frameworks reorder constant weights
 * once and cache them.
 *
 * Each job owns its primitives' scratchpad (scratchpad mode user): in the
 * default mode it is a thread-local buffer of the thread that created the
 * primitive, and executing it from another thread — Go makes cgo calls on
 * any — crashed in oneDNN's gemm convolution.
 *
 * The entry points oneDNN 2.x adds for these (the *_desc_init calls of
 * each primitive, reorders, memory descriptor queries) are resolved with
 * pb_dl_resolve on the handle onednn.c opened, when a layer job is first made.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn_internal.h"

typedef struct layer_fns {
	dnnl_dilated_convolution_forward_desc_init_fn conv_init;
	dnnl_pooling_v2_forward_desc_init_fn pool_init;
	dnnl_batch_normalization_forward_desc_init_fn bnorm_init;
	dnnl_layer_normalization_forward_desc_init_fn lnorm_init;
	dnnl_reorder_primitive_desc_create_fn reorder_pd;
	dnnl_primitive_desc_query_md_fn query_md;
	dnnl_memory_desc_equal_fn md_equal;
	dnnl_memory_desc_get_size_fn md_size;
	dnnl_primitive_attr_create_fn attr_create;
	dnnl_primitive_attr_destroy_fn attr_destroy;
	dnnl_primitive_attr_set_scratchpad_mode_fn attr_scratchpad;
} layer_fns;

static pb_status resolve(const pb_dnnl *lib, layer_fns *f, char *err, size_t errlen)
{
	const pb_sym need[] = {
		{"dnnl_dilated_convolution_forward_desc_init", &f->conv_init, 0},
		{"dnnl_pooling_v2_forward_desc_init", &f->pool_init, 0},
		{"dnnl_batch_normalization_forward_desc_init", &f->bnorm_init, 0},
		{"dnnl_layer_normalization_forward_desc_init", &f->lnorm_init, 0},
		{"dnnl_reorder_primitive_desc_create", &f->reorder_pd, 0},
		{"dnnl_primitive_desc_query_md", &f->query_md, 0},
		{"dnnl_memory_desc_equal", &f->md_equal, 0},
		{"dnnl_memory_desc_get_size", &f->md_size, 0},
		{"dnnl_primitive_attr_create", &f->attr_create, 0},
		{"dnnl_primitive_attr_destroy", &f->attr_destroy, 0},
		{"dnnl_primitive_attr_set_scratchpad_mode", &f->attr_scratchpad, 0},
	};
	char missing[1024];
	pb_sb m;
	pb_sb_init(&m, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, need, PB_NSYMS(need), &m) > 0)
		return pb_fail(PB_ERR_SYMBOL, err, errlen, "onednn: %s (oneDNN %d.%d.%d) lacks %s",
		               lib->path, lib->version.major, lib->version.minor, lib->version.patch,
		               missing);
	return PB_OK;
}

#define LJ_MAX_EXEC 8 /* exec arguments per copy */

typedef struct layer_job {
	const pb_dnnl *lib;
	layer_fns f;
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t prim;
	dnnl_stream_t stream;
	int nexec;              /* exec arguments per copy */
	dnnl_exec_arg_t *args;  /* [copy * nexec + i] */
	dnnl_memory_t *mems;    /* every memory made, to destroy */
	size_t nmems;
	void **bufs;            /* every buffer allocated here, to free */
	size_t nbufs;
	dnnl_primitive_attr_t attr; /* scratchpad mode user */
	dnnl_primitive_desc_t rpd; /* the weights reorder, when the primitive wants one */
	dnnl_primitive_t reorder;
	dnnl_exec_arg_t *rargs; /* [copy * 3 + 0 from, 1 to, 2 scratchpad] */
	int nrargs;             /* 2, or 3 with a scratchpad */
} layer_job;

static void layer_destroy(pb_job *j)
{
	layer_job *d = j->ctx;
	if (d == NULL)
		return;
	const pb_dnnl *lib = d->lib;
	for (size_t i = 0; i < d->nmems; i++)
		if (d->mems[i] != NULL)
			lib->memory_destroy(d->mems[i]);
	if (d->reorder != NULL)
		lib->prim_destroy(d->reorder);
	if (d->rpd != NULL)
		lib->pd_destroy(d->rpd);
	if (d->prim != NULL)
		lib->prim_destroy(d->prim);
	if (d->pd != NULL)
		lib->pd_destroy(d->pd);
	if (d->stream != NULL)
		lib->stream_destroy(d->stream);
	if (d->attr != NULL)
		d->f.attr_destroy(d->attr);
	for (size_t i = 0; i < d->nbufs; i++)
		free(d->bufs[i]);
	free(d->bufs);
	free(d->mems);
	free(d->args);
	free(d->rargs);
	free(d);
	j->ctx = NULL;
}

static pb_status layer_iter(pb_job *j, int c, char *err, size_t errlen)
{
	layer_job *d = j->ctx;
	return pb_dnnl_execute(d->lib, d->prim, d->stream, d->nexec,
	                       d->args + (size_t)c * (size_t)d->nexec, "", err, errlen);
}

static pb_status layer_after(pb_job *j, char *err, size_t errlen)
{
	layer_job *d = j->ctx;
	return pb_dnnl_wait(d->lib, d->stream, "", err, errlen);
}

/* layer_before applies the thread count and reorders the weights of every copy. */
static pb_status layer_before(pb_job *j, char *err, size_t errlen)
{
	layer_job *d = j->ctx;
	if (j->threads != 0) {
		pb_status st = pb_dnnl_apply_threads(d->lib, j->threads, err, errlen);
		if (st != PB_OK)
			return st;
	}
	if (d->reorder == NULL)
		return PB_OK;
	for (int c = 0; c < j->copies; c++) {
		dnnl_status_t s = d->lib->prim_execute(d->reorder, d->stream, d->nrargs, d->rargs + 3 * c);
		if (s != dnnl_success)
			return pb_fail(PB_ERR_LIBRARY, err, errlen, "onednn: weights reorder: %s",
			               pb_dnnl_status_str(s));
	}
	return layer_after(j, err, errlen);
}

/* track records a memory or buffer for layer_destroy. */
static int track_mem(layer_job *d, dnnl_memory_t m)
{
	dnnl_memory_t *p = realloc(d->mems, (d->nmems + 1) * sizeof *p);
	if (p == NULL)
		return 0;
	d->mems = p;
	d->mems[d->nmems++] = m;
	return 1;
}

static void *track_buf(layer_job *d, size_t bytes)
{
	void **p = realloc(d->bufs, (d->nbufs + 1) * sizeof *p);
	if (p == NULL)
		return NULL;
	d->bufs = p;
	void *b = NULL;
	if (posix_memalign(&b, 64, bytes > 0 ? bytes : 64) != 0)
		return NULL;
	memset(b, 0, bytes > 0 ? bytes : 64);
	d->bufs[d->nbufs++] = b;
	return b;
}

static const char *const op_names[] = {"conv", "maxpool", "avgpool", "adaptiveavgpool",
                                       "batchnorm", "layernorm", "groupnorm"};

/* plain_tag is the format tag of a plain tensor of ndims dimensions. */
static int plain_tag(int ndims, int nhwc)
{
	switch (ndims) {
	case 1:
		return dnnl_a;
	case 2:
		return dnnl_ab;
	case 3:
		return nhwc ? dnnl_acb : dnnl_abc;
	case 4:
		return nhwc ? dnnl_acdb : dnnl_abcd;
	}
	return nhwc ? dnnl_acdeb : dnnl_abcde;
}

#define CHECK(call, what)                                                                      \
	do {                                                                                       \
		dnnl_status_t s_ = (call);                                                             \
		if (s_ != dnnl_success) {                                                              \
			st = pb_fail(s_ == dnnl_unimplemented ? PB_ERR_UNSUPPORTED : PB_ERR_LIBRARY, err, \
			             errlen, "onednn: %s f32: %s: %s", op_names[op], what,               \
			             pb_dnnl_status_str(s_));                                                     \
			goto fail;                                                                         \
		}                                                                                      \
	} while (0)

#define FAIL(status, ...)                                            \
	do {                                                             \
		st = pb_fail(status, err, errlen, "onednn: " __VA_ARGS__); \
		goto fail;                                                   \
	} while (0)

pb_status pb_dnnl_layer_job(pb_dnnl *lib, pb_dnnl_layer_op op, pb_dtype dt, const pb_layer *g,
                            pb_dnnl_conv_alg alg, float eps, const pb_job_opts *opts,
                            pb_job **out, char *err, size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dnnl_layer_job: NULL argument");
	*out = NULL;
	if ((int)op < PB_DNNL_CONV || op > PB_DNNL_GROUPNORM)
		return pb_fail(PB_ERR_INVALID, err, errlen, "onednn: bad layer op %d", (int)op);
	if ((int)alg < PB_DNNL_CONV_AUTO || alg > PB_DNNL_CONV_WINOGRAD)
		return pb_fail(PB_ERR_INVALID, err, errlen, "onednn: bad convolution algorithm %d",
		               (int)alg);
	if (dt == PB_F64)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "onednn: %s f64: oneDNN %d.x has no f64 data type (f32, bf16, f16 and "
		               "integers only)",
		               op_names[op], lib->version.major);
	if (dt != PB_F32)
		return pb_fail(PB_ERR_INVALID, err, errlen, "bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	if (op == PB_DNNL_GROUPNORM)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "onednn: groupnorm: oneDNN %d.%d has no group normalization primitive "
		               "(oneDNN 3.3 added one)",
		               lib->version.major, lib->version.minor);
	int conv = op == PB_DNNL_CONV;
	pb_status st = pb_layer_check(g, conv, op_names[op], err, errlen);
	if (st != PB_OK)
		return st;
	if ((op != PB_DNNL_BATCHNORM && op != PB_DNNL_LAYERNORM && g->rank < 1) ||
	    (op == PB_DNNL_LAYERNORM && g->nhwc))
		return pb_fail(PB_ERR_INVALID, err, errlen, "onednn: %s: rank %d%s", op_names[op],
		               g->rank, g->nhwc ? ", nhwc" : "");
	int64_t o[3];
	pb_layer_outdims(g, conv, o);
	int64_t kernel[3], stride[3], padl[3], padr[3];
	for (int i = 0; i < 3; i++) {
		kernel[i] = g->window[i];
		stride[i] = g->stride[i];
		padl[i] = g->pad[i];
	}
	if (op == PB_DNNL_ADAPTIVEPOOL) {
		/* An adaptive pooling whose windows tile the input is an avg pool. */
		for (int i = 0; i < 3; i++) {
			if (g->in[i] % g->out[i] != 0)
				return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
				               "onednn: adaptiveavgpool: oneDNN has no adaptive pooling; it is an "
				               "avg pool only when each input extent is a multiple of the "
				               "output's (%lld is not a multiple of %lld)",
				               (long long)g->in[i], (long long)g->out[i]);
			kernel[i] = stride[i] = g->in[i] / g->out[i];
			padl[i] = 0;
			o[i] = g->out[i];
		}
	}
	/* The right padding that makes oneDNN's output extent the floor formula's. */
	for (int i = 0; i < 3; i++) {
		int64_t span = conv ? g->dil[i] * (kernel[i] - 1) + 1 : kernel[i];
		padr[i] = (o[i] - 1) * stride[i] + span - g->in[i] - padl[i];
	}

	int threads = opts != NULL ? opts->threads : 0;
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

	int64_t sp = g->in[0] * g->in[1] * g->in[2];
	int64_t osp = o[0] * o[1] * o[2];
	int64_t oc = conv ? g->k : g->c;
	size_t xlen = (size_t)(g->n * g->c * sp), ylen = (size_t)(g->n * oc * osp);
	size_t lens[6];
	int ids[6];
	int nargs;
	switch (op) {
	case PB_DNNL_CONV:
		nargs = 3;
		lens[1] = (size_t)(g->k * g->c * g->window[0] * g->window[1] * g->window[2]);
		ids[1] = DNNL_ARG_WEIGHTS;
		break;
	case PB_DNNL_BATCHNORM:
		nargs = 6;
		lens[1] = lens[2] = lens[3] = lens[4] = (size_t)g->c;
		ids[1] = DNNL_ARG_MEAN;
		ids[2] = DNNL_ARG_VARIANCE;
		ids[3] = DNNL_ARG_SCALE;
		ids[4] = DNNL_ARG_SHIFT;
		break;
	case PB_DNNL_LAYERNORM:
		nargs = 4;
		lens[1] = lens[2] = (size_t)(g->c * sp);
		ids[1] = DNNL_ARG_SCALE;
		ids[2] = DNNL_ARG_SHIFT;
		break;
	default:
		nargs = 2;
	}
	lens[0] = xlen;
	ids[0] = DNNL_ARG_SRC;
	lens[nargs - 1] = ylen;
	ids[nargs - 1] = DNNL_ARG_DST;
	pb_job_opts jo = {opts != NULL ? opts->copies : 1, threads};
	st = pb_job_alloc(dt, nargs, lens, nargs - 1, &jo, out, err, errlen);
	if (st != PB_OK)
		return st;
	pb_job *j = *out;
	layer_job *d = calloc(1, sizeof *d);
	if (d == NULL) {
		pb_job_free(j);
		*out = NULL;
		return pb_fail(PB_ERR_NOMEM, err, errlen, "onednn: out of memory");
	}
	d->lib = lib;
	j->ctx = d;
	j->destroy = layer_destroy;
	j->iter = layer_iter;
	j->after = layer_after;
	j->before = layer_before;
	st = resolve(lib, &d->f, err, errlen);
	if (st != PB_OK)
		goto fail;

	/* Memory descriptors of the arguments, plain. */
	dnnl_memory_desc_t md[6];
	memset(md, 0, sizeof md);
	pb_dnnl_layer_desc_t *desc = calloc(1, sizeof *desc);
	if (desc == NULL)
		FAIL(PB_ERR_NOMEM, "out of memory");
	dnnl_memory_desc_t wany;
	memset(&wany, 0, sizeof wany);
	int r = g->rank, nd = r + 2;
	dnnl_dims_t dx = {0}, dy = {0}, dw = {0}, dc = {0};
	dnnl_dims_t ds = {0}, dk = {0}, dpl = {0}, dpr = {0}, ddil = {0};
	dx[0] = dy[0] = g->n;
	dx[1] = g->c;
	dy[1] = oc;
	for (int i = 0; i < r; i++) {
		int a = 3 - r + i;
		dx[2 + i] = g->in[a];
		dy[2 + i] = o[a];
		dw[2 + i] = g->window[a];
		ds[i] = stride[a];
		dk[i] = kernel[a];
		dpl[i] = padl[a];
		dpr[i] = padr[a];
		ddil[i] = conv ? g->dil[a] - 1 : 0;
	}
	dnnl_status_t s = dnnl_success;
	int fail_at = 0;
	if (op == PB_DNNL_LAYERNORM) {
		/* Normalized over all but N: an N × C·D·H·W matrix. */
		nd = 2;
		dx[1] = dy[1] = g->c * sp;
	}
	s = lib->md_init_by_tag(&md[0], nd, dx, dnnl_f32, plain_tag(nd, g->nhwc));
	if (s == dnnl_success)
		s = lib->md_init_by_tag(&md[nargs - 1], nd, dy, dnnl_f32, plain_tag(nd, g->nhwc));
	switch (op) {
	case PB_DNNL_CONV:
		dw[0] = g->k;
		dw[1] = g->c;
		if (s == dnnl_success)
			s = lib->md_init_by_tag(&md[1], nd, dw, dnnl_f32, plain_tag(nd, g->nhwc));
		if (s == dnnl_success)
			s = lib->md_init_by_tag(&wany, nd, dw, dnnl_f32, dnnl_format_tag_any);
		if (s == dnnl_success) {
			fail_at = 1;
			int a = alg == PB_DNNL_CONV_DIRECT     ? dnnl_convolution_direct
			        : alg == PB_DNNL_CONV_WINOGRAD ? dnnl_convolution_winograd
			                                       : dnnl_convolution_auto;
			s = d->f.conv_init(desc, dnnl_forward_inference, a, &md[0], &wany, NULL,
			                   &md[nargs - 1], ds, ddil, dpl, dpr);
		}
		break;
	case PB_DNNL_MAXPOOL:
	case PB_DNNL_AVGPOOL:
	case PB_DNNL_ADAPTIVEPOOL:
		if (s == dnnl_success) {
			fail_at = 1;
			s = d->f.pool_init(desc, dnnl_forward_inference,
			                   op == PB_DNNL_MAXPOOL ? dnnl_pooling_max
			                                         : dnnl_pooling_avg_include_padding,
			                   &md[0], &md[nargs - 1], ds, dk, ddil, dpl, dpr);
		}
		break;
	case PB_DNNL_BATCHNORM:
		dc[0] = g->c;
		for (int a = 1; a <= 4 && s == dnnl_success; a++)
			s = lib->md_init_by_tag(&md[a], 1, dc, dnnl_f32, dnnl_a);
		if (s == dnnl_success) {
			fail_at = 1;
			s = d->f.bnorm_init(desc, dnnl_forward_inference, &md[0], eps,
			                    dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift);
		}
		break;
	case PB_DNNL_LAYERNORM:
		dc[0] = g->c * sp;
		for (int a = 1; a <= 2 && s == dnnl_success; a++)
			s = lib->md_init_by_tag(&md[a], 1, dc, dnnl_f32, dnnl_a);
		if (s == dnnl_success) {
			fail_at = 1;
			s = d->f.lnorm_init(desc, dnnl_forward_inference, &md[0], NULL, eps,
			                    dnnl_use_scale | dnnl_use_shift);
		}
		break;
	default:
		break;
	}
	if (s == dnnl_success) {
		fail_at = 2;
		s = d->f.attr_create(&d->attr);
		if (s == dnnl_success)
			s = d->f.attr_scratchpad(d->attr, dnnl_scratchpad_mode_user);
		if (s == dnnl_success)
			s = lib->pd_create(&d->pd, desc, d->attr, lib->engine, NULL);
	}
	free(desc);
	if (s != dnnl_success) {
		CHECK(s, fail_at == 0   ? "memory descriptor"
		         : fail_at == 1 ? "operation descriptor"
		                        : "primitive descriptor (no implementation for this shape)");
	}
	CHECK(lib->prim_create(&d->prim, d->pd), "primitive");
	CHECK(lib->stream_create(&d->stream, lib->engine, dnnl_stream_default_flags), "stream");

	/* Exec arguments: ours, then whatever else the primitive asks for. */
	int extra_ids[] = {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_WORKSPACE, DNNL_ARG_SCRATCHPAD};
	const dnnl_memory_desc_t *extra_md[4];
	int nextra = 0;
	for (size_t e = 0; e < sizeof extra_ids / sizeof extra_ids[0]; e++) {
		int mine = 0;
		for (int a = 0; a < nargs; a++)
			mine |= ids[a] == extra_ids[e];
		const dnnl_memory_desc_t *q =
			extra_ids[e] == DNNL_ARG_SCRATCHPAD
				? d->f.query_md(d->pd, dnnl_query_scratchpad_md, 0)
				: d->f.query_md(d->pd, dnnl_query_exec_arg_md, extra_ids[e]);
		if (!mine && q != NULL && d->f.md_size(q) > 0) {
			extra_md[nextra] = q;
			extra_ids[nextra++] = extra_ids[e];
		}
	}
	d->nexec = nargs + nextra;
	d->args = calloc((size_t)j->copies * (size_t)d->nexec, sizeof *d->args);
	if (d->args == NULL) {
		FAIL(PB_ERR_NOMEM, "out of memory");
	}
	const dnnl_memory_desc_t *wmd = NULL; /* the weights layout the primitive wants */
	if (conv) {
		wmd = d->f.query_md(d->pd, dnnl_query_weights_md, 0);
		if (wmd == NULL) {
				FAIL(PB_ERR_LIBRARY, "conv: no weights memory descriptor");
		}
		if (!d->f.md_equal(wmd, &md[1])) {
			CHECK(d->f.reorder_pd(&d->rpd, &md[1], lib->engine, wmd, lib->engine, d->attr),
			      "weights reorder descriptor");
			CHECK(lib->prim_create(&d->reorder, d->rpd), "weights reorder");
			d->rargs = calloc((size_t)j->copies * 3, sizeof *d->rargs);
			if (d->rargs == NULL) {
				FAIL(PB_ERR_NOMEM, "out of memory");
			}
			d->nrargs = 2;
			const dnnl_memory_desc_t *rs = d->f.query_md(d->rpd, dnnl_query_scratchpad_md, 0);
			if (rs != NULL && d->f.md_size(rs) > 0) {
				void *buf = track_buf(d, d->f.md_size(rs));
				dnnl_memory_t m = NULL;
				if (buf == NULL)
					FAIL(PB_ERR_NOMEM, "out of memory");
				CHECK(lib->memory_create(&m, rs, lib->engine, buf), "memory");
				if (!track_mem(d, m)) {
					lib->memory_destroy(m);
					FAIL(PB_ERR_NOMEM, "out of memory");
				}
				for (int c = 0; c < j->copies; c++)
					d->rargs[3 * c + 2] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, m};
				d->nrargs = 3;
			}
		}
	}
	for (int c = 0; c < j->copies; c++) {
		dnnl_exec_arg_t *ea = d->args + (size_t)c * (size_t)d->nexec;
		for (int a = 0; a < nargs; a++) {
			/* Our buffer holds the plain layout; an argument's expected one may
			 * be an equivalent description of the same bytes. */
			const dnnl_memory_desc_t *use = &md[a];
			if (!(conv && a == 1)) {
				const dnnl_memory_desc_t *q = d->f.query_md(d->pd, dnnl_query_exec_arg_md, ids[a]);
				if (q != NULL && !d->f.md_equal(q, use)) {
					if (d->f.md_size(q) != lens[a] * sizeof(float)) {
								FAIL(PB_ERR_UNSUPPORTED,
						     "%s: the primitive wants argument %d in a layout of %zu bytes, not "
						     "the plain %zu",
						     op_names[op], ids[a], d->f.md_size(q), lens[a] * sizeof(float));
					}
					use = q;
				}
			}
			dnnl_memory_t m = NULL;
			CHECK(lib->memory_create(&m, use, lib->engine, pb_job_buf(j, c, a)), "memory");
			if (!track_mem(d, m)) {
				lib->memory_destroy(m);
				FAIL(PB_ERR_NOMEM, "out of memory");
			}
			ea[a].arg = ids[a];
			ea[a].memory = m;
			if (conv && a == 1 && d->reorder != NULL) {
				/* The primitive reads the reordered copy. */
				void *buf = track_buf(d, d->f.md_size(wmd));
				dnnl_memory_t w2 = NULL;
				if (buf == NULL) {
						FAIL(PB_ERR_NOMEM, "out of memory");
				}
				CHECK(lib->memory_create(&w2, wmd, lib->engine, buf), "memory");
				if (!track_mem(d, w2)) {
					lib->memory_destroy(w2);
						FAIL(PB_ERR_NOMEM, "out of memory");
				}
				d->rargs[3 * c] = (dnnl_exec_arg_t){DNNL_ARG_FROM, m};
				d->rargs[3 * c + 1] = (dnnl_exec_arg_t){DNNL_ARG_TO, w2};
				ea[a].memory = w2;
			}
		}
		for (int e = 0; e < nextra; e++) {
			if (c > 0 && extra_ids[e] == DNNL_ARG_SCRATCHPAD) {
				ea[nargs + e] = d->args[nargs + e]; /* one scratchpad serves every copy */
				continue;
			}
			void *buf = track_buf(d, d->f.md_size(extra_md[e]));
			dnnl_memory_t m = NULL;
			if (buf == NULL) {
				FAIL(PB_ERR_NOMEM, "out of memory");
			}
			CHECK(lib->memory_create(&m, extra_md[e], lib->engine, buf), "memory");
			if (!track_mem(d, m)) {
				lib->memory_destroy(m);
				FAIL(PB_ERR_NOMEM, "out of memory");
			}
			ea[nargs + e].arg = extra_ids[e];
			ea[nargs + e].memory = m;
		}
	}

	const char *impl = NULL;
	if (lib->pd_query(d->pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || impl == NULL)
		impl = "unknown";
	snprintf(j->desc, sizeof j->desc, "onednn %s f32%s impl=%s", op_names[op],
	         d->reorder != NULL ? " (weights reordered before timing)" : "", impl);
	return PB_OK;

fail:
	pb_job_free(j);
	*out = NULL;
	return st;
}
