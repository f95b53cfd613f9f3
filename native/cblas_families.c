/*
 * cblas_families.c — the CBLAS libraries peakbench knows, one row each:
 * where to find the library, the symbols that identify and control it,
 * and the small functions for what differs (threads, version, details).
 * Adding a CBLAS is adding a row here (and its install line in
 * scripts/install-deps.sh); cblas.c, the Go packages and the tests derive
 * the rest from the table.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "pb_internal.h"

/* Shared by the libraries that report no version of their own. */

/*
 * version_from_file reads the version from the resolved file name, e.g.
 * libblas.so.3.11.0 → 3.11.0, for libraries without a version call.
 */
static void version_from_file(pb_cblas *lib, char *out, size_t outlen)
{
	const char *base = strrchr(lib->path, '/');
	base = base != NULL ? base + 1 : lib->path;
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

/*
 * not_optimized refuses a library that is an optimized BLAS behind another
 * name: a reference build's path may be an alternatives link, or the user's
 * override may name the wrong file.
 */
static pb_status not_optimized(pb_cblas *lib, char *err, size_t errlen)
{
	static const struct {
		const char *sym, *what;
	} impostors[] = {
		{"openblas_get_config", "OpenBLAS"},
		{"bli_info_get_version_str", "BLIS"},
		{"MKL_Get_Version", "MKL"},
		{"ATL_buildinfo", "ATLAS"},
	};
	for (size_t i = 0; i < sizeof impostors / sizeof impostors[0]; i++) {
		void *p = NULL;
		pb_sym probe[] = {{impostors[i].sym, &p, 1}};
		pb_dl_resolve(lib->dl, probe, PB_NSYMS(probe), NULL);
		if (p != NULL)
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "%s: %s is %s (it exports %s), not %s; %s", lib->name, lib->path,
			               impostors[i].what, impostors[i].sym, lib->fam->display,
			               lib->fam->hint);
	}
	return PB_OK;
}

/* OpenBLAS */

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

enum { OB_SET_THREADS, OB_GET_THREADS, OB_CONFIG, OB_CORENAME, OB_PARALLEL };

static const pb_cblas_sym openblas_syms[] = {
	{"openblas_set_num_threads", OB_SET_THREADS, 0},
	{"openblas_get_num_threads", OB_GET_THREADS, 0},
	{"openblas_get_config", OB_CONFIG, 1},
	{"openblas_get_corename", OB_CORENAME, 1},
	{"openblas_get_parallel", OB_PARALLEL, 1},
};

static int openblas_get_threads(const pb_cblas *lib)
{
	return PB_CBLAS_FX(lib, openblas_get_num_threads_fn, OB_GET_THREADS)();
}

static pb_status openblas_set_threads(pb_cblas *lib, int n, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (openblas_get_threads(lib) != n) /* setting it wakes and resizes the pool */
		PB_CBLAS_FX(lib, openblas_set_num_threads_fn, OB_SET_THREADS)(n);
	return PB_OK;
}

static const char *openblas_config(const pb_cblas *lib)
{
	openblas_get_config_fn config = PB_CBLAS_FX(lib, openblas_get_config_fn, OB_CONFIG);
	return config != NULL ? config() : NULL;
}

/* openblas_version reads "OpenBLAS 0.3.21 ..." from the config string. */
static void openblas_version(pb_cblas *lib, char *out, size_t outlen)
{
	const char *config = openblas_config(lib);
	const char *p = config != NULL ? strstr(config, "OpenBLAS ") : NULL;
	if (p == NULL) {
		snprintf(out, outlen, "unknown (no openblas_get_config)");
		return;
	}
	p += strlen("OpenBLAS ");
	size_t n = strcspn(p, " ");
	snprintf(out, outlen, "%.*s", (int)n, p);
}

static void openblas_describe(pb_cblas *lib, pb_sb *s)
{
	const char *config = openblas_config(lib);
	if (config != NULL)
		pb_sb_printf(s, "config=%s\n", config);
	const char *threading = "unknown";
	openblas_get_parallel_fn parallel = PB_CBLAS_FX(lib, openblas_get_parallel_fn, OB_PARALLEL);
	if (parallel != NULL) {
		switch (parallel()) {
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
	pb_sb_printf(s, "threading=%s\n", threading);
	openblas_get_corename_fn corename = PB_CBLAS_FX(lib, openblas_get_corename_fn, OB_CORENAME);
	if (corename != NULL)
		pb_sb_printf(s, "code_path=%s\n", corename());
}

/* BLIS */

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

enum { BLI_SET_THREADS, BLI_GET_THREADS, BLI_VERSION, BLI_INIT, BLI_ARCH_ID, BLI_ARCH_STRING,
       BLI_OPENMP, BLI_PTHREADS };

static const pb_cblas_sym blis_syms[] = {
	{"bli_thread_set_num_threads", BLI_SET_THREADS, 0},
	{"bli_thread_get_num_threads", BLI_GET_THREADS, 0},
	{"bli_info_get_version_str", BLI_VERSION, 0},
	{"bli_init", BLI_INIT, 1},
	{"bli_arch_query_id", BLI_ARCH_ID, 1},
	{"bli_arch_string", BLI_ARCH_STRING, 1},
	{"bli_info_get_enable_openmp", BLI_OPENMP, 1},
	{"bli_info_get_enable_pthreads", BLI_PTHREADS, 1},
};

static int blis_get_threads(const pb_cblas *lib)
{
	int n = (int)PB_CBLAS_FX(lib, bli_thread_get_num_threads_fn, BLI_GET_THREADS)();
	/* BLIS reports -1 ("unset") until told; it then runs 1 thread. */
	return n < 1 ? 1 : n;
}

static pb_status blis_set_threads(pb_cblas *lib, int n, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	PB_CBLAS_FX(lib, bli_thread_set_num_threads_fn, BLI_SET_THREADS)((bli_dim_t)n);
	return PB_OK;
}

static void blis_version(pb_cblas *lib, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s", PB_CBLAS_FX(lib, bli_info_get_version_str_fn, BLI_VERSION)());
}

static void blis_describe(pb_cblas *lib, pb_sb *s)
{
	bli_info_get_enable_flag_fn openmp = PB_CBLAS_FX(lib, bli_info_get_enable_flag_fn, BLI_OPENMP);
	bli_info_get_enable_flag_fn pthreads =
		PB_CBLAS_FX(lib, bli_info_get_enable_flag_fn, BLI_PTHREADS);
	const char *threading = "none";
	if (openmp != NULL && openmp())
		threading = "openmp";
	else if (pthreads != NULL && pthreads())
		threading = "pthreads";
	pb_sb_printf(s, "threading=%s\n", threading);
	bli_init_fn init = PB_CBLAS_FX(lib, bli_init_fn, BLI_INIT);
	bli_arch_query_id_fn arch_id = PB_CBLAS_FX(lib, bli_arch_query_id_fn, BLI_ARCH_ID);
	bli_arch_string_fn arch_string = PB_CBLAS_FX(lib, bli_arch_string_fn, BLI_ARCH_STRING);
	if (init != NULL && arch_id != NULL && arch_string != NULL) {
		init(); /* before the query: see include/vendor/blis.h */
		pb_sb_printf(s, "code_path=%s\n", arch_string(arch_id()));
	}
}

/* The reference BLAS */

/*
 * Found by its own path only: the soname libblas.so.3 is an alternatives
 * link that Debian may point at OpenBLAS, BLIS or ATLAS.
 */
static const char *const netlib_candidates[] = {
	PB_MULTIARCH "/blas/libblas.so.3",
	"/usr/lib64/libcblas.so.3",
	"/usr/lib/libcblas.so.3",
	NULL,
};

static void netlib_describe(pb_cblas *lib, pb_sb *s)
{
	pb_sb_printf(s, "version_source=file name of %s (the reference BLAS has no version call)\n",
	             lib->path);
	pb_sb_printf(s, "threading=none (single-threaded)\n");
	pb_sb_printf(s, "code_path=generic (compiled Fortran reference)\n");
}

/* ATLAS */

/*
 * Found by its own paths, as the reference BLAS: Debian's ATLAS CBLAS is
 * atlas/libblas.so.3 (an alternative for libblas.so.3) and libcblas.so.3;
 * Fedora's serial build is atlas/libsatlas.so.3.
 */
static const char *const atlas_candidates[] = {
	PB_MULTIARCH "/atlas/libblas.so.3",
	PB_MULTIARCH "/libcblas.so.3",
	"/usr/lib64/atlas/libsatlas.so.3",
	NULL,
};

enum { ATL_BUILDINFO, ATL_GOPARALLEL, ATL_GOPARALLEL_311 };

static const pb_cblas_sym atlas_syms[] = {
	{"ATL_buildinfo", ATL_BUILDINFO, 0}, /* prints to stdout: only its presence is used */
	{"ATL_goparallel", ATL_GOPARALLEL, 1},
	{"ATL_goParallel", ATL_GOPARALLEL_311, 1},
};

/*
 * atlas_serial refuses a threaded ATLAS (libptcblas, libtatlas): it runs
 * the thread count fixed when it was built, which peakbench can neither
 * set nor read, so its results could not be compared with a peak.
 */
static pb_status atlas_serial(pb_cblas *lib, char *err, size_t errlen)
{
	if (lib->fx[ATL_GOPARALLEL] == NULL && lib->fx[ATL_GOPARALLEL_311] == NULL)
		return PB_OK;
	return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
	               "atlas: %s is a threaded ATLAS (it exports ATL_goparallel): it runs the thread "
	               "count it was built with, which peakbench cannot set; use the serial library "
	               "(libcblas.so.3, libsatlas.so.3) through PEAKBENCH_ATLAS",
	               lib->path);
}

static void atlas_describe(pb_cblas *lib, pb_sb *s)
{
	pb_sb_printf(s, "version_source=file name of %s (ATLAS's ATL_buildinfo only prints)\n",
	             lib->path);
	pb_sb_printf(s, "threading=none (serial build)\n");
	pb_sb_printf(s, "code_path_unknown=ATLAS chooses its kernels when it is built, not at run time "
	                "(Debian's libatlas3-base is a generic build; README.Debian says how to build "
	                "one for this CPU)\n");
}

/* The table */

const pb_cblas_row pb_cblas_rows[] = {
	{
		.name = "openblas",
		.display = "libopenblas",
		.env = "PEAKBENCH_OPENBLAS",
		.hint = "install libopenblas-dev (Debian/Ubuntu) or set PEAKBENCH_OPENBLAS to the path "
		        "of libopenblas.so",
		.description = "OpenBLAS through cgo, loaded at run time (gemm, gemv, axpy, dot)",
		.candidates = openblas_candidates,
		.syms = openblas_syms,
		.nsyms = PB_NSYMS(openblas_syms),
		.set_threads = openblas_set_threads,
		.get_threads = openblas_get_threads,
		.version = openblas_version,
		.describe = openblas_describe,
	},
	{
		.name = "blis",
		.display = "libblis",
		.env = "PEAKBENCH_BLIS",
		.hint = "install libblis-dev (Debian/Ubuntu) or set PEAKBENCH_BLIS to the path of "
		        "libblis.so",
		.description = "BLIS through its CBLAS layer and cgo, loaded at run time (gemm, gemv, "
		               "axpy, dot)",
		.candidates = blis_candidates,
		.syms = blis_syms,
		.nsyms = PB_NSYMS(blis_syms),
		.set_threads = blis_set_threads,
		.get_threads = blis_get_threads,
		.version = blis_version,
		.describe = blis_describe,
	},
	{
		.name = "mkl",
		.display = "libmkl_rt.so",
		.env = "PEAKBENCH_MKL",
		.hint = "install libmkl-dev (Debian non-free; and libomp-dev for MKL's Intel threading "
		        "layer) or set PEAKBENCH_MKL to the path of libmkl_rt.so",
		.description = "Intel MKL through cgo, loaded at run time (gemm, gemv, axpy, dot; gemm "
		               "in bf16, i8, u8s8, and f16 where it has it; add, mul, exp, tanh by VML; fft, ifft, "
		               "rfft by DFTI; spmv, spmm by its sparse BLAS)",
		.load = pb_mkl_load, /* mkl.c: the threading layer is chosen before MKL's first call */
		.check = pb_mkl_check,
		.set_threads = pb_mkl_set_threads,
		.get_threads = pb_mkl_get_threads,
		.version = pb_mkl_version,
		.describe = pb_mkl_describe,
	},
	{
		.name = "netlib",
		.display = "the reference BLAS (" PB_MULTIARCH "/blas/libblas.so.3)",
		.env = "PEAKBENCH_NETLIB",
		.hint = "install libblas-dev (Debian/Ubuntu: the reference BLAS and CBLAS) or set "
		        "PEAKBENCH_NETLIB to the path of the reference libblas.so.3",
		.description = "the reference BLAS and CBLAS (netlib) through cgo, loaded at run time "
		               "(gemm, gemv, axpy, dot)",
		.candidates = netlib_candidates,
		.check = not_optimized,
		.one_thread = "the reference BLAS is single-threaded",
		.version = version_from_file,
		.describe = netlib_describe,
	},
	{
		.name = "atlas",
		.display = "ATLAS (" PB_MULTIARCH "/atlas/libblas.so.3)",
		.env = "PEAKBENCH_ATLAS",
		.hint = "install libatlas-base-dev (Debian/Ubuntu) or set PEAKBENCH_ATLAS to the path of "
		        "ATLAS's serial libcblas.so.3",
		.description = "ATLAS through its CBLAS and cgo, loaded at run time (gemm, gemv, axpy, "
		               "dot); 1 thread: ATLAS has no run-time thread control (its threaded "
		               "libptcblas runs the thread count fixed when it was built)",
		.candidates = atlas_candidates,
		.syms = atlas_syms,
		.nsyms = PB_NSYMS(atlas_syms),
		.check = atlas_serial,
		.one_thread = "ATLAS has no run-time thread control",
		.version = version_from_file,
		.describe = atlas_describe,
	},
};

const int pb_cblas_nrows = (int)(sizeof pb_cblas_rows / sizeof pb_cblas_rows[0]);
