/*
 * onednn.c — oneDNN 2.x through its C API, resolved with dlsym: a CPU
 * engine, and eltwise (relu, logistic, tanh, exp), binary (add, mul),
 * reduction (sum, max) and softmax primitives run as timed jobs.
 *
 * Thread count. oneDNN has no thread-count call of its own: it uses its
 * CPU runtime's. Debian's oneDNN 2.6 is built with the OpenMP runtime
 * (dnnl_version()->cpu_runtime == DNNL_RUNTIME_OMP) and linked against
 * libgomp, and sizes each parallel region with omp_get_max_threads() of
 * the calling thread. So we call omp_set_num_threads of the OpenMP runtime
 * oneDNN is bound to, on the thread that creates and runs the primitive,
 * right before (OpenMP's nthreads setting belongs to the calling thread,
 * and Go may run each cgo call on a different OS thread).
 *
 * Which OpenMP runtime that is: oneDNN is opened with RTLD_DEEPBIND (see
 * loader.c), so it binds to its own dependency, libgomp, even when MKL has
 * put libiomp5 — which exports the same GOMP/OMP symbol versions — in the
 * global scope; omp_set_num_threads is then looked up with dlsym on
 * oneDNN's handle, which searches oneDNN and its dependencies in the same
 * order. In a sanitizer build (no DEEPBIND) the dynamic linker's usual rule
 * applies — the global scope first, then oneDNN's dependencies — and we
 * resolve it the same way. Either way it is resolved once, right after
 * loading, and its file is reported (threading_runtime).
 * dnnl_threadpool_interop_* applies to the threadpool runtime only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_internal.h"
#include "vendor/dnnl.h"
#include "vendor/omp.h"
#include "onednn_internal.h"

/* struct pb_dnnl is in onednn_internal.h, shared with onednn_layers.c. */

const char *pb_dnnl_status_str(dnnl_status_t s)
{
	switch (s) {
	case dnnl_success:
		return "success";
	case dnnl_out_of_memory:
		return "out of memory";
	case dnnl_invalid_arguments:
		return "invalid arguments";
	case dnnl_unimplemented:
		return "unimplemented";
	case dnnl_iterator_ends:
		return "iterator ends";
	case dnnl_runtime_error:
		return "runtime error";
	case dnnl_not_required:
		return "not required";
	}
	return "unknown status";
}

pb_status pb_dnnl_execute(const pb_dnnl *lib, dnnl_primitive_t prim, dnnl_stream_t stream,
                          int nargs, const dnnl_exec_arg_t *args, const char *what, char *err,
                          size_t errlen)
{
	dnnl_status_t s = lib->prim_execute(prim, stream, nargs, args);
	if (s != dnnl_success)
		return pb_fail(PB_ERR_LIBRARY, err, errlen, "onednn: %sdnnl_primitive_execute: %s", what,
		               pb_dnnl_status_str(s));
	return PB_OK;
}

pb_status pb_dnnl_wait(const pb_dnnl *lib, dnnl_stream_t stream, const char *what, char *err,
                       size_t errlen)
{
	dnnl_status_t s = lib->stream_wait(stream);
	if (s != dnnl_success)
		return pb_fail(PB_ERR_LIBRARY, err, errlen, "onednn: %sdnnl_stream_wait: %s", what,
		               pb_dnnl_status_str(s));
	return PB_OK;
}

static const char *runtime_name(unsigned r)
{
	switch (r) {
	case DNNL_RUNTIME_SEQ:
		return "sequential";
	case DNNL_RUNTIME_OMP:
		return "openmp";
	case DNNL_RUNTIME_TBB:
		return "tbb";
	case DNNL_RUNTIME_THREADPOOL:
		return "threadpool";
	}
	return "unknown";
}

static const char *isa_name(int isa)
{
	switch (isa) {
	case 0x0:
		return "all (no limit)";
	case 0x1:
		return "sse41";
	case 0x3:
		return "avx";
	case 0x7:
		return "avx2";
	case 0xf:
		return "avx512_mic";
	case 0x1f:
		return "avx512_mic_4ops";
	case 0x27:
		return "avx512_core";
	case 0x67:
		return "avx512_core_vnni";
	case 0xe7:
		return "avx512_core_bf16";
	case 0x3e7:
		return "avx512_core_amx";
	case 0x407:
		return "avx2_vnni";
	}
	return "unknown";
}

static const char *const dnnl_candidates[] = {
	"libdnnl.so.2",
	"libdnnl.so.3",
	"libdnnl.so",
	"/usr/local/lib/libdnnl.so.2",
	"/usr/local/lib64/libdnnl.so.2",
	"/opt/intel/oneapi/dnnl/latest/cpu_gomp/lib/libdnnl.so.2",
	NULL,
};

#define DNNL_HINT                                                                              \
	"install libdnnl-dev (Debian/Ubuntu, oneDNN 2.x) or set PEAKBENCH_ONEDNN to the path of " \
	"libdnnl.so.2"

pb_status pb_dnnl_open(const char *path, pb_dnnl **out, char *tried, size_t triedlen, char *err,
                       size_t errlen)
{
	if (out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dnnl_open: out is NULL");
	*out = NULL;
	pb_dnnl *lib = calloc(1, sizeof *lib);
	if (lib == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "onednn: out of memory");
	const char *one[2] = {path, NULL};
	const char *const *cands = dnnl_candidates;
	const char *env = "PEAKBENCH_ONEDNN";
	if (path != NULL && path[0] != '\0') {
		cands = one;
		env = NULL;
	}
	char msg[2048];
	int deep = pb_dl_deepbind();
	pb_status st = pb_dl_open_flags("libdnnl", env, cands, deep, &lib->dl, lib->path,
	                                sizeof lib->path, tried, triedlen, msg, sizeof msg);
	if (st != PB_OK) {
		free(lib);
		return pb_fail(st, err, errlen, "onednn: %s; %s", msg, DNNL_HINT);
	}
	dnnl_version_fn version = NULL;
	const pb_sym ident[] = {{"dnnl_version", &version, 0}};
	if (pb_dl_resolve(lib->dl, ident, PB_NSYMS(ident), NULL) > 0) {
		st = pb_fail(PB_ERR_SYMBOL, err, errlen,
		             "onednn: %s is not oneDNN: missing symbol dnnl_version", lib->path);
		free(lib);
		return st;
	}
	const dnnl_version_t *v = version();
	if (v == NULL || v->major != 2) {
		st = pb_fail(PB_ERR_VERSION, err, errlen,
		             "onednn: %s is oneDNN %d.%d.%d; peakbench encodes the C API (enum values "
		             "and *_desc_init calls) of oneDNN 2.x only; %s",
		             lib->path, v != NULL ? v->major : -1, v != NULL ? v->minor : -1,
		             v != NULL ? v->patch : -1, DNNL_HINT);
		free(lib);
		return st;
	}
	lib->version = *v;
	snprintf(lib->hash, sizeof lib->hash, "%s", v->hash != NULL ? v->hash : "");
	lib->version.hash = lib->hash;

	const pb_sym need[] = {
		{"dnnl_engine_create", &lib->engine_create, 0},
		{"dnnl_engine_destroy", &lib->engine_destroy, 0},
		{"dnnl_stream_create", &lib->stream_create, 0},
		{"dnnl_stream_wait", &lib->stream_wait, 0},
		{"dnnl_stream_destroy", &lib->stream_destroy, 0},
		{"dnnl_memory_desc_init_by_tag", &lib->md_init_by_tag, 0},
		{"dnnl_memory_create", &lib->memory_create, 0},
		{"dnnl_memory_destroy", &lib->memory_destroy, 0},
		{"dnnl_eltwise_forward_desc_init", &lib->eltwise_init, 0},
		{"dnnl_binary_desc_init", &lib->binary_init, 0},
		{"dnnl_reduction_desc_init", &lib->reduction_init, 0},
		{"dnnl_softmax_forward_desc_init", &lib->softmax_init, 0},
		{"dnnl_primitive_desc_create", &lib->pd_create, 0},
		{"dnnl_primitive_desc_destroy", &lib->pd_destroy, 0},
		{"dnnl_primitive_desc_query", &lib->pd_query, 0},
		{"dnnl_primitive_create", &lib->prim_create, 0},
		{"dnnl_primitive_destroy", &lib->prim_destroy, 0},
		{"dnnl_primitive_execute", &lib->prim_execute, 0},
		{"dnnl_get_effective_cpu_isa", &lib->effective_isa, 1},
	};
	char missing[1024];
	pb_sb m;
	pb_sb_init(&m, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, need, PB_NSYMS(need), &m) > 0) {
		st = pb_fail(PB_ERR_SYMBOL, err, errlen, "onednn: %s (oneDNN %d.%d.%d) lacks %s",
		             lib->path, v->major, v->minor, v->patch, missing);
		free(lib);
		return st;
	}

	if (lib->version.cpu_runtime == DNNL_RUNTIME_OMP) {
		/*
		 * The binding oneDNN got: with RTLD_DEEPBIND its own dependencies
		 * (libgomp) first, which dlsym on its handle searches; without, the
		 * global scope first, then its dependencies.
		 */
		const pb_sym omp[] = {
			{"omp_set_num_threads", &lib->omp_set, 0},
			{"omp_get_max_threads", &lib->omp_get, 0},
		};
		int nm = 1;
		if (!deep)
			nm = pb_dl_resolve(RTLD_DEFAULT, omp, PB_NSYMS(omp), NULL);
		if (nm > 0)
			nm = pb_dl_resolve(lib->dl, omp, PB_NSYMS(omp), NULL);
		if (nm > 0) {
			st = pb_fail(PB_ERR_SYMBOL, err, errlen,
			             "onednn: %s uses OpenMP but omp_set_num_threads cannot be found in "
			             "its OpenMP runtime",
			             lib->path);
			free(lib);
			return st;
		}
		void *set;
		memcpy(&set, &lib->omp_set, sizeof set); /* dladdr takes a data pointer */
		Dl_info info;
		if (dladdr(set, &info) != 0 && info.dli_fname != NULL)
			snprintf(lib->omp_path, sizeof lib->omp_path, "%s", info.dli_fname);
		lib->threads = lib->omp_get();
	} else {
		lib->threads = 1;
	}

	dnnl_status_t s = lib->engine_create(&lib->engine, dnnl_cpu, 0);
	if (s != dnnl_success) {
		st = pb_fail(PB_ERR_LIBRARY, err, errlen, "onednn: dnnl_engine_create(cpu): %s",
		             pb_dnnl_status_str(s));
		free(lib);
		return st;
	}
	*out = lib;
	return PB_OK;
}

pb_status pb_dnnl_close(pb_dnnl *lib, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (lib == NULL)
		return PB_OK;
	if (lib->engine != NULL)
		lib->engine_destroy(lib->engine);
	/* oneDNN stays mapped, as the BLAS libraries do (its OpenMP threads live on). */
	free(lib);
	return PB_OK;
}

pb_status pb_dnnl_info(const pb_dnnl *lib, char *buf, size_t buflen, char *err, size_t errlen)
{
	if (lib == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dnnl_info: NULL argument");
	pb_sb s;
	pb_sb_init(&s, buf, buflen);
	const dnnl_version_t *v = &lib->version;
	pb_sb_printf(&s, "name=onednn\nversion=%d.%d.%d\n", v->major, v->minor, v->patch);
	if (lib->hash[0] != '\0')
		pb_sb_printf(&s, "hash=%s\n", lib->hash);
	pb_sb_printf(&s, "threading=%s\n", runtime_name(v->cpu_runtime));
	if (lib->omp_path[0] != '\0')
		pb_sb_printf(&s, "threading_runtime=%s\n", lib->omp_path);
	if (lib->effective_isa != NULL) {
		pb_sb_printf(&s, "code_path=%s (dnnl_get_effective_cpu_isa: the widest ISA it may "
		                 "dispatch to)\n",
		             isa_name(lib->effective_isa()));
		/* The same, bare: what a "gemm:jit" matmul's unit is told from. */
		pb_sb_printf(&s, "isa=%s\n", isa_name(lib->effective_isa()));
	}
	pb_sb_printf(&s, "threads=%d\n", lib->threads);
	pb_sb_printf(&s, "path=%s\n", lib->path);
	return PB_OK;
}

/* apply sets the OpenMP thread count on the calling thread. */
static pb_status apply(const pb_dnnl *lib, int n, char *err, size_t errlen)
{
	if (lib->omp_set == NULL)
		return PB_OK;
	lib->omp_set(n);
	int got = lib->omp_get();
	if (got != n)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "onednn: asked %s for %d threads, it reports %d", lib->omp_path, n, got);
	return PB_OK;
}

pb_status pb_dnnl_apply_threads(const pb_dnnl *lib, int n, char *err, size_t errlen)
{
	return apply(lib, n, err, errlen);
}

pb_status pb_dnnl_set_threads(pb_dnnl *lib, int n, char *err, size_t errlen)
{
	if (lib == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dnnl_set_threads: NULL library");
	pb_status st = pb_check_threads("onednn", n, err, errlen);
	if (st != PB_OK)
		return st;
	switch (lib->version.cpu_runtime) {
	case DNNL_RUNTIME_OMP:
		st = apply(lib, n, err, errlen);
		if (st != PB_OK)
			return st;
		lib->threads = n;
		return PB_OK;
	case DNNL_RUNTIME_SEQ:
		if (n == 1)
			return PB_OK;
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "onednn: %s was built with the sequential CPU runtime: 1 thread only, "
		               "asked for %d",
		               lib->path, n);
	default:
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "onednn: %s uses the %s CPU runtime, whose thread count peakbench does "
		               "not control",
		               lib->path, runtime_name(lib->version.cpu_runtime));
	}
}

pb_status pb_dnnl_get_threads(const pb_dnnl *lib, int *n, char *err, size_t errlen)
{
	if (lib == NULL || n == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dnnl_get_threads: NULL argument");
	*n = lib->threads;
	return PB_OK;
}

/* Jobs */

typedef struct dnnl_job {
	const pb_dnnl *lib;
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t prim;
	dnnl_stream_t stream;
	dnnl_memory_t *mem;      /* [copy*nargs + arg] */
	dnnl_exec_arg_t *args;   /* [copy*nargs + arg] */
} dnnl_job;

static void dnnl_job_destroy(pb_job *j)
{
	dnnl_job *d = j->ctx;
	if (d == NULL)
		return;
	const pb_dnnl *lib = d->lib;
	if (d->mem != NULL)
		for (size_t i = 0; i < (size_t)j->copies * (size_t)j->nargs; i++)
			if (d->mem[i] != NULL)
				lib->memory_destroy(d->mem[i]);
	if (d->prim != NULL)
		lib->prim_destroy(d->prim);
	if (d->pd != NULL)
		lib->pd_destroy(d->pd);
	if (d->stream != NULL)
		lib->stream_destroy(d->stream);
	free(d->mem);
	free(d->args);
	free(d);
	j->ctx = NULL;
}

static pb_status dnnl_iter(pb_job *j, int c, char *err, size_t errlen)
{
	dnnl_job *d = j->ctx;
	return pb_dnnl_execute(d->lib, d->prim, d->stream, j->nargs,
	                       d->args + (size_t)c * (size_t)j->nargs, "", err, errlen);
}

static pb_status dnnl_after(pb_job *j, char *err, size_t errlen)
{
	dnnl_job *d = j->ctx;
	return pb_dnnl_wait(d->lib, d->stream, "", err, errlen);
}

static pb_status dnnl_before(pb_job *j, char *err, size_t errlen)
{
	dnnl_job *d = j->ctx;
	if (j->threads == 0)
		return PB_OK;
	return apply(d->lib, j->threads, err, errlen);
}

static const char *const op_names[] = {"relu", "sigmoid", "tanh", "exp", "add",
                                       "mul",  "sum",     "max",  "softmax"};

#define DNNL_CHECK(call, what)                                                                 \
	do {                                                                                       \
		dnnl_status_t s_ = (call);                                                             \
		if (s_ != dnnl_success) {                                                              \
			st = pb_fail(s_ == dnnl_unimplemented ? PB_ERR_UNSUPPORTED : PB_ERR_LIBRARY, err, \
			             errlen, "onednn: %s %s: %s: %s", op_names[op],                      \
			             dt == PB_F32 ? "f32" : "f64", what, pb_dnnl_status_str(s_));            \
			goto fail;                                                                         \
		}                                                                                      \
	} while (0)

pb_status pb_dnnl_job(pb_dnnl *lib, pb_dnnl_op op, pb_dtype dt, int64_t rows, int64_t cols,
                      const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dnnl_job: NULL argument");
	*out = NULL;
	if ((int)op < PB_DNNL_RELU || op > PB_DNNL_SOFTMAX)
		return pb_fail(PB_ERR_INVALID, err, errlen, "onednn: bad op %d", (int)op);
	if (dt == PB_F64)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "onednn: %s f64: oneDNN %d.x has no f64 data type (f32, bf16, f16 and "
		               "integers only)",
		               op_names[op], lib->version.major);
	if (dt != PB_F32)
		return pb_fail(PB_ERR_INVALID, err, errlen, "bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	if (rows < 1 || cols < 1 || (op != PB_DNNL_SOFTMAX && rows != 1))
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "onednn: %s: bad shape %lld×%lld (rows must be 1 except for softmax)",
		               op_names[op], (long long)rows, (long long)cols);
	int threads = opts != NULL ? opts->threads : 0;
	pb_status st;
	if (threads != 0) {
		st = pb_dnnl_set_threads(lib, threads, err, errlen);
		if (st != PB_OK)
			return st;
	} else if (lib->omp_set != NULL) {
		threads = lib->threads;
	}
	/* Primitives size their work split by the thread count at creation. */
	if (threads != 0) {
		st = apply(lib, threads, err, errlen);
		if (st != PB_OK)
			return st;
	}

	int64_t n = rows * cols;
	int nargs, output;
	size_t lens[3];
	switch (op) {
	case PB_DNNL_ADD:
	case PB_DNNL_MUL:
		nargs = 3;
		lens[0] = lens[1] = lens[2] = (size_t)n;
		break;
	case PB_DNNL_SUM:
	case PB_DNNL_MAX:
		nargs = 2;
		lens[0] = (size_t)n;
		lens[1] = 1;
		break;
	default:
		nargs = 2;
		lens[0] = lens[1] = (size_t)n;
	}
	output = nargs - 1;
	pb_job_opts o = {opts != NULL ? opts->copies : 1, threads};
	st = pb_job_alloc(dt, nargs, lens, output, &o, out, err, errlen);
	if (st != PB_OK)
		return st;
	pb_job *j = *out;
	dnnl_job *d = calloc(1, sizeof *d);
	if (d == NULL) {
		pb_job_free(j);
		*out = NULL;
		return pb_fail(PB_ERR_NOMEM, err, errlen, "onednn: out of memory");
	}
	d->lib = lib;
	j->ctx = d;
	j->destroy = dnnl_job_destroy;
	j->iter = dnnl_iter;
	j->after = dnnl_after;
	j->before = dnnl_before;

	dnnl_memory_desc_t md_x, md_r;
	memset(&md_x, 0, sizeof md_x);
	memset(&md_r, 0, sizeof md_r);
	dnnl_dims_t dx = {0}, dr = {0};
	if (op == PB_DNNL_SOFTMAX) {
		dx[0] = rows;
		dx[1] = cols;
		DNNL_CHECK(lib->md_init_by_tag(&md_x, 2, dx, dnnl_f32, dnnl_ab), "memory desc");
	} else {
		dx[0] = n;
		DNNL_CHECK(lib->md_init_by_tag(&md_x, 1, dx, dnnl_f32, dnnl_a), "memory desc");
	}
	pb_dnnl_op_desc_t *desc = calloc(1, sizeof *desc);
	if (desc == NULL) {
		st = pb_fail(PB_ERR_NOMEM, err, errlen, "onednn: out of memory");
		goto fail;
	}
	const dnnl_memory_desc_t *arg_md[3] = {&md_x, &md_x, &md_x};
	int arg_id[3] = {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_DST};
	dnnl_status_t s = dnnl_success;
	switch (op) {
	case PB_DNNL_RELU:
		s = lib->eltwise_init(desc, dnnl_forward_inference, dnnl_eltwise_relu, &md_x, 0, 0);
		break;
	case PB_DNNL_SIGMOID:
		s = lib->eltwise_init(desc, dnnl_forward_inference, dnnl_eltwise_logistic, &md_x, 0, 0);
		break;
	case PB_DNNL_TANH:
		s = lib->eltwise_init(desc, dnnl_forward_inference, dnnl_eltwise_tanh, &md_x, 0, 0);
		break;
	case PB_DNNL_EXP:
		s = lib->eltwise_init(desc, dnnl_forward_inference, dnnl_eltwise_exp, &md_x, 0, 0);
		break;
	case PB_DNNL_ADD:
	case PB_DNNL_MUL:
		s = lib->binary_init(desc, op == PB_DNNL_ADD ? dnnl_binary_add : dnnl_binary_mul, &md_x,
		                     &md_x, &md_x);
		arg_id[1] = DNNL_ARG_SRC_1;
		break;
	case PB_DNNL_SUM:
	case PB_DNNL_MAX:
		if (n == 1) {
			/*
			 * oneDNN rejects a reduction that reduces nothing (src and dst
			 * dims equal); the sum or max of one element is the element:
			 * eltwise linear with alpha 1, beta 0.
			 */
			s = lib->eltwise_init(desc, dnnl_forward_inference, dnnl_eltwise_linear, &md_x, 1,
			                      0);
			break;
		}
		dr[0] = 1;
		s = lib->md_init_by_tag(&md_r, 1, dr, dnnl_f32, dnnl_a);
		if (s == dnnl_success)
			s = lib->reduction_init(desc,
			                        op == PB_DNNL_SUM ? dnnl_reduction_sum : dnnl_reduction_max,
			                        &md_x, &md_r, 0, 0);
		arg_md[1] = &md_r;
		break;
	case PB_DNNL_SOFTMAX:
		s = lib->softmax_init(desc, dnnl_forward_inference, &md_x, 1);
		break;
	}
	if (s != dnnl_success) {
		free(desc);
		DNNL_CHECK(s, "descriptor");
	}
	s = lib->pd_create(&d->pd, desc, NULL, lib->engine, NULL);
	free(desc);
	DNNL_CHECK(s, "primitive descriptor");
	DNNL_CHECK(lib->prim_create(&d->prim, d->pd), "primitive");
	DNNL_CHECK(lib->stream_create(&d->stream, lib->engine, dnnl_stream_default_flags), "stream");

	size_t nbuf = (size_t)j->copies * (size_t)nargs;
	d->mem = calloc(nbuf, sizeof *d->mem);
	d->args = calloc(nbuf, sizeof *d->args);
	if (d->mem == NULL || d->args == NULL) {
		st = pb_fail(PB_ERR_NOMEM, err, errlen, "onednn: out of memory");
		goto fail;
	}
	for (int c = 0; c < j->copies; c++)
		for (int a = 0; a < nargs; a++) {
			size_t i = (size_t)c * (size_t)nargs + (size_t)a;
			DNNL_CHECK(lib->memory_create(&d->mem[i], arg_md[a], lib->engine,
			                              pb_job_buf(j, c, a)),
			           "memory");
			d->args[i].arg = arg_id[a];
			d->args[i].memory = d->mem[i];
		}

	const char *impl = NULL;
	if (lib->pd_query(d->pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || impl == NULL)
		impl = "unknown";
	snprintf(j->desc, sizeof j->desc, "onednn %s f32 %lldx%lld impl=%s", op_names[op],
	         (long long)rows, (long long)cols, impl);
	return PB_OK;

fail:
	pb_job_free(j);
	*out = NULL;
	return st;
}

static void prim_destroy(pb_job *j)
{
	pb_dnnl_prim_job *d = j->ctx;
	if (d == NULL)
		return;
	const pb_dnnl *lib = d->lib;
	for (size_t i = 0; i < d->nmems; i++)
		if (d->mems[i] != NULL)
			lib->memory_destroy(d->mems[i]);
	if (d->prim != NULL)
		lib->prim_destroy(d->prim);
	if (d->pd != NULL)
		lib->pd_destroy(d->pd);
	if (d->stream != NULL)
		lib->stream_destroy(d->stream);
	if (d->attr != NULL)
		d->attr_destroy(d->attr);
	free(d->scratch);
	free(d->mems);
	free(d->args);
	free(d);
	j->ctx = NULL;
}

static pb_status prim_iter(pb_job *j, int c, char *err, size_t errlen)
{
	pb_dnnl_prim_job *d = j->ctx;
	return pb_dnnl_execute(d->lib, d->prim, d->stream, d->nexec,
	                       d->args + (size_t)c * (size_t)d->nexec, d->what, err, errlen);
}

static pb_status prim_after(pb_job *j, char *err, size_t errlen)
{
	pb_dnnl_prim_job *d = j->ctx;
	return pb_dnnl_wait(d->lib, d->stream, d->what, err, errlen);
}

static pb_status prim_before(pb_job *j, char *err, size_t errlen)
{
	pb_dnnl_prim_job *d = j->ctx;
	if (j->threads == 0)
		return PB_OK;
	return pb_dnnl_apply_threads(d->lib, j->threads, err, errlen);
}

void pb_dnnl_prim_hooks(pb_job *j)
{
	j->destroy = prim_destroy;
	j->iter = prim_iter;
	j->after = prim_after;
	j->before = prim_before;
}
