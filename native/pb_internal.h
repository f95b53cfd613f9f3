/*
 * pb_internal.h — what the files of native/ share and C users do not see.
 */
#ifndef PB_INTERNAL_H
#define PB_INTERNAL_H

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "peakbench.h"
#include "vendor/blis.h"
#include "vendor/cblas.h"
#include "vendor/mkl.h"
#include "vendor/openblas.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#if defined(__x86_64__)
#define PB_MULTIARCH "/usr/lib/x86_64-linux-gnu"
#elif defined(__aarch64__)
#define PB_MULTIARCH "/usr/lib/aarch64-linux-gnu"
#else
#define PB_MULTIARCH "/usr/lib"
#endif

/* Errors */

/* pb_fail formats into err (when errlen > 0) and returns s. */
pb_status pb_fail(pb_status s, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* pb_check_threads validates n against [PB_MIN_THREADS, PB_MAX_THREADS]. */
pb_status pb_check_threads(const char *lib, int n, char *err, size_t errlen);

/* A bounded string builder: appends never overflow, the text is always terminated. */
typedef struct pb_sb {
	char *buf;
	size_t cap;
	size_t len;
} pb_sb;

void pb_sb_init(pb_sb *sb, char *buf, size_t cap);
void pb_sb_printf(pb_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Loader helpers */

/*
 * pb_dl_search is the one candidate loop of the C layer: it loads the
 * first loadable candidate for library (e.g. "libcublas"): with env set and
 * non-empty, its value alone; else each of candidates (NULL-terminated) as
 * given and then, with o->dirs, in each of those folders where the file
 * exists. Before dlopen'ing a file by path, the files of o->companions
 * present in its folder are loaded by full path. o->accept, when not NULL,
 * may refuse a loaded candidate (nonzero, with a reason in why) to go on to
 * the next; the refused handle stays loaded. *index (may be NULL) receives
 * the index in candidates of the file loaded (-1 for the override). On
 * failure, err holds "LIBRARY not found (tried: CAND: WHY; ...)", with the
 * folders searched when o->where names them, and tried one "CAND: WHY" per
 * line. o may be NULL.
 */
typedef int (*pb_dl_accept_fn)(void *dl, const char *path, void *arg, char *why, size_t whylen);

typedef struct pb_dl_search_opts {
	int flags;                     /* extra dlopen flags, e.g. pb_dl_deepbind() */
	const char *const *dirs;       /* folders to look in (NULL-terminated), or NULL */
	const char *where;             /* how those folders were chosen, for the message */
	const char *const *companions; /* sonames loaded from a candidate's folder first */
	pb_dl_accept_fn accept;
	void *accept_arg;
} pb_dl_search_opts;

pb_status pb_dl_search(const char *library, const char *env, const char *const *candidates,
                       const pb_dl_search_opts *o, void **handle, int *index, char *path,
                       size_t pathlen, char *tried, size_t triedlen, char *err, size_t errlen);

/*
 * pb_dl_open_flags is pb_dl_open with extra dlopen flags (e.g. the value of
 * pb_dl_deepbind()): pb_dl_search with those flags alone.
 */
pb_status pb_dl_open_flags(const char *library, const char *env, const char *const *candidates,
                           int extra, void **handle, char *path, size_t pathlen, char *tried,
                           size_t triedlen, char *err, size_t errlen);
/* pb_dl_deepbind returns RTLD_DEEPBIND, or 0 in a sanitizer build. */
int pb_dl_deepbind(void);

/* pb_dl_realpath writes the file behind a dlopen handle. */
void pb_dl_realpath(void *handle, char *path, size_t pathlen);
/*
 * pb_dl_preload dlopens the first loadable candidate with RTLD_NOW|RTLD_GLOBAL
 * (e.g. an OpenMP runtime that a later library needs in the global scope);
 * returns the handle or NULL, and the resolved path.
 */
void *pb_dl_preload(const char *const *candidates, char *path, size_t pathlen);
/*
 * A symbol a library exports, described in a table: its name, where its
 * address goes, and whether the library is usable without it. Every
 * library of native/ resolves its symbols through pb_dl_resolve.
 */
typedef struct pb_sym {
	const char *name;
	void *slot; /* a function pointer's address; receives the symbol's (NULL when absent) */
	int optional;
} pb_sym;

#define PB_NSYMS(table) (sizeof(table) / sizeof((table)[0]))

/*
 * pb_dl_resolve looks up each of the n symbols of table in dl and stores
 * its address in its slot (NULL when absent). It returns how many required
 * symbols are missing and appends their names, comma-separated, to missing
 * (which may be NULL).
 */
int pb_dl_resolve(void *dl, const pb_sym *table, size_t n, pb_sb *missing);

/* pb_dl_file_exists reports whether dir/name exists (dir from a path's dirname). */
int pb_dl_sibling_exists(const char *path, const char *name);

/* 16- and 8-bit floats (float_formats.c), for host and device jobs alike */

/* IEEE binary16 and bfloat16, rounded to nearest, ties to even; NaN stays NaN. */
uint16_t pb_f64_to_f16(double v);
uint16_t pb_f64_to_bf16(double v);
double pb_f16_to_f64(uint16_t h);
double pb_bf16_to_f64(uint16_t b);
/*
 * OCP FP8: e4m3 (no infinities; beyond ±448 saturates to ±448) and e5m2
 * (IEEE-like), rounded to nearest, ties to even; NaN stays NaN.
 */
uint8_t pb_f64_to_e4m3(double v);
uint8_t pb_f64_to_e5m2(double v);
double pb_e4m3_to_f64(uint8_t b);
double pb_e5m2_to_f64(uint8_t b);

/*
 * Element types of host job arguments (host_dtype.c): what one buffer
 * holds. Inputs arrive as float64 and are converted when set; the output
 * is widened back to float64.
 */
typedef enum pb_host_dtype {
	PB_HOST_F64 = 1,
	PB_HOST_F32,
	PB_HOST_BF16, /* rounded to nearest, ties to even */
	PB_HOST_F16,  /* rounded to nearest, ties to even */
	PB_HOST_S8,   /* integers: a value that is not one in range is refused */
	PB_HOST_U8,
	PB_HOST_S16,
	PB_HOST_S32
} pb_host_dtype;

#define PB_HOST_DTYPE_MAX PB_HOST_S32

/* pb_host_dtype_size is an element's bytes (0 for an unknown type). */
size_t pb_host_dtype_size(pb_host_dtype t);
/* pb_host_dtype_name is "f64", "bf16", "s8", ... ("?" for an unknown type). */
const char *pb_host_dtype_name(pb_host_dtype t);
/* pb_host_dtype_of is the host type of a pb_dtype (0 for neither f32 nor f64). */
pb_host_dtype pb_host_dtype_of(pb_dtype dt);
/*
 * pb_host_store converts len float64 values into dst of type t, an integer
 * stored as value + zero_point (a library that takes unsigned storage for
 * signed values subtracts it back). An integer type refuses a value that is
 * not an integer, is outside values' range (0: no narrower type than t), or
 * whose stored form is outside t's: PB_ERR_INVALID, naming the element and
 * argument arg.
 */
pb_status pb_host_store(pb_host_dtype t, pb_host_dtype values, int32_t zero_point,
                        const double *src, size_t len, void *dst, int arg, char *err,
                        size_t errlen);
/* pb_host_load widens len elements of type t (less zero_point) into dst. */
void pb_host_load(pb_host_dtype t, int32_t zero_point, const void *src, size_t len, double *dst);

/* CBLAS: the handle and the table of libraries (cblas.c, cblas_families.c, mkl.c) */

/*
 * What one CBLAS library needs beyond the CBLAS routines, as one row of
 * pb_cblas_rows (cblas_families.c): where to find it, the symbols that
 * identify it and control it, and hooks for what differs. cblas.c derives
 * everything else (the accepted names, the error messages, the Go
 * packages' lists and descriptions) from the rows.
 */

/* The largest pb_lowp value (pb_cblas.lowp is indexed by it). */
#define PB_LOWP_MAX PB_LOWP_U8S8

/* The most family-specific symbols a row may list (pb_cblas.fx). */
#define PB_CBLAS_FX_MAX 12

/* A family symbol: its name, its index in pb_cblas.fx, and whether it may be absent. */
typedef struct pb_cblas_sym {
	const char *name;
	int slot;
	int optional;
} pb_cblas_sym;

typedef struct pb_cblas_row {
	const char *name;        /* what pb_cblas_open takes, the backend's name: "openblas" */
	const char *display;     /* the library as "not found" names it: "libopenblas" */
	const char *env;         /* the variable naming its only file: "PEAKBENCH_OPENBLAS" */
	const char *hint;        /* how to install it (ends every "not found") */
	const char *description; /* what -list shows: the library and what peakbench runs on it */
	const char *const *candidates; /* sonames and paths, newest first; NULL when load finds them */
	/*
	 * The required symbols tell this library from another CBLAS (OpenBLAS's
	 * thread calls, BLIS's version call); optional ones add details.
	 */
	const pb_cblas_sym *syms;
	size_t nsyms;
	/*
	 * load opens a library whose loading is its own (MKL: threading layer);
	 * NULL: the candidates, with RTLD_DEEPBIND, then the interposition check.
	 */
	pb_status (*load)(pb_cblas *lib, const char *path, char *tried, size_t triedlen, char *err,
	                  size_t errlen);
	/* check runs once the symbols are resolved: refuse an impostor, make a first call. */
	pb_status (*check)(pb_cblas *lib, char *err, size_t errlen);
	/*
	 * set_threads sets the count (an error for one it refuses: MKL's
	 * sequential layer); get_threads reads it back. Both NULL: the library
	 * runs one thread and refuses more, for the reason in one_thread.
	 */
	pb_status (*set_threads)(pb_cblas *lib, int n, char *err, size_t errlen);
	int (*get_threads)(const pb_cblas *lib);
	const char *one_thread;
	/* version writes the version the library reports (or its file name says). */
	void (*version)(pb_cblas *lib, char *out, size_t outlen);
	/* describe appends its key=value lines (threading, code_path, ...) to the info. */
	void (*describe)(pb_cblas *lib, pb_sb *info);
} pb_cblas_row;

extern const pb_cblas_row pb_cblas_rows[];
extern const int pb_cblas_nrows;

typedef struct pb_mkl {
	MKL_Set_Threading_Layer_fn set_threading_layer;
	MKL_Set_Interface_Layer_fn set_interface_layer;
	MKL_Set_Num_Threads_fn set_num_threads;
	MKL_Get_Max_Threads_fn get_max_threads;
	MKL_Get_Version_fn get_version;
	MKL_Get_Version_String_fn get_version_string;
	MKL_CBWR_Get_Auto_Branch_fn cbwr_get_auto_branch;
	int layer;               /* MKL_THREADING_* in use */
	char layer_why[256];     /* why that layer */
	char omp_path[PATH_MAX]; /* the OpenMP runtime preloaded, if any */
	vs_binary_fn vsAdd, vsMul;
	vd_binary_fn vdAdd, vdMul;
	vs_unary_fn vsExp, vsTanh;
	vd_unary_fn vdExp, vdTanh;
} pb_mkl;

struct pb_cblas {
	const pb_cblas_row *fam;
	char name[16];
	void *dl;
	char path[PATH_MAX];

	cblas_sgemm_fn sgemm;
	cblas_dgemm_fn dgemm;
	cblas_sgemv_fn sgemv;
	cblas_dgemv_fn dgemv;
	cblas_saxpy_fn saxpy;
	cblas_daxpy_fn daxpy;
	cblas_sdot_fn sdot;
	cblas_ddot_fn ddot;
	void *ext[PB_EXT_COUNT][2]; /* [ext][0 f32, 1 f64]; NULL when absent */

	void *fx[PB_CBLAS_FX_MAX]; /* the family's symbols (its row's syms), NULL when absent */
	/* low-precision gemm routines by pb_lowp (cblas_lowp.c), NULL when absent */
	void *lowp[PB_LOWP_MAX + 1];
	const char *lowp_name[PB_LOWP_MAX + 1];
	pb_mkl mkl;                /* MKL's own (mkl.c) */

	char version[128];
	char info[4096]; /* key=value lines, filled at open */
};

/* cblas_lowp.c: resolve the low-precision gemm routines lib exports (all optional). */
void pb_cblas_resolve_lowp(pb_cblas *lib);

/* PB_CBLAS_FX casts family symbol i of lib to the function type t. */
#define PB_CBLAS_FX(lib, t, i) ((t)(lib)->fx[i])

/* cblas.c: the extension routines' names, [ext][0 f32, 1 f64]. */
extern const char *const pb_cblas_ext_names[PB_EXT_COUNT][2];

/* CBLAS_T is the CBLAS transpose flag of a pb_trans. */
#define CBLAS_T(t) ((t) == PB_TRANS ? CblasTrans : CblasNoTrans)

/* cblas.c: a job on lib, thread count applied before each run (used by mkl.c). */
pb_status pb_cblas_new_job(pb_cblas *lib, pb_dtype dt, int nargs, const size_t *lens, int output,
                           const pb_job_opts *opts, pb_job **out, char *err, size_t errlen);
/* cblas_jobs.c: the same, each argument of its own type (cblas_lowp.c). */
pb_status pb_cblas_new_typed_job(pb_cblas *lib, int nargs, const size_t *lens,
                                 const pb_host_dtype *types, int output, const pb_job_opts *opts,
                                 pb_job **out, char *err, size_t errlen);

/* mkl.c: the hooks of MKL's row. */
pb_status pb_mkl_load(pb_cblas *lib, const char *path, char *tried, size_t triedlen, char *err,
                      size_t errlen);
pb_status pb_mkl_check(pb_cblas *lib, char *err, size_t errlen);
pb_status pb_mkl_set_threads(pb_cblas *lib, int n, char *err, size_t errlen);
int pb_mkl_get_threads(const pb_cblas *lib);
void pb_mkl_version(pb_cblas *lib, char *out, size_t outlen);
void pb_mkl_describe(pb_cblas *lib, pb_sb *info);

/*
 * Jobs (job.c): one contract for host and device work. A job is an
 * operation prepared on buffers it owns (one set per copy), with inputs
 * copied in once, iterations run back to back by pb_job_run and timed
 * where the work happens, and the latest output copied back. What differs
 * between the host and a device — where the buffers live, how inputs and
 * outputs travel, what the clock is — is the job's place: host buffers
 * timed with CLOCK_MONOTONIC (timing.c), or device buffers timed with two
 * events on the device's stream (gpu_job.c). Libraries fill in the
 * operation: iter, and the hooks they need.
 */

#define PB_JOB_MAX_ARGS 6 /* batchnorm: x, mean, variance, scale, shift, y */

typedef pb_status (*pb_job_iter_fn)(pb_job *job, int copy, char *err, size_t errlen);
typedef pb_status (*pb_job_hook_fn)(pb_job *job, char *err, size_t errlen);

/* Where a job's buffers live and how its runs are timed. */
typedef struct pb_job_place {
	const char *name; /* "job", "gpu job": starts the contract's messages */
	/* enter prepares the calling thread (a device made current); NULL: nothing */
	pb_status (*enter)(const pb_job *job, char *err, size_t errlen);
	/* set_input converts src to the argument's type and copies it to every copy */
	pb_status (*set_input)(pb_job *job, int arg, const double *src, size_t len, char *err,
	                       size_t errlen);
	/* output widens the latest iteration's output into dst */
	pb_status (*output)(const pb_job *job, double *dst, size_t len, char *err, size_t errlen);
	/* start starts the clock; stop stops it after the iterations (st: how they went) */
	pb_status (*start)(pb_job *job, char *err, size_t errlen);
	pb_status (*stop)(pb_job *job, pb_status st, int64_t *ns, char *err, size_t errlen);
	/* quiesce waits for work in flight before destroy; release frees the buffers */
	void (*quiesce)(pb_job *job);
	void (*release)(pb_job *job);
} pb_job_place;

/* The device side of a GPU job (gpu_job.c). */
typedef struct pb_job_dev {
	pb_gpu *gpu;
	void *lib;                        /* the library handle (pb_cublas *, ...) */
	pb_gpu_dtype dt[PB_JOB_MAX_ARGS]; /* storage type of each argument */
	void *block;                      /* the one allocation the buffers are carved from */
	void *ev[2];                      /* timing events */
	void *scratch[2];                 /* device workspaces, freed with the job */
	size_t scratch_bytes[2];
} pb_job_dev;

struct pb_job {
	const pb_job_place *place;
	int nargs;
	int output;
	int copies;
	int next; /* copy of the next iteration */
	int last; /* copy of the latest iteration, -1 before any */
	size_t len[PB_JOB_MAX_ARGS];
	void **buf; /* [copy*nargs + arg]: host or device pointers, per place */

	pb_job_iter_fn iter;   /* one iteration on one copy (required); on a device, enqueued */
	pb_job_hook_fn before; /* before the clock starts, e.g. apply the thread count */
	pb_job_hook_fn after;  /* after the last iteration, still on the clock (e.g. wait) */
	void (*destroy)(pb_job *job);

	void *ctx;
	int64_t p[8];
	double alpha;
	char desc[256];

	/* host jobs (timing.c) */
	pb_dtype dt; /* pb_job_alloc's type of every argument; 0 for pb_job_alloc_typed's jobs */
	pb_host_dtype type[PB_JOB_MAX_ARGS]; /* each argument's element type */
	/*
	 * Set by a library after allocation, for integer arguments: values, the
	 * narrower type their values must fit (s8 values held in s16; 0: the
	 * element type's own range), and zero_point, added when stored and
	 * subtracted when read (s8 values held in u8: 128).
	 */
	pb_host_dtype values[PB_JOB_MAX_ARGS];
	int32_t zero_point[PB_JOB_MAX_ARGS];
	int threads;
	const pb_cblas *lib;
	void **base;    /* the allocations behind buf */
	size_t *mapped; /* length of base[b]'s own mapping; 0 when malloc'd */
	int64_t t0;     /* CLOCK_MONOTONIC at the start of the run, ns */

	/* device jobs (gpu_job.c) */
	pb_job_dev dev;
};

/*
 * pb_job_new allocates a job on place with nargs arguments of lens[i]
 * elements, output the index of the output, copies sets (0 means 1), and
 * its buffer table; the place allocates the buffers.
 */
pb_status pb_job_new(const pb_job_place *place, int nargs, const size_t *lens, int output,
                     int copies, pb_job **out, char *err, size_t errlen);

/*
 * pb_job_alloc_typed allocates a host job and its buffers: nargs arguments
 * of lens[i] elements of types[i], one set per copy, each 64-byte aligned,
 * staggered by multiples of 576 bytes within a page so that no two of 64
 * consecutive buffers are ≡ mod 4 KiB (glibc/4K aliasing), and zero-filled
 * (which also faults their pages in before any timing). A buffer of 2 MiB
 * or more has a mapping of its own, advised for transparent huge pages
 * (timing.c). pb_job_set_input converts into each argument's type,
 * pb_job_output widens from the output's (pb_host_store, pb_host_load).
 */
pb_status pb_job_alloc_typed(int nargs, const size_t *lens, const pb_host_dtype *types, int output,
                             const pb_job_opts *opts, pb_job **out, char *err, size_t errlen);

/* pb_job_alloc is pb_job_alloc_typed with every argument of dt (f32 or f64). */
pb_status pb_job_alloc(pb_dtype dt, int nargs, const size_t *lens, int output,
                       const pb_job_opts *opts, pb_job **out, char *err, size_t errlen);

static inline void *pb_job_buf(const pb_job *j, int copy, int arg)
{
	return j->buf[(size_t)copy * (size_t)j->nargs + (size_t)arg];
}

/* Layer jobs (layer.c) */

/*
 * pb_layer_check validates a geometry (conv: a convolution, with K and
 * dilation; else a pooling or normalization); what names the job in errors.
 */
pb_status pb_layer_check(const pb_layer *g, int conv, const char *what, char *err, size_t errlen);
/* pb_layer_outdims writes the output extents (conv: with dilation). */
void pb_layer_outdims(const pb_layer *g, int conv, int64_t o[3]);

#endif /* PB_INTERNAL_H */
