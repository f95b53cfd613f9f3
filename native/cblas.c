/*
 * cblas.c — one CBLAS function table for every library of
 * pb_cblas_rows (cblas_families.c): loading, the CBLAS routines, the
 * thread count and the description, the same for each; what differs
 * between libraries is in their rows.
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

static const char *const ext_names[PB_EXT_COUNT][2] = {
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
		int ncblas = pb_dl_resolve(lib->dl, syms, NCBLAS, NULL);
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
			ext[e * 2 + t] = (pb_sym){ext_names[e][t], &lib->ext[e][t], 1};
	pb_dl_resolve(lib->dl, ext, PB_NSYMS(ext), NULL);
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

/* Argument checks, as the BLAS would make them, before the library sees them. */

static pb_status bad(char *err, size_t errlen, const char *routine, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static pb_status bad(char *err, size_t errlen, const char *routine, const char *fmt, ...)
{
	if (err != NULL && errlen > 0) {
		int n = snprintf(err, errlen, "%s: ", routine);
		if (n > 0 && (size_t)n < errlen) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return PB_ERR_INVALID;
}

static int imax1(int a) { return a > 1 ? a : 1; }

static pb_status check_gemm(const char *r, pb_trans ta, pb_trans tb, int m, int n, int k,
                            const void *a, int lda, const void *b, int ldb, const void *c,
                            int ldc, char *err, size_t errlen)
{
	if ((ta != PB_NO_TRANS && ta != PB_TRANS) || (tb != PB_NO_TRANS && tb != PB_TRANS))
		return bad(err, errlen, r, "bad transpose %d/%d (accepted: 0 no, 1 yes)", ta, tb);
	if (m < 0 || n < 0 || k < 0)
		return bad(err, errlen, r, "negative dimension m=%d n=%d k=%d", m, n, k);
	int acols = ta == PB_TRANS ? m : k, bcols = tb == PB_TRANS ? k : n;
	if (lda < imax1(acols))
		return bad(err, errlen, r, "lda %d < max(1, %d)", lda, acols);
	if (ldb < imax1(bcols))
		return bad(err, errlen, r, "ldb %d < max(1, %d)", ldb, bcols);
	if (ldc < imax1(n))
		return bad(err, errlen, r, "ldc %d < max(1, n=%d)", ldc, n);
	if (m > 0 && n > 0 && (c == NULL || (k > 0 && (a == NULL || b == NULL))))
		return bad(err, errlen, r, "NULL matrix");
	return PB_OK;
}

static pb_status check_gemv(const char *r, pb_trans ta, int m, int n, const void *a, int lda,
                            const void *x, int incx, const void *y, int incy, char *err,
                            size_t errlen)
{
	if (ta != PB_NO_TRANS && ta != PB_TRANS)
		return bad(err, errlen, r, "bad transpose %d (accepted: 0 no, 1 yes)", ta);
	if (m < 0 || n < 0)
		return bad(err, errlen, r, "negative dimension m=%d n=%d", m, n);
	if (lda < imax1(n))
		return bad(err, errlen, r, "lda %d < max(1, n=%d)", lda, n);
	if (incx == 0 || incy == 0)
		return bad(err, errlen, r, "zero increment incx=%d incy=%d", incx, incy);
	if (m > 0 && n > 0 && (a == NULL || x == NULL || y == NULL))
		return bad(err, errlen, r, "NULL operand");
	return PB_OK;
}

static pb_status check_vec(const char *r, int n, const void *x, int incx, const void *y,
                           int incy, int need_y, char *err, size_t errlen)
{
	if (n < 0)
		return bad(err, errlen, r, "negative length n=%d", n);
	if (incx == 0 || (need_y && incy == 0))
		return bad(err, errlen, r, "zero increment");
	if (n > 0 && (x == NULL || (need_y && y == NULL)))
		return bad(err, errlen, r, "NULL vector");
	return PB_OK;
}

static pb_status check_lib(const pb_cblas *lib, char *err, size_t errlen)
{
	if (lib == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "NULL library handle");
	return PB_OK;
}

#define CBLAS_T(t) ((t) == PB_TRANS ? CblasTrans : CblasNoTrans)

pb_status pb_cblas_sgemm(const pb_cblas *lib, pb_trans ta, pb_trans tb, int m, int n, int k,
                         float alpha, const float *a, int lda, const float *b, int ldb,
                         float beta, float *c, int ldc, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_gemm("sgemm", ta, tb, m, n, k, a, lda, b, ldb, c, ldc, err, errlen);
	if (st != PB_OK)
		return st;
	if (m == 0 || n == 0)
		return PB_OK;
	lib->sgemm(CblasRowMajor, CBLAS_T(ta), CBLAS_T(tb), m, n, k, alpha, a, lda, b, ldb, beta, c,
	           ldc);
	return PB_OK;
}

pb_status pb_cblas_dgemm(const pb_cblas *lib, pb_trans ta, pb_trans tb, int m, int n, int k,
                         double alpha, const double *a, int lda, const double *b, int ldb,
                         double beta, double *c, int ldc, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_gemm("dgemm", ta, tb, m, n, k, a, lda, b, ldb, c, ldc, err, errlen);
	if (st != PB_OK)
		return st;
	if (m == 0 || n == 0)
		return PB_OK;
	lib->dgemm(CblasRowMajor, CBLAS_T(ta), CBLAS_T(tb), m, n, k, alpha, a, lda, b, ldb, beta, c,
	           ldc);
	return PB_OK;
}

pb_status pb_cblas_sgemv(const pb_cblas *lib, pb_trans ta, int m, int n, float alpha,
                         const float *a, int lda, const float *x, int incx, float beta,
                         float *y, int incy, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_gemv("sgemv", ta, m, n, a, lda, x, incx, y, incy, err, errlen);
	if (st != PB_OK)
		return st;
	if (m == 0 || n == 0)
		return PB_OK;
	lib->sgemv(CblasRowMajor, CBLAS_T(ta), m, n, alpha, a, lda, x, incx, beta, y, incy);
	return PB_OK;
}

pb_status pb_cblas_dgemv(const pb_cblas *lib, pb_trans ta, int m, int n, double alpha,
                         const double *a, int lda, const double *x, int incx, double beta,
                         double *y, int incy, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_gemv("dgemv", ta, m, n, a, lda, x, incx, y, incy, err, errlen);
	if (st != PB_OK)
		return st;
	if (m == 0 || n == 0)
		return PB_OK;
	lib->dgemv(CblasRowMajor, CBLAS_T(ta), m, n, alpha, a, lda, x, incx, beta, y, incy);
	return PB_OK;
}

pb_status pb_cblas_saxpy(const pb_cblas *lib, int n, float alpha, const float *x, int incx,
                         float *y, int incy, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_vec("saxpy", n, x, incx, y, incy, 1, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	lib->saxpy(n, alpha, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_daxpy(const pb_cblas *lib, int n, double alpha, const double *x, int incx,
                         double *y, int incy, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_vec("daxpy", n, x, incx, y, incy, 1, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	lib->daxpy(n, alpha, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_sdot(const pb_cblas *lib, int n, const float *x, int incx, const float *y,
                        int incy, float *result, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_vec("sdot", n, x, incx, y, incy, 1, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "sdot", "NULL result");
	if (st != PB_OK)
		return st;
	*result = n == 0 ? 0.0f : lib->sdot(n, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_ddot(const pb_cblas *lib, int n, const double *x, int incx, const double *y,
                        int incy, double *result, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st == PB_OK)
		st = check_vec("ddot", n, x, incx, y, incy, 1, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "ddot", "NULL result");
	if (st != PB_OK)
		return st;
	*result = n == 0 ? 0.0 : lib->ddot(n, x, incx, y, incy);
	return PB_OK;
}

/* Extras */

int pb_cblas_has(const pb_cblas *lib, pb_cblas_ext ext, pb_dtype dt)
{
	if (lib == NULL || (int)ext < 0 || ext >= PB_EXT_COUNT || (dt != PB_F32 && dt != PB_F64))
		return 0;
	return lib->ext[ext][dt == PB_F64] != NULL;
}

static pb_status ext_fn(const pb_cblas *lib, pb_cblas_ext ext, pb_dtype dt, void **fn, char *err,
                        size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st != PB_OK)
		return st;
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	*fn = lib->ext[ext][dt == PB_F64];
	if (*fn == NULL)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "%s: %s lacks %s", lib->name, lib->path,
		               ext_names[ext][dt == PB_F64]);
	return PB_OK;
}

pb_status pb_cblas_scal(const pb_cblas *lib, pb_dtype dt, int n, double alpha, void *x, int incx,
                        char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_SCAL, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("scal", n, x, incx, NULL, 0, 0, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	if (incx < 0) /* BLAS: a negative increment makes scal a no-op */
		return PB_OK;
	if (dt == PB_F32)
		((cblas_sscal_fn)fn)(n, (float)alpha, x, incx);
	else
		((cblas_dscal_fn)fn)(n, alpha, x, incx);
	return PB_OK;
}

pb_status pb_cblas_nrm2(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                        double *result, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_NRM2, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("nrm2", n, x, incx, NULL, 0, 0, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "nrm2", "NULL result");
	if (st != PB_OK)
		return st;
	if (n == 0 || incx < 0) {
		*result = 0;
		return PB_OK;
	}
	*result = dt == PB_F32 ? (double)((cblas_snrm2_fn)fn)(n, x, incx)
	                       : ((cblas_dnrm2_fn)fn)(n, x, incx);
	return PB_OK;
}

pb_status pb_cblas_asum(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                        double *result, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_ASUM, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("asum", n, x, incx, NULL, 0, 0, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "asum", "NULL result");
	if (st != PB_OK)
		return st;
	if (n == 0 || incx < 0) {
		*result = 0;
		return PB_OK;
	}
	*result = dt == PB_F32 ? (double)((cblas_sasum_fn)fn)(n, x, incx)
	                       : ((cblas_dasum_fn)fn)(n, x, incx);
	return PB_OK;
}

pb_status pb_cblas_iamax(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                         int *result, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_IAMAX, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("iamax", n, x, incx, NULL, 0, 0, err, errlen);
	if (st == PB_OK && result == NULL)
		st = bad(err, errlen, "iamax", "NULL result");
	if (st != PB_OK)
		return st;
	if (n == 0 || incx < 0) {
		*result = -1;
		return PB_OK;
	}
	size_t i = dt == PB_F32 ? ((cblas_isamax_fn)fn)(n, x, incx) : ((cblas_idamax_fn)fn)(n, x, incx);
	*result = (int)i;
	return PB_OK;
}

pb_status pb_cblas_copy(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                        void *y, int incy, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_COPY, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("copy", n, x, incx, y, incy, 1, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	if (dt == PB_F32)
		((cblas_scopy_fn)fn)(n, x, incx, y, incy);
	else
		((cblas_dcopy_fn)fn)(n, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_swap(const pb_cblas *lib, pb_dtype dt, int n, void *x, int incx, void *y,
                        int incy, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_SWAP, dt, &fn, err, errlen);
	if (st == PB_OK)
		st = check_vec("swap", n, x, incx, y, incy, 1, err, errlen);
	if (st != PB_OK || n == 0)
		return st;
	if (dt == PB_F32)
		((cblas_sswap_fn)fn)(n, x, incx, y, incy);
	else
		((cblas_dswap_fn)fn)(n, x, incx, y, incy);
	return PB_OK;
}

pb_status pb_cblas_trsm(const pb_cblas *lib, pb_dtype dt, pb_side side, pb_uplo uplo,
                        pb_trans ta, pb_diag diag, int m, int n, double alpha, const void *a,
                        int lda, void *b, int ldb, char *err, size_t errlen)
{
	void *fn;
	pb_status st = ext_fn(lib, PB_EXT_TRSM, dt, &fn, err, errlen);
	if (st != PB_OK)
		return st;
	if ((side != PB_LEFT && side != PB_RIGHT) || (uplo != PB_UPPER && uplo != PB_LOWER) ||
	    (ta != PB_NO_TRANS && ta != PB_TRANS) || (diag != PB_NON_UNIT && diag != PB_UNIT))
		return bad(err, errlen, "trsm", "bad side/uplo/trans/diag %d/%d/%d/%d", side, uplo, ta,
		           diag);
	if (m < 0 || n < 0)
		return bad(err, errlen, "trsm", "negative dimension m=%d n=%d", m, n);
	int k = side == PB_LEFT ? m : n;
	if (lda < imax1(k))
		return bad(err, errlen, "trsm", "lda %d < max(1, %d)", lda, k);
	if (ldb < imax1(n))
		return bad(err, errlen, "trsm", "ldb %d < max(1, n=%d)", ldb, n);
	if (m == 0 || n == 0)
		return PB_OK;
	if (a == NULL || b == NULL)
		return bad(err, errlen, "trsm", "NULL matrix");
	int cs = side == PB_LEFT ? CblasLeft : CblasRight;
	int cu = uplo == PB_UPPER ? CblasUpper : CblasLower;
	int cd = diag == PB_UNIT ? CblasUnit : CblasNonUnit;
	if (dt == PB_F32)
		((cblas_strsm_fn)fn)(CblasRowMajor, cs, cu, CBLAS_T(ta), cd, m, n, (float)alpha, a, lda,
		                     b, ldb);
	else
		((cblas_dtrsm_fn)fn)(CblasRowMajor, cs, cu, CBLAS_T(ta), cd, m, n, alpha, a, lda, b,
		                     ldb);
	return PB_OK;
}

/* Jobs */

/* apply_threads runs before the clock: the job's count may differ from the library's now. */
static pb_status apply_threads(pb_job *j, char *err, size_t errlen)
{
	if (j->threads == 0)
		return PB_OK;
	int now = 0;
	pb_cblas_get_threads(j->lib, &now, NULL, 0);
	if (now == j->threads)
		return PB_OK;
	return pb_cblas_set_threads((pb_cblas *)j->lib, j->threads, err, errlen);
}

static pb_status new_job(pb_cblas *lib, pb_dtype dt, int nargs, const size_t *lens, int output,
                         const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	pb_status st = check_lib(lib, err, errlen);
	if (st != PB_OK)
		return st;
	if (opts != NULL && opts->threads != 0) {
		st = pb_cblas_set_threads(lib, opts->threads, err, errlen);
		if (st != PB_OK)
			return st;
	}
	st = pb_job_alloc(dt, nargs, lens, output, opts, out, err, errlen);
	if (st != PB_OK)
		return st;
	(*out)->lib = lib;
	(*out)->before = apply_threads;
	return PB_OK;
}

static pb_status it_sgemm(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	int ta = (int)j->p[0], tb = (int)j->p[1], m = (int)j->p[2], n = (int)j->p[3],
	    k = (int)j->p[4];
	j->lib->sgemm(CblasRowMajor, CBLAS_T(ta), CBLAS_T(tb), m, n, k, 1.0f, pb_job_buf(j, c, 0),
	              ta ? m : k, pb_job_buf(j, c, 1), tb ? k : n, 0.0f, pb_job_buf(j, c, 2), n);
	return PB_OK;
}

static pb_status it_dgemm(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	int ta = (int)j->p[0], tb = (int)j->p[1], m = (int)j->p[2], n = (int)j->p[3],
	    k = (int)j->p[4];
	j->lib->dgemm(CblasRowMajor, CBLAS_T(ta), CBLAS_T(tb), m, n, k, 1.0, pb_job_buf(j, c, 0),
	              ta ? m : k, pb_job_buf(j, c, 1), tb ? k : n, 0.0, pb_job_buf(j, c, 2), n);
	return PB_OK;
}

static pb_status check_dt(pb_dtype dt, char *err, size_t errlen)
{
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	return PB_OK;
}

pb_status pb_cblas_job_gemm(pb_cblas *lib, pb_dtype dt, pb_trans ta, pb_trans tb, int m, int n,
                            int k, const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	pb_status st = check_dt(dt, err, errlen);
	if (st != PB_OK)
		return st;
	if (m < 1 || n < 1 || k < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "gemm job: m, n and k must be at least 1 (m=%d n=%d k=%d)", m, n, k);
	if ((ta != PB_NO_TRANS && ta != PB_TRANS) || (tb != PB_NO_TRANS && tb != PB_TRANS))
		return pb_fail(PB_ERR_INVALID, err, errlen, "gemm job: bad transpose %d/%d", ta, tb);
	size_t lens[3] = {(size_t)m * (size_t)k, (size_t)k * (size_t)n, (size_t)m * (size_t)n};
	st = new_job(lib, dt, 3, lens, 2, opts, out, err, errlen);
	if (st != PB_OK)
		return st;
	pb_job *j = *out;
	j->p[0] = ta;
	j->p[1] = tb;
	j->p[2] = m;
	j->p[3] = n;
	j->p[4] = k;
	j->iter = dt == PB_F32 ? it_sgemm : it_dgemm;
	snprintf(j->desc, sizeof j->desc, "%s cblas_%cgemm %s%s m=%d n=%d k=%d", lib->name,
	         dt == PB_F32 ? 's' : 'd', ta ? "T" : "N", tb ? "T" : "N", m, n, k);
	return PB_OK;
}

static pb_status it_sgemv(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	int m = (int)j->p[0], n = (int)j->p[1];
	j->lib->sgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0f, pb_job_buf(j, c, 0), n,
	              pb_job_buf(j, c, 1), 1, 0.0f, pb_job_buf(j, c, 2), 1);
	return PB_OK;
}

static pb_status it_dgemv(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	int m = (int)j->p[0], n = (int)j->p[1];
	j->lib->dgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0, pb_job_buf(j, c, 0), n,
	              pb_job_buf(j, c, 1), 1, 0.0, pb_job_buf(j, c, 2), 1);
	return PB_OK;
}

pb_status pb_cblas_job_gemv(pb_cblas *lib, pb_dtype dt, int m, int n, const pb_job_opts *opts,
                            pb_job **out, char *err, size_t errlen)
{
	pb_status st = check_dt(dt, err, errlen);
	if (st != PB_OK)
		return st;
	if (m < 1 || n < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "gemv job: m and n must be at least 1 (m=%d n=%d)", m, n);
	size_t lens[3] = {(size_t)m * (size_t)n, (size_t)n, (size_t)m};
	st = new_job(lib, dt, 3, lens, 2, opts, out, err, errlen);
	if (st != PB_OK)
		return st;
	pb_job *j = *out;
	j->p[0] = m;
	j->p[1] = n;
	j->iter = dt == PB_F32 ? it_sgemv : it_dgemv;
	snprintf(j->desc, sizeof j->desc, "%s cblas_%cgemv N m=%d n=%d", lib->name,
	         dt == PB_F32 ? 's' : 'd', m, n);
	return PB_OK;
}

static pb_status it_saxpy(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	j->lib->saxpy((int)j->p[0], (float)j->alpha, pb_job_buf(j, c, 0), 1, pb_job_buf(j, c, 1), 1);
	return PB_OK;
}

static pb_status it_daxpy(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	j->lib->daxpy((int)j->p[0], j->alpha, pb_job_buf(j, c, 0), 1, pb_job_buf(j, c, 1), 1);
	return PB_OK;
}

pb_status pb_cblas_job_axpy(pb_cblas *lib, pb_dtype dt, int n, double alpha,
                            const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	pb_status st = check_dt(dt, err, errlen);
	if (st != PB_OK)
		return st;
	if (n < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen, "axpy job: n must be at least 1 (n=%d)", n);
	size_t lens[2] = {(size_t)n, (size_t)n};
	st = new_job(lib, dt, 2, lens, 1, opts, out, err, errlen);
	if (st != PB_OK)
		return st;
	pb_job *j = *out;
	j->p[0] = n;
	j->alpha = alpha;
	j->iter = dt == PB_F32 ? it_saxpy : it_daxpy;
	snprintf(j->desc, sizeof j->desc, "%s cblas_%caxpy n=%d alpha=%g", lib->name,
	         dt == PB_F32 ? 's' : 'd', n, alpha);
	return PB_OK;
}

static pb_status it_sdot(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	float *r = pb_job_buf(j, c, 2);
	*r = j->lib->sdot((int)j->p[0], pb_job_buf(j, c, 0), 1, pb_job_buf(j, c, 1), 1);
	return PB_OK;
}

static pb_status it_ddot(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	double *r = pb_job_buf(j, c, 2);
	*r = j->lib->ddot((int)j->p[0], pb_job_buf(j, c, 0), 1, pb_job_buf(j, c, 1), 1);
	return PB_OK;
}

pb_status pb_cblas_job_dot(pb_cblas *lib, pb_dtype dt, int n, const pb_job_opts *opts,
                           pb_job **out, char *err, size_t errlen)
{
	pb_status st = check_dt(dt, err, errlen);
	if (st != PB_OK)
		return st;
	if (n < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen, "dot job: n must be at least 1 (n=%d)", n);
	size_t lens[3] = {(size_t)n, (size_t)n, 1};
	st = new_job(lib, dt, 3, lens, 2, opts, out, err, errlen);
	if (st != PB_OK)
		return st;
	pb_job *j = *out;
	j->p[0] = n;
	j->iter = dt == PB_F32 ? it_sdot : it_ddot;
	snprintf(j->desc, sizeof j->desc, "%s cblas_%cdot n=%d", lib->name, dt == PB_F32 ? 's' : 'd',
	         n);
	return PB_OK;
}

/* Shared with mkl.c's VML jobs. */
pb_status pb_cblas_new_job(pb_cblas *lib, pb_dtype dt, int nargs, const size_t *lens, int output,
                           const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	return new_job(lib, dt, nargs, lens, output, opts, out, err, errlen);
}
