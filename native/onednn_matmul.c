/*
 * onednn_matmul.c — oneDNN 2.x's matmul primitive as a timed gemm job, in
 * f32, bf16 and f16 (f32 output) and s8×s8 and u8×s8 (s32 output, exact).
 *
 * Operands are plain row-major matrices, "ab"; a transposed one is the
 * same bytes described as "ba". The weights are given plain, not in the
 * blocked layout oneDNN would choose (format any): it packs them inside
 * the timed call, as a BLAS packs B, so both read the same inputs.
 *
 * A job's buffers hold the operands' own types (bf16 A is 2 bytes an
 * element, u8 A 1): a typed host job (timing.c) allocates them — staggered,
 * on huge pages when large — converts the float64 inputs into those types
 * when they are set, before any timing, and widens the output from C's
 * type. The timed iteration is the matmul alone.
 *
 * The scratchpad is the job's own (scratchpad mode user), as for the
 * layers (onednn_layers.c says why), one for every copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn_internal.h"

/* The types of A, B and C for each pb_dnnl_gemm_type. */
static const struct {
	const char *name;
	pb_host_dtype arg[3];
} gemm_types[] = {
	[PB_DNNL_GEMM_F32] = {"f32", {PB_HOST_F32, PB_HOST_F32, PB_HOST_F32}},
	[PB_DNNL_GEMM_BF16] = {"bf16", {PB_HOST_BF16, PB_HOST_BF16, PB_HOST_F32}},
	[PB_DNNL_GEMM_F16] = {"f16", {PB_HOST_F16, PB_HOST_F16, PB_HOST_F32}},
	[PB_DNNL_GEMM_S8S8] = {"s8s8", {PB_HOST_S8, PB_HOST_S8, PB_HOST_S32}},
	[PB_DNNL_GEMM_U8S8] = {"u8s8", {PB_HOST_U8, PB_HOST_S8, PB_HOST_S32}},
};

/* dnnl_type is oneDNN's data type of a host element type (the matmul's alone). */
static dnnl_data_type_t dnnl_type(pb_host_dtype t)
{
	switch (t) {
	case PB_HOST_BF16:
		return dnnl_bf16;
	case PB_HOST_F16:
		return dnnl_f16;
	case PB_HOST_S8:
		return dnnl_s8;
	case PB_HOST_U8:
		return dnnl_u8;
	case PB_HOST_S32:
		return dnnl_s32;
	default:
		return dnnl_f32;
	}
}

typedef struct matmul_fns {
	dnnl_matmul_desc_init_fn matmul_init;
	dnnl_primitive_desc_query_md_fn query_md;
	dnnl_memory_desc_get_size_fn md_size;
	dnnl_primitive_attr_create_fn attr_create;
	dnnl_primitive_attr_destroy_fn attr_destroy;
	dnnl_primitive_attr_set_scratchpad_mode_fn attr_scratchpad;
} matmul_fns;

static pb_status resolve(const pb_dnnl *lib, matmul_fns *f, char *err, size_t errlen)
{
	const pb_sym need[] = {
		{"dnnl_matmul_desc_init", &f->matmul_init, 0},
		{"dnnl_primitive_desc_query_md", &f->query_md, 0},
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

/* matmul_desc fills the memory descriptors md[3] and the matmul's descriptor. */
static dnnl_status_t matmul_desc(const pb_dnnl *lib, const matmul_fns *f, pb_dnnl_gemm_type t,
                                 int ta, int tb, int64_t m, int64_t n, int64_t k,
                                 dnnl_memory_desc_t md[3], pb_dnnl_op_desc_t *desc)
{
	dnnl_dims_t da = {m, k}, db = {k, n}, dc = {m, n};
	const pb_host_dtype *el = gemm_types[t].arg;
	dnnl_status_t s = lib->md_init_by_tag(&md[0], 2, da, dnnl_type(el[0]), ta ? dnnl_ba : dnnl_ab);
	if (s == dnnl_success)
		s = lib->md_init_by_tag(&md[1], 2, db, dnnl_type(el[1]), tb ? dnnl_ba : dnnl_ab);
	if (s == dnnl_success)
		s = lib->md_init_by_tag(&md[2], 2, dc, dnnl_type(el[2]), dnnl_ab);
	if (s == dnnl_success)
		s = f->matmul_init(desc, &md[0], &md[1], NULL, &md[2]);
	return s;
}

int pb_dnnl_gemm_has(pb_dnnl *lib, pb_dnnl_gemm_type t, char *impl, size_t impllen)
{
	if (impl != NULL && impllen > 0)
		impl[0] = '\0';
	if (lib == NULL || (int)t < PB_DNNL_GEMM_F32 || t > PB_DNNL_GEMM_U8S8)
		return 0;
	matmul_fns f;
	if (resolve(lib, &f, NULL, 0) != PB_OK)
		return 0;
	dnnl_memory_desc_t md[3];
	memset(md, 0, sizeof md);
	pb_dnnl_op_desc_t *desc = calloc(1, sizeof *desc);
	if (desc == NULL)
		return 0;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_status_t s = matmul_desc(lib, &f, t, 0, 0, 64, 64, 64, md, desc);
	if (s == dnnl_success)
		s = lib->pd_create(&pd, desc, NULL, lib->engine, NULL);
	free(desc);
	if (pd != NULL) {
		const char *name = NULL;
		if (impl != NULL && impllen > 0 &&
		    lib->pd_query(pd, dnnl_query_impl_info_str, 0, &name) == dnnl_success && name != NULL)
			snprintf(impl, impllen, "%s", name);
		lib->pd_destroy(pd);
	}
	return s == dnnl_success;
}

typedef struct matmul_job {
	pb_dnnl_prim_job p; /* first: the hooks take ctx as one */
	matmul_fns f;
} matmul_job;

/* FAIL and CHECK end pb_dnnl_gemm_job with a message naming the gemm's types. */
#define FAIL(status, fmt, ...)                                                                 \
	do {                                                                                       \
		st = pb_fail(status, err, errlen, "onednn: gemm %s: " fmt, name, ##__VA_ARGS__);      \
		goto fail;                                                                             \
	} while (0)

#define CHECK(call, what)                                                                      \
	do {                                                                                       \
		dnnl_status_t s_ = (call);                                                             \
		if (s_ != dnnl_success)                                                                \
			FAIL(s_ == dnnl_unimplemented ? PB_ERR_UNSUPPORTED : PB_ERR_LIBRARY, "%s: %s", what, \
			     pb_dnnl_status_str(s_));                                                      \
	} while (0)

pb_status pb_dnnl_gemm_job(pb_dnnl *lib, pb_dnnl_gemm_type t, pb_trans ta, pb_trans tb,
                           int64_t m, int64_t n, int64_t k, const pb_job_opts *opts,
                           pb_job **out, char *err, size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dnnl_gemm_job: NULL argument");
	*out = NULL;
	if ((int)t < PB_DNNL_GEMM_F32 || t > PB_DNNL_GEMM_U8S8)
		return pb_fail(PB_ERR_INVALID, err, errlen, "onednn: gemm: bad type %d (accepted: 0 to 4)",
		               (int)t);
	if ((ta != PB_NO_TRANS && ta != PB_TRANS) || (tb != PB_NO_TRANS && tb != PB_TRANS))
		return pb_fail(PB_ERR_INVALID, err, errlen, "onednn: gemm: bad transpose %d, %d", (int)ta,
		               (int)tb);
	const char *name = gemm_types[t].name;
	if (m < 1 || n < 1 || k < 1 || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "onednn: gemm %s: bad shape m=%lld n=%lld k=%lld (each 1 to 2^31-1)", name,
		               (long long)m, (long long)n, (long long)k);
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

	const pb_host_dtype *el = gemm_types[t].arg;
	size_t lens[3] = {(size_t)m * (size_t)k, (size_t)k * (size_t)n, (size_t)m * (size_t)n};
	pb_job_opts jo = {opts != NULL ? opts->copies : 1, threads};
	st = pb_job_alloc_typed(3, lens, el, 2, &jo, out, err, errlen);
	if (st != PB_OK)
		return st;
	pb_job *j = *out;
	matmul_job *d = calloc(1, sizeof *d);
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
	d->p.what = "gemm: ";

	dnnl_memory_desc_t md[3];
	memset(md, 0, sizeof md);
	pb_dnnl_op_desc_t *desc = calloc(1, sizeof *desc);
	if (desc == NULL)
		FAIL(PB_ERR_NOMEM, "out of memory");
	dnnl_status_t s = matmul_desc(lib, &d->f, t, ta == PB_TRANS, tb == PB_TRANS, m, n, k, md, desc);
	if (s == dnnl_success)
		s = d->f.attr_create(&d->p.attr);
	if (s == dnnl_success)
		s = d->f.attr_scratchpad(d->p.attr, dnnl_scratchpad_mode_user);
	if (s == dnnl_success)
		s = lib->pd_create(&d->p.pd, desc, d->p.attr, lib->engine, NULL);
	free(desc);
	if (s == dnnl_unimplemented)
		FAIL(PB_ERR_UNSUPPORTED,
		     "oneDNN %d.%d.%d has no matmul implementation for %s × %s → %s on this CPU "
		     "(dnnl_unimplemented)",
		     lib->version.major, lib->version.minor, lib->version.patch,
		     pb_host_dtype_name(el[0]), pb_host_dtype_name(el[1]), pb_host_dtype_name(el[2]));
	CHECK(s, "primitive descriptor");
	CHECK(lib->prim_create(&d->p.prim, d->p.pd), "primitive");
	CHECK(lib->stream_create(&d->p.stream, lib->engine, dnnl_stream_default_flags), "stream");

	const dnnl_memory_desc_t *smd = d->f.query_md(d->p.pd, dnnl_query_scratchpad_md, 0);
	size_t sbytes = smd != NULL ? d->f.md_size(smd) : 0;
	d->p.nexec = sbytes > 0 ? 4 : 3;
	d->p.mems = calloc((size_t)j->copies * 3 + 1, sizeof *d->p.mems);
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
	static const int ids[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
	for (int c = 0; c < j->copies; c++) {
		dnnl_exec_arg_t *ea = d->p.args + (size_t)c * (size_t)d->p.nexec;
		for (int a = 0; a < 3; a++) {
			dnnl_memory_t mem = NULL;
			CHECK(lib->memory_create(&mem, &md[a], lib->engine, pb_job_buf(j, c, a)), "memory");
			d->p.mems[d->p.nmems++] = mem;
			ea[a] = (dnnl_exec_arg_t){ids[a], mem};
		}
		if (scratch != NULL)
			ea[3] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, scratch};
	}

	const char *impl = NULL;
	if (lib->pd_query(d->p.pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || impl == NULL)
		impl = "unknown";
	snprintf(j->desc, sizeof j->desc, "onednn gemm %s %c%c m=%lld n=%lld k=%lld impl=%s", name,
	         ta == PB_TRANS ? 'T' : 'N', tb == PB_TRANS ? 'T' : 'N', (long long)m, (long long)n,
	         (long long)k, impl);
	return PB_OK;

fail:
	pb_job_free(j);
	*out = NULL;
	return st;
}
