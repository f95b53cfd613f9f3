/*
 * FFTW 3 loaded at run time. One handle per precision: the threads library
 * (libfftw3f_threads, libfftw3_threads) when present, whose dependency is
 * the library itself, else the library alone. Symbols are the same calls
 * with the prefix fftwf_ or fftw_.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_internal.h"
#include "peakbench_fftw.h"

#define FFTW_HINT "install libfftw3-single3 and libfftw3-double3 (Debian, Ubuntu), or set PEAKBENCH_FFTW3F / PEAKBENCH_FFTW3"

/* Our prototypes: plans and arrays are opaque; complex is double[2] or float[2]. */
typedef void *fftw_plan_t;
typedef fftw_plan_t (*plan_many_dft_fn)(int rank, const int *n, int howmany, void *in,
                                         const int *inembed, int istride, int idist, void *out,
                                         const int *onembed, int ostride, int odist, int sign,
                                         unsigned flags);
typedef fftw_plan_t (*plan_many_r2c_fn)(int rank, const int *n, int howmany, void *in,
                                         const int *inembed, int istride, int idist, void *out,
                                         const int *onembed, int ostride, int odist, unsigned flags);
typedef void (*execute_dft_fn)(fftw_plan_t p, void *in, void *out);
typedef void (*destroy_fn)(fftw_plan_t p);
typedef void *(*malloc_fn)(size_t n);
typedef void (*free_fn)(void *p);
typedef void (*timelimit_fn)(double seconds);
typedef int (*init_threads_fn)(void);
typedef void (*nthreads_fn)(int n);
typedef int (*wisdom_file_fn)(const char *path);

struct pb_fftw {
	void *dl;
	int f64;
	char path[1024];
	char version[128];
	plan_many_dft_fn plan_many_dft;
	plan_many_r2c_fn plan_many_r2c;
	execute_dft_fn execute_dft, execute_r2c;
	destroy_fn destroy;
	malloc_fn malloc_;
	free_fn free_;
	timelimit_fn set_timelimit;
	init_threads_fn init_threads;
	nthreads_fn plan_with_nthreads;
	wisdom_file_fn import_wisdom, export_wisdom;
};

struct pb_fftw_plan {
	pb_fftw *f;
	fftw_plan_t plan;
	int kind, copies, last;
	size_t nin, nout; /* reals */
	void **in, **out;
};

pb_status pb_fftw_open(int f64, pb_fftw **out, char *err, size_t errlen) {
	pb_fftw *f = calloc(1, sizeof *f);
	if (f == NULL) return pb_fail(PB_ERR_NOMEM, err, errlen, "fftw: out of memory");
	f->f64 = f64;
	static const char *const single[] = {"libfftw3f_threads.so.3", "libfftw3f.so.3", NULL};
	static const char *const dbl[] = {"libfftw3_threads.so.3", "libfftw3.so.3", NULL};
	char tried[2048], msg[2048];
	pb_status st = pb_dl_open_flags(f64 ? "libfftw3" : "libfftw3f", f64 ? "PEAKBENCH_FFTW3" : "PEAKBENCH_FFTW3F",
	                                f64 ? dbl : single, pb_dl_deepbind(), &f->dl, f->path, sizeof f->path,
	                                tried, sizeof tried, msg, sizeof msg);
	if (st != PB_OK) {
		free(f);
		return pb_fail(st, err, errlen, "fftw: %s; %s", msg, FFTW_HINT);
	}
	const char *pre = f64 ? "fftw_" : "fftwf_";
	static const char *const names[] = {"plan_many_dft", "plan_many_dft_r2c", "execute_dft", "execute_dft_r2c",
	                                    "destroy_plan", "malloc", "free", "set_timelimit", "init_threads",
	                                    "plan_with_nthreads", "import_wisdom_from_filename",
	                                    "export_wisdom_to_filename"};
	void *slots[] = {&f->plan_many_dft, &f->plan_many_r2c, &f->execute_dft, &f->execute_r2c, &f->destroy,
	                 &f->malloc_, &f->free_, &f->set_timelimit, &f->init_threads, &f->plan_with_nthreads,
	                 &f->import_wisdom, &f->export_wisdom};
	char full[12][64];
	pb_sym table[12];
	for (size_t i = 0; i < 12; i++) {
		snprintf(full[i], sizeof full[i], "%s%s", pre, names[i]);
		table[i] = (pb_sym){full[i], slots[i], i >= 8}; /* threads and wisdom are optional */
	}
	char missing[512];
	pb_sb sb;
	pb_sb_init(&sb, missing, sizeof missing);
	if (pb_dl_resolve(f->dl, table, 12, &sb) > 0) {
		st = pb_fail(PB_ERR_SYMBOL, err, errlen, "fftw: %s lacks %s", f->path, missing);
		dlclose(f->dl);
		free(f);
		return st;
	}
	char vname[64];
	snprintf(vname, sizeof vname, "%sversion", pre);
	const char *v = dlsym(f->dl, vname);
	snprintf(f->version, sizeof f->version, "%s", v ? v : "unknown");
	if (f->init_threads != NULL && f->plan_with_nthreads != NULL && !f->init_threads()) {
		f->init_threads = NULL;
	}
	*out = f;
	return PB_OK;
}

void pb_fftw_close(pb_fftw *f) {
	if (f == NULL) return;
	/* The library stays loaded: its plans' code may still be referenced by wisdom. */
	free(f);
}

const char *pb_fftw_version(const pb_fftw *f) { return f->version; }
const char *pb_fftw_path(const pb_fftw *f) { return f->path; }
int pb_fftw_has_threads(const pb_fftw *f) { return f->init_threads != NULL; }

int pb_fftw_import_wisdom(pb_fftw *f, const char *path) {
	return f->import_wisdom != NULL && f->import_wisdom(path);
}

int pb_fftw_export_wisdom(pb_fftw *f, const char *path) {
	return f->export_wisdom != NULL && f->export_wisdom(path);
}

static double now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

void pb_fftw_plan_free(pb_fftw_plan *p) {
	if (p == NULL) return;
	if (p->plan != NULL) p->f->destroy(p->plan);
	for (int c = 0; c < p->copies; c++) {
		if (p->in && p->in[c]) p->f->free_(p->in[c]);
		if (p->out && p->out[c]) p->f->free_(p->out[c]);
	}
	free(p->in);
	free(p->out);
	free(p);
}

pb_status pb_fftw_plan_new(pb_fftw *f, int kind, int rank, const int *dims, int howmany,
                           unsigned flags, int threads, double timelimit, const double *in,
                           size_t nin, size_t nout, int copies, pb_fftw_plan **out,
                           double *plan_ns, char *err, size_t errlen) {
	if (rank < 1 || rank > 2 || howmany < 1 || copies < 1 || kind < 0 || kind > 2)
		return pb_fail(PB_ERR_INVALID, err, errlen, "fftw: rank %d, batch %d, copies %d, kind %d", rank, howmany, copies, kind);
	for (int i = 0; i < rank; i++)
		if (dims[i] < 1)
			return pb_fail(PB_ERR_INVALID, err, errlen, "fftw: length %d of dimension %d", dims[i], i);
	/* The buffers are sized by nin and nout: they must hold what the plan reads and writes. */
	size_t points = (size_t)dims[0] * (rank == 2 ? (size_t)dims[1] : 1) * (size_t)howmany;
	size_t want_in = kind == PB_FFTW_R2C ? points : 2 * points;
	size_t want_out = kind == PB_FFTW_R2C ? 2 * points / (size_t)dims[rank - 1] * (size_t)(dims[rank - 1] / 2 + 1) : 2 * points;
	if (nin != want_in || nout != want_out)
		return pb_fail(PB_ERR_INVALID, err, errlen, "fftw: %zu input and %zu output reals; this transform has %zu and %zu",
		               nin, nout, want_in, want_out);
	if (threads > 1 && f->init_threads == NULL)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "fftw: %d threads: the threads library (%s) did not load",
		               threads, f->f64 ? "libfftw3_threads" : "libfftw3f_threads");
	pb_fftw_plan *p = calloc(1, sizeof *p);
	if (p == NULL) return pb_fail(PB_ERR_NOMEM, err, errlen, "fftw: out of memory");
	p->f = f;
	p->kind = kind;
	p->copies = copies;
	p->nin = nin;
	p->nout = nout;
	p->in = calloc((size_t)copies, sizeof *p->in);
	p->out = calloc((size_t)copies, sizeof *p->out);
	size_t real = f->f64 ? sizeof(double) : sizeof(float);
	for (int c = 0; p->in && p->out && c < copies; c++) {
		p->in[c] = f->malloc_(nin * real);
		p->out[c] = f->malloc_(nout * real);
		if (p->in[c] == NULL || p->out[c] == NULL) break;
	}
	if (p->in == NULL || p->out == NULL || p->in[copies - 1] == NULL || p->out[copies - 1] == NULL) {
		pb_fftw_plan_free(p);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "fftw: out of memory for %d copies", copies);
	}
	if (f->plan_with_nthreads != NULL && f->init_threads != NULL) f->plan_with_nthreads(threads < 1 ? 1 : threads);
	f->set_timelimit(timelimit < 0 ? -1.0 : timelimit);
	int pts = rank == 1 ? dims[0] : dims[0] * dims[1];
	int last = dims[rank - 1];
	double t0 = now_ns();
	if (kind == PB_FFTW_R2C) {
		int odist = (rank == 1 ? 1 : dims[0]) * (last / 2 + 1);
		p->plan = f->plan_many_r2c(rank, dims, howmany, p->in[0], NULL, 1, pts, p->out[0], NULL, 1, odist, flags);
	} else {
		int sign = kind == PB_FFTW_FORWARD ? -1 : 1;
		p->plan = f->plan_many_dft(rank, dims, howmany, p->in[0], NULL, 1, pts, p->out[0], NULL, 1, pts, sign, flags);
	}
	*plan_ns = now_ns() - t0;
	if (p->plan == NULL) {
		pb_fftw_plan_free(p);
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "fftw: no plan for this transform (planner flags %u)", flags);
	}
	for (int c = 0; c < copies; c++) {
		for (size_t i = 0; i < nin; i++) {
			if (f->f64)
				((double *)p->in[c])[i] = in[i];
			else
				((float *)p->in[c])[i] = (float)in[i];
		}
	}
	*out = p;
	return PB_OK;
}

pb_status pb_fftw_run(pb_fftw_plan *p, long iters, double *ns, char *err, size_t errlen) {
	if (iters < 1) return pb_fail(PB_ERR_INVALID, err, errlen, "fftw: %ld iterations", iters);
	execute_dft_fn exec = p->kind == PB_FFTW_R2C ? p->f->execute_r2c : p->f->execute_dft;
	int c = p->last;
	double t0 = now_ns();
	if (p->copies == 1) {
		for (long i = 0; i < iters; i++) exec(p->plan, p->in[0], p->out[0]);
	} else {
		for (long i = 0; i < iters; i++) {
			c = (c + 1) % p->copies;
			exec(p->plan, p->in[c], p->out[c]);
		}
	}
	*ns = now_ns() - t0;
	p->last = c;
	return PB_OK;
}

void pb_fftw_output(const pb_fftw_plan *p, double *out) {
	const void *o = p->out[p->last];
	for (size_t i = 0; i < p->nout; i++)
		out[i] = p->f->f64 ? ((const double *)o)[i] : (double)((const float *)o)[i];
}
