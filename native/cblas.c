/*
 * cblas.c — one CBLAS function table for OpenBLAS, BLIS, MKL and the
 * reference BLAS, with each library's thread control and version.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_internal.h"

static const char *const openblas_candidates[] = {
	"libopenblas.so.0",
	"libopenblas.so",
	PB_MULTIARCH "/openblas-pthread/libopenblas.so.0",
	PB_MULTIARCH "/openblas-openmp/libopenblas.so.0",
	PB_MULTIARCH "/openblas-serial/libopenblas.so.0",
	"/usr/lib64/libopenblas.so.0",
	"/usr/local/lib/libopenblas.so.0",
	"/opt/OpenBLAS/lib/libopenblas.so.0",
	NULL,
};

static const char *const blis_candidates[] = {
	"libblis.so.4",
	"libblis.so.3",
	"libblis.so",
	PB_MULTIARCH "/blis-openmp/libblis.so.4",
	PB_MULTIARCH "/blis-pthread/libblis.so.4",
	PB_MULTIARCH "/blis-serial/libblis.so.4",
	"/usr/local/lib/libblis.so.4",
	"/usr/local/lib/libblis.so",
	NULL,
};

/*
 * The reference BLAS is found by its own path only: the soname libblas.so.3
 * is an alternatives link that Debian may point at OpenBLAS or BLIS.
 */
static const char *const netlib_candidates[] = {
	PB_MULTIARCH "/blas/libblas.so.3",
	"/usr/lib64/libcblas.so.3",
	"/usr/lib/libcblas.so.3",
	NULL,
};

static const struct family {
	const char *name;
	const char *env;
	const char *const *candidates;
	const char *display;
	const char *hint;
} families[] = {
	[PB_FAM_OPENBLAS] = {"openblas", "PEAKBENCH_OPENBLAS", openblas_candidates, "libopenblas",
	                     "install libopenblas-dev (Debian/Ubuntu) or set PEAKBENCH_OPENBLAS to "
	                     "the path of libopenblas.so"},
	[PB_FAM_BLIS] = {"blis", "PEAKBENCH_BLIS", blis_candidates, "libblis",
	                 "install libblis-dev (Debian/Ubuntu) or set PEAKBENCH_BLIS to the path of "
	                 "libblis.so"},
	[PB_FAM_MKL] = {"mkl", "PEAKBENCH_MKL", NULL, "libmkl_rt.so",
	                "install libmkl-dev (Debian non-free; and libomp-dev for MKL's Intel "
	                "threading layer) or set PEAKBENCH_MKL to the path of libmkl_rt.so"},
	[PB_FAM_NETLIB] = {"netlib", "PEAKBENCH_NETLIB", netlib_candidates,
	                   "the reference BLAS (" PB_MULTIARCH "/blas/libblas.so.3)",
	                   "install libblas-dev (Debian/Ubuntu: the reference BLAS and CBLAS) or set "
	                   "PEAKBENCH_NETLIB to the path of the reference libblas.so.3"},
};

static int family_of(const char *name)
{
	for (int i = 0; i < (int)(sizeof families / sizeof families[0]); i++)
		if (strcmp(name, families[i].name) == 0)
			return i;
	return -1;
}

static void *sym(void *dl, const char *name)
{
	dlerror();
	return dlsym(dl, name);
}

/* resolve fills *slot with name's address, or appends name to the missing list. */
static void resolve(void *dl, const char *name, void *slot, pb_sb *missing, int *nmissing)
{
	void *p = sym(dl, name);
	memcpy(slot, &p, sizeof p);
	if (p == NULL) {
		pb_sb_printf(missing, "%s%s", *nmissing > 0 ? ", " : "", name);
		(*nmissing)++;
	}
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

static pb_status resolve_all(pb_cblas *lib, char *err, size_t errlen)
{
	char mbuf[1024];
	pb_sb missing;
	pb_sb_init(&missing, mbuf, sizeof mbuf);
	int nm = 0;
	void *dl = lib->dl;
	resolve(dl, "cblas_sgemm", &lib->sgemm, &missing, &nm);
	resolve(dl, "cblas_dgemm", &lib->dgemm, &missing, &nm);
	resolve(dl, "cblas_sgemv", &lib->sgemv, &missing, &nm);
	resolve(dl, "cblas_dgemv", &lib->dgemv, &missing, &nm);
	resolve(dl, "cblas_saxpy", &lib->saxpy, &missing, &nm);
	resolve(dl, "cblas_daxpy", &lib->daxpy, &missing, &nm);
	resolve(dl, "cblas_sdot", &lib->sdot, &missing, &nm);
	resolve(dl, "cblas_ddot", &lib->ddot, &missing, &nm);
	int ncblas = nm;
	switch (lib->family) {
	case PB_FAM_OPENBLAS:
		resolve(dl, "openblas_set_num_threads", &lib->ob_set_threads, &missing, &nm);
		resolve(dl, "openblas_get_num_threads", &lib->ob_get_threads, &missing, &nm);
		lib->ob_config = (openblas_get_config_fn)sym(dl, "openblas_get_config");
		lib->ob_corename = (openblas_get_corename_fn)sym(dl, "openblas_get_corename");
		lib->ob_parallel = (openblas_get_parallel_fn)sym(dl, "openblas_get_parallel");
		break;
	case PB_FAM_BLIS:
		resolve(dl, "bli_thread_set_num_threads", &lib->bli_set_threads, &missing, &nm);
		resolve(dl, "bli_thread_get_num_threads", &lib->bli_get_threads, &missing, &nm);
		resolve(dl, "bli_info_get_version_str", &lib->bli_version, &missing, &nm);
		lib->bli_init = (bli_init_fn)sym(dl, "bli_init");
		lib->bli_arch_id = (bli_arch_query_id_fn)sym(dl, "bli_arch_query_id");
		lib->bli_arch_string = (bli_arch_string_fn)sym(dl, "bli_arch_string");
		lib->bli_openmp = (bli_info_get_enable_flag_fn)sym(dl, "bli_info_get_enable_openmp");
		lib->bli_pthreads = (bli_info_get_enable_flag_fn)sym(dl, "bli_info_get_enable_pthreads");
		break;
	default:
		break;
	}
	if (nm > 0) {
		const struct family *f = &families[lib->family];
		if (ncblas > 0)
			return pb_fail(PB_ERR_SYMBOL, err, errlen,
			               "%s: %s is not a usable CBLAS library: missing symbol%s %s", f->name,
			               lib->path, nm > 1 ? "s" : "", mbuf);
		return pb_fail(PB_ERR_SYMBOL, err, errlen,
		               "%s: %s has CBLAS but is not %s: missing symbol%s %s", f->name, lib->path,
		               f->name, nm > 1 ? "s" : "", mbuf);
	}
	for (int e = 0; e < PB_EXT_COUNT; e++)
		for (int t = 0; t < 2; t++)
			lib->ext[e][t] = sym(dl, ext_names[e][t]);
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
		void *own = sym(lib->dl, probes[i]);
		void *global = dlsym(RTLD_DEFAULT, probes[i]);
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

/* The reference BLAS must not be an optimized library behind another name. */
static pb_status check_netlib(pb_cblas *lib, char *err, size_t errlen)
{
	static const struct {
		const char *sym, *what;
	} impostors[] = {
		{"openblas_get_config", "OpenBLAS"},
		{"bli_info_get_version_str", "BLIS"},
		{"MKL_Get_Version", "MKL"},
	};
	for (size_t i = 0; i < sizeof impostors / sizeof impostors[0]; i++)
		if (sym(lib->dl, impostors[i].sym) != NULL)
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "netlib: %s is %s (it exports %s), not the reference BLAS; %s",
			               lib->path, impostors[i].what, impostors[i].sym,
			               families[PB_FAM_NETLIB].hint);
	return PB_OK;
}

/* openblas_version reads "OpenBLAS 0.3.21 ..." from the config string. */
static void openblas_version(const char *config, char *out, size_t outlen)
{
	const char *p = config != NULL ? strstr(config, "OpenBLAS ") : NULL;
	if (p == NULL) {
		snprintf(out, outlen, "unknown (no openblas_get_config)");
		return;
	}
	p += strlen("OpenBLAS ");
	size_t n = strcspn(p, " ");
	snprintf(out, outlen, "%.*s", (int)n, p);
}

/*
 * netlib_version reads the version from the resolved file name, e.g.
 * libblas.so.3.11.0 → 3.11.0: the reference BLAS has no version call.
 */
static void netlib_version(const char *path, char *out, size_t outlen)
{
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	const char *so = strstr(base, ".so.");
	if (so == NULL) {
		snprintf(out, outlen, "unknown");
		return;
	}
	const char *v = so + 4;
	/* a version has at least two components; "3" alone is the soname */
	if (strchr(v, '.') == NULL) {
		snprintf(out, outlen, "unknown (soname %s only)", base);
		return;
	}
	snprintf(out, outlen, "%s", v);
}

static void describe(pb_cblas *lib)
{
	pb_sb s;
	pb_sb_init(&s, lib->info, sizeof lib->info);
	switch (lib->family) {
	case PB_FAM_OPENBLAS: {
		const char *config = lib->ob_config != NULL ? lib->ob_config() : NULL;
		openblas_version(config, lib->version, sizeof lib->version);
		pb_sb_printf(&s, "version=%s\n", lib->version);
		if (config != NULL)
			pb_sb_printf(&s, "config=%s\n", config);
		const char *threading = "unknown";
		if (lib->ob_parallel != NULL) {
			switch (lib->ob_parallel()) {
			case OPENBLAS_SEQUENTIAL:
				threading = "sequential";
				break;
			case OPENBLAS_THREAD:
				threading = "pthreads";
				break;
			case OPENBLAS_OPENMP:
				threading = "openmp";
				break;
			}
		}
		pb_sb_printf(&s, "threading=%s\n", threading);
		if (lib->ob_corename != NULL)
			pb_sb_printf(&s, "code_path=%s\n", lib->ob_corename());
		break;
	}
	case PB_FAM_BLIS: {
		snprintf(lib->version, sizeof lib->version, "%s", lib->bli_version());
		pb_sb_printf(&s, "version=%s\n", lib->version);
		const char *threading = "none";
		if (lib->bli_openmp != NULL && lib->bli_openmp())
			threading = "openmp";
		else if (lib->bli_pthreads != NULL && lib->bli_pthreads())
			threading = "pthreads";
		pb_sb_printf(&s, "threading=%s\n", threading);
		if (lib->bli_init != NULL && lib->bli_arch_id != NULL && lib->bli_arch_string != NULL) {
			lib->bli_init(); /* before the query: see include/vendor/blis.h */
			pb_sb_printf(&s, "code_path=%s\n", lib->bli_arch_string(lib->bli_arch_id()));
		}
		break;
	}
	case PB_FAM_MKL:
		pb_mkl_describe(lib, &s);
		break;
	case PB_FAM_NETLIB:
		netlib_version(lib->path, lib->version, sizeof lib->version);
		pb_sb_printf(&s, "version=%s\n", lib->version);
		pb_sb_printf(&s, "version_source=file name of %s (the reference BLAS has no version "
		                 "call)\n",
		             lib->path);
		pb_sb_printf(&s, "threading=none (single-threaded)\n");
		pb_sb_printf(&s, "code_path=generic (compiled Fortran reference)\n");
		break;
	}
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
	int fam = name != NULL ? family_of(name) : -1;
	if (fam < 0)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "unknown CBLAS library %s%s%s (accepted: openblas, blis, mkl, netlib)",
		               name != NULL ? "\"" : "", name != NULL ? name : "(null)",
		               name != NULL ? "\"" : "");
	const struct family *f = &families[fam];
	pb_cblas *lib = calloc(1, sizeof *lib);
	if (lib == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "%s: out of memory", f->name);
	lib->family = fam;
	snprintf(lib->name, sizeof lib->name, "%s", f->name);

	pb_status st;
	char msg[2048];
	if (fam == PB_FAM_MKL) {
		st = pb_mkl_load(lib, path, tried, triedlen, msg, sizeof msg);
	} else {
		const char *const *cands = f->candidates;
		const char *env = f->env;
		const char *one[2] = {path, NULL};
		if (path != NULL && path[0] != '\0') {
			cands = one;
			env = NULL;
		}
		/*
		 * Every library but MKL binds to its own symbols first: BLIS's and
		 * OpenBLAS's OpenMP calls to their own runtime, and the reference
		 * CBLAS's calls to the Fortran sgemm_ & co. to its own, not to
		 * those MKL put in the global scope (see loader.c).
		 */
		int extra = pb_dl_deepbind();
		st = pb_dl_open_flags(f->display, env, cands, extra, &lib->dl, lib->path,
		                      sizeof lib->path, tried, triedlen, msg, sizeof msg);
	}
	if (st != PB_OK) {
		free(lib);
		if (st == PB_ERR_NOT_FOUND)
			return pb_fail(st, err, errlen, "%s: %s; %s", f->name, msg, f->hint);
		return pb_fail(st, err, errlen, "%s", msg);
	}
	st = resolve_all(lib, err, errlen);
	if (st == PB_OK && fam == PB_FAM_NETLIB)
		st = check_netlib(lib, err, errlen);
	if (st == PB_OK && fam != PB_FAM_MKL)
		st = check_interposition(lib, err, errlen);
	if (st == PB_OK && fam == PB_FAM_MKL)
		st = pb_mkl_resolve(lib, err, errlen);
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
	int got = 0, before = 0;
	pb_cblas_get_threads(lib, &before, NULL, 0);
	switch (lib->family) {
	case PB_FAM_OPENBLAS:
		if (lib->ob_get_threads() != n)
			lib->ob_set_threads(n);
		got = lib->ob_get_threads();
		break;
	case PB_FAM_BLIS:
		lib->bli_set_threads((bli_dim_t)n);
		got = (int)lib->bli_get_threads();
		break;
	case PB_FAM_MKL:
		if (lib->mkl.layer == MKL_THREADING_SEQUENTIAL && n != 1)
			return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
			               "mkl: runs its sequential threading layer (%s): 1 thread only, "
			               "asked for %d",
			               lib->mkl.layer_why, n);
		lib->mkl.set_num_threads(n);
		got = lib->mkl.get_max_threads();
		break;
	case PB_FAM_NETLIB:
		if (n != 1)
			return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
			               "netlib: the reference BLAS is single-threaded: 1 thread only, "
			               "asked for %d",
			               n);
		return PB_OK;
	}
	if (got != n) {
		/* Leave the library as it was. */
		if (lib->family == PB_FAM_OPENBLAS)
			lib->ob_set_threads(before);
		else if (lib->family == PB_FAM_BLIS)
			lib->bli_set_threads((bli_dim_t)before);
		else if (lib->family == PB_FAM_MKL)
			lib->mkl.set_num_threads(before);
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
	switch (lib->family) {
	case PB_FAM_OPENBLAS:
		*n = lib->ob_get_threads();
		break;
	case PB_FAM_BLIS:
		*n = (int)lib->bli_get_threads();
		/* BLIS reports -1 ("unset") until told; it then runs 1 thread. */
		if (*n < 1)
			*n = 1;
		break;
	case PB_FAM_MKL:
		*n = lib->mkl.get_max_threads();
		break;
	default:
		*n = 1;
	}
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
