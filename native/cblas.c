/*
 * cblas.c — loading the CBLAS libraries of pb_cblas_rows (cblas_families.c),
 * their thread count and their description, the same for each; what differs
 * between libraries is in their rows. The calls are in cblas_calls.c, the
 * timed jobs in cblas_jobs.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_internal.h"

static const pb_cblas_row *family_of(const char *name)
{
	for (int i = 0; i < pb_cblas_nrows; i++)
		if (strcmp(name, pb_cblas_rows[i].name) == 0)
			return &pb_cblas_rows[i];
	return NULL;
}

int pb_cblas_family_count(void) { return pb_cblas_nrows; }

int pb_cblas_family(int i, pb_cblas_family_info *out)
{
	if (i < 0 || i >= pb_cblas_nrows || out == NULL)
		return 0;
	const pb_cblas_row *f = &pb_cblas_rows[i];
	*out = (pb_cblas_family_info){
		.name = f->name,
		.description = f->description,
		.hint = f->hint,
		.env = f->env,
		.one_thread = f->set_threads == NULL,
	};
	return 1;
}

/* accepted writes the names pb_cblas_open takes, comma-separated. */
static void accepted(char *buf, size_t len)
{
	pb_sb s;
	pb_sb_init(&s, buf, len);
	for (int i = 0; i < pb_cblas_nrows; i++)
		pb_sb_printf(&s, "%s%s", i > 0 ? ", " : "", pb_cblas_rows[i].name);
}

const char *const pb_cblas_ext_names[PB_EXT_COUNT][2] = {
	[PB_EXT_SCAL] = {"cblas_sscal", "cblas_dscal"},
	[PB_EXT_NRM2] = {"cblas_snrm2", "cblas_dnrm2"},
	[PB_EXT_ASUM] = {"cblas_sasum", "cblas_dasum"},
	[PB_EXT_IAMAX] = {"cblas_isamax", "cblas_idamax"},
	[PB_EXT_COPY] = {"cblas_scopy", "cblas_dcopy"},
	[PB_EXT_SWAP] = {"cblas_sswap", "cblas_dswap"},
	[PB_EXT_TRSM] = {"cblas_strsm", "cblas_dtrsm"},
};

/*
 * resolve_all resolves the CBLAS routines every library has, then the
 * symbols of the library's row, which tell it from another CBLAS, then the
 * optional extras.
 */
static pb_status resolve_all(pb_cblas *lib, char *err, size_t errlen)
{
	enum { NCBLAS = 8 };
	pb_sym syms[NCBLAS + PB_CBLAS_FX_MAX] = {
		{"cblas_sgemm", &lib->sgemm, 0}, {"cblas_dgemm", &lib->dgemm, 0},
		{"cblas_sgemv", &lib->sgemv, 0}, {"cblas_dgemv", &lib->dgemv, 0},
		{"cblas_saxpy", &lib->saxpy, 0}, {"cblas_daxpy", &lib->daxpy, 0},
		{"cblas_sdot", &lib->sdot, 0},   {"cblas_ddot", &lib->ddot, 0},
	};
	const pb_cblas_row *f = lib->fam;
	size_t n = NCBLAS;
	for (size_t i = 0; i < f->nsyms && n < PB_NSYMS(syms); i++) {
		const pb_cblas_sym *s = &f->syms[i];
		if (s->slot >= 0 && s->slot < PB_CBLAS_FX_MAX) /* else a row's mistake the tests name */
			syms[n++] = (pb_sym){s->name, &lib->fx[s->slot], s->optional};
	}
	char mbuf[1024];
	pb_sb missing;
	pb_sb_init(&missing, mbuf, sizeof mbuf);
	int nm = pb_dl_resolve(lib->dl, syms, n, &missing);
	if (nm > 0) {
		int ncblas = 0; /* the CBLAS routines among the missing: their slots stayed NULL */
		for (int i = 0; i < NCBLAS; i++)
			ncblas += *(void **)syms[i].slot == NULL;
		if (ncblas > 0)
			return pb_fail(PB_ERR_SYMBOL, err, errlen,
			               "%s: %s is not a usable CBLAS library: missing symbol%s %s", f->name,
			               lib->path, nm > 1 ? "s" : "", mbuf);
		return pb_fail(PB_ERR_SYMBOL, err, errlen,
		               "%s: %s has CBLAS but is not %s: missing symbol%s %s", f->name, lib->path,
		               f->name, nm > 1 ? "s" : "", mbuf);
	}

	pb_sym ext[PB_EXT_COUNT * 2];
	for (int e = 0; e < PB_EXT_COUNT; e++)
		for (int t = 0; t < 2; t++)
			ext[e * 2 + t] = (pb_sym){pb_cblas_ext_names[e][t], &lib->ext[e][t], 1};
	pb_dl_resolve(lib->dl, ext, PB_NSYMS(ext), NULL);
	pb_cblas_resolve_lowp(lib);
	return PB_OK;
}

/*
 * check_interposition refuses a library whose calls to its own Fortran BLAS
 * or OpenMP runtime would bind to another library's: without RTLD_DEEPBIND
 * (sanitizer builds) the global scope comes first, and MKL puts its sgemm_
 * and libiomp5's GOMP_* there. Measured: the reference CBLAS loaded after
 * MKL ran sgemm at MKL's speed. With DEEPBIND nothing is interposed.
 */
static pb_status check_interposition(pb_cblas *lib, char *err, size_t errlen)
{
	if (pb_dl_deepbind() != 0)
		return PB_OK;
	static const char *const probes[] = {"sgemm_", "dgemm_", "GOMP_parallel", "omp_get_num_threads"};
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		void *own = NULL, *global = NULL;
		pb_sym mine[] = {{probes[i], &own, 1}}, first[] = {{probes[i], &global, 1}};
		pb_dl_resolve(lib->dl, mine, 1, NULL);
		pb_dl_resolve(RTLD_DEFAULT, first, 1, NULL);
		if (own == NULL || global == NULL || own == global)
			continue;
		Dl_info a, b;
		if (dladdr(own, &a) == 0 || dladdr(global, &b) == 0 || a.dli_fname == NULL ||
		    b.dli_fname == NULL || strcmp(a.dli_fname, b.dli_fname) == 0)
			continue;
		return pb_fail(PB_ERR_LIBRARY, err, errlen,
		               "%s: %s would call %s of %s (loaded earlier into the global scope, e.g. "
		               "by MKL) instead of its own (%s): open %s before MKL, or use a build "
		               "without sanitizers (which loads with RTLD_DEEPBIND)",
		               lib->name, lib->path, probes[i], b.dli_fname, a.dli_fname, lib->name);
	}
	return PB_OK;
}

/*
 * load_candidates opens the first of the row's candidates that loads (or
 * path alone). Every library but MKL binds to its own symbols first:
 * BLIS's and OpenBLAS's OpenMP calls to their own runtime, and the
 * reference CBLAS's calls to the Fortran sgemm_ & co. to its own, not to
 * those MKL put in the global scope (see loader.c).
 */
static pb_status load_candidates(pb_cblas *lib, const char *path, char *tried, size_t triedlen,
                                 char *err, size_t errlen)
{
	const pb_cblas_row *f = lib->fam;
	const char *const *cands = f->candidates;
	const char *env = f->env;
	const char *one[2] = {path, NULL};
	if (path != NULL && path[0] != '\0') {
		cands = one;
		env = NULL;
	}
	return pb_dl_open_flags(f->display, env, cands, pb_dl_deepbind(), &lib->dl, lib->path,
	                        sizeof lib->path, tried, triedlen, err, errlen);
}

static void describe(pb_cblas *lib)
{
	const pb_cblas_row *f = lib->fam;
	f->version(lib, lib->version, sizeof lib->version);
	pb_sb s;
	pb_sb_init(&s, lib->info, sizeof lib->info);
	pb_sb_printf(&s, "version=%s\n", lib->version);
	f->describe(lib, &s);
	pb_sb_printf(&s, "path=%s\n", lib->path);
}

pb_status pb_cblas_open(const char *name, const char *path, pb_cblas **out, char *tried,
                        size_t triedlen, char *err, size_t errlen)
{
	if (out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cblas_open: out is NULL");
	*out = NULL;
	if (tried != NULL && triedlen > 0)
		tried[0] = '\0';
	const pb_cblas_row *f = name != NULL ? family_of(name) : NULL;
	if (f == NULL) {
		char names[512];
		accepted(names, sizeof names);
		return pb_fail(PB_ERR_INVALID, err, errlen, "unknown CBLAS library %s%s%s (accepted: %s)",
		               name != NULL ? "\"" : "", name != NULL ? name : "(null)",
		               name != NULL ? "\"" : "", names);
	}
	pb_cblas *lib = calloc(1, sizeof *lib);
	if (lib == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "%s: out of memory", f->name);
	lib->fam = f;
	snprintf(lib->name, sizeof lib->name, "%s", f->name);

	char msg[2048];
	pb_status st = f->load != NULL ? f->load(lib, path, tried, triedlen, msg, sizeof msg)
	                               : load_candidates(lib, path, tried, triedlen, msg, sizeof msg);
	if (st != PB_OK) {
		free(lib);
		if (st == PB_ERR_NOT_FOUND)
			return pb_fail(st, err, errlen, "%s: %s; %s", f->name, msg, f->hint);
		return pb_fail(st, err, errlen, "%s", msg);
	}
	st = resolve_all(lib, err, errlen);
	if (st == PB_OK && f->check != NULL)
		st = f->check(lib, err, errlen);
	if (st == PB_OK && f->load == NULL)
		st = check_interposition(lib, err, errlen);
	if (st != PB_OK) {
		/* The library stays mapped (see pb_cblas_close); the handle is dropped. */
		free(lib);
		return st;
	}
	describe(lib);
	*out = lib;
	return PB_OK;
}

pb_status pb_cblas_close(pb_cblas *lib, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	/*
	 * No dlclose: OpenBLAS, BLIS and MKL keep worker threads (and OpenMP
	 * runtimes) alive, and unloading code they may still run is unsafe.
	 * The mapping is shared by later opens of the same file.
	 */
	free(lib);
	return PB_OK;
}

pb_status pb_cblas_info(const pb_cblas *lib, char *buf, size_t buflen, char *err, size_t errlen)
{
	if (lib == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cblas_info: NULL argument");
	int threads = 0;
	pb_cblas_get_threads(lib, &threads, NULL, 0);
	snprintf(buf, buflen, "name=%s\n%sthreads=%d\n", lib->name, lib->info, threads);
	return PB_OK;
}

pb_status pb_cblas_set_threads(pb_cblas *lib, int n, char *err, size_t errlen)
{
	if (lib == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cblas_set_threads: NULL library");
	pb_status st = pb_check_threads(lib->name, n, err, errlen);
	if (st != PB_OK)
		return st;
	const pb_cblas_row *f = lib->fam;
	if (f->set_threads == NULL) {
		if (n == 1)
			return PB_OK;
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "%s: %s: 1 thread only, asked for %d",
		               lib->name, f->one_thread, n);
	}
	int before = f->get_threads(lib);
	st = f->set_threads(lib, n, err, errlen);
	if (st != PB_OK)
		return st;
	int got = f->get_threads(lib);
	if (got != n) {
		f->set_threads(lib, before, NULL, 0); /* leave the library as it was */
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "%s: asked for %d threads, the library reports %d (a limit it was "
		               "built with?); left at %d",
		               lib->name, n, got, before);
	}
	return PB_OK;
}

pb_status pb_cblas_get_threads(const pb_cblas *lib, int *n, char *err, size_t errlen)
{
	if (lib == NULL || n == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cblas_get_threads: NULL argument");
	*n = lib->fam->get_threads != NULL ? lib->fam->get_threads(lib) : 1;
	return PB_OK;
}

