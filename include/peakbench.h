/*
 * peakbench.h — the one C ABI of native/.
 *
 * Vendor libraries are found and loaded at run time with dlopen (no vendor
 * header or library is needed to build), wrapped in opaque handles, and
 * driven through these entry points. Conventions:
 *
 *   - Every entry point returns a pb_status and, when it is not PB_OK, writes
 *     a one-line, NUL-terminated message into the caller's buffer err of
 *     errlen bytes (err may be NULL when errlen is 0). Messages name the
 *     library, the file, the symbol or the argument at fault.
 *   - Nothing here aborts the process on bad input: invalid arguments are
 *     checked before any vendor routine sees them (the reference CBLAS calls
 *     exit() on a bad argument).
 *   - Matrices are row-major. Element types are selected by pb_dtype.
 *   - Handles are not safe for concurrent use; distinct handles are, except
 *     that a library's thread count is global to the library (see
 *     pb_cblas_set_threads).
 *
 * Timed runs (pb_job) keep measurement in C: a job owns its buffers
 * (64-byte aligned, placed so that no two buffers alias modulo 4 KiB), one
 * set per copy, and pb_job_run times `iters` back-to-back iterations with
 * clock_gettime(CLOCK_MONOTONIC), rotating through the copies.
 */
#ifndef PEAKBENCH_H
#define PEAKBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_status {
	PB_OK = 0,
	PB_ERR_NOT_FOUND = 1,   /* no file could be loaded (dlopen failed for every candidate) */
	PB_ERR_SYMBOL = 2,      /* the file loaded but lacks a required symbol */
	PB_ERR_INVALID = 3,     /* a bad argument (dimension, stride, thread count, name) */
	PB_ERR_UNSUPPORTED = 4, /* the library cannot do this (e.g. threads on the reference BLAS) */
	PB_ERR_NOMEM = 5,       /* an allocation failed */
	PB_ERR_LIBRARY = 6,     /* the library reported a failure (e.g. a oneDNN status) */
	PB_ERR_VERSION = 7      /* a library version whose ABI peakbench does not encode */
} pb_status;

/* pb_status_name returns "PB_OK", "PB_ERR_NOT_FOUND", ... (static storage). */
const char *pb_status_name(pb_status s);

typedef enum pb_dtype {
	PB_F32 = 4, /* float */
	PB_F64 = 8  /* double */
} pb_dtype;

/* The accepted thread counts of every pb_*_set_threads. */
#define PB_MIN_THREADS 1
#define PB_MAX_THREADS 1024

/* The most buffer sets a job may rotate through. */
#define PB_MAX_COPIES 65536

/* The loader: dlopen(RTLD_NOW|RTLD_LOCAL) over a list of candidates. */

/*
 * pb_dl_open loads the first loadable file of candidates (NULL-terminated;
 * sonames are searched by the dynamic linker, absolute paths used as is).
 * When the environment variable env (may be NULL) is set and non-empty, its
 * value is the only candidate. On success *handle is the dlopen handle and
 * path (pathlen bytes) receives the resolved file (realpath). On failure,
 * err holds "LIBRARY not found (tried: CAND: WHY; ...)" and tried (may be
 * NULL) one line per candidate, "CAND: WHY", WHY being dlerror's text.
 */
pb_status pb_dl_open(const char *library, const char *env, const char *const *candidates,
                     void **handle, char *path, size_t pathlen, char *tried, size_t triedlen,
                     char *err, size_t errlen);

/*
 * CBLAS: one function table serves every CBLAS library peakbench knows
 * (OpenBLAS, BLIS, MKL, the reference BLAS, ATLAS...), each described by
 * one row of a table in native/cblas_families.c.
 */

typedef struct pb_cblas pb_cblas;

typedef enum pb_trans {
	PB_NO_TRANS = 0,
	PB_TRANS = 1
} pb_trans;

/* One CBLAS library peakbench knows: what the Go packages list and show. */
typedef struct pb_cblas_family_info {
	const char *name;        /* what pb_cblas_open takes, e.g. "openblas" */
	const char *description; /* one line: the library and what peakbench runs on it */
	const char *hint;        /* how to install it, or point peakbench at it */
	const char *env;         /* the variable naming its file, e.g. "PEAKBENCH_OPENBLAS" */
	int one_thread;          /* 1: no thread control, 1 thread only (more is PB_ERR_UNSUPPORTED) */
} pb_cblas_family_info;

/* pb_cblas_family_count returns how many CBLAS libraries pb_cblas_open knows. */
int pb_cblas_family_count(void);
/* pb_cblas_family fills *out with library i (0 ≤ i < count); 0 when i is out of range. */
int pb_cblas_family(int i, pb_cblas_family_info *out);

/*
 * pb_cblas_open loads the library named name, one of pb_cblas_family's
 * (e.g. "openblas", "blis", "mkl", "netlib": the reference BLAS and CBLAS).
 * path NULL or "" searches the standard sonames and paths (and the
 * environment override the row names, e.g. PEAKBENCH_OPENBLAS); otherwise
 * path is the only file tried. tried receives the candidates tried, one
 * "CAND: WHY" per line, when loading fails.
 *
 * Every library but MKL is opened with RTLD_DEEPBIND (except in sanitizer
 * builds, which refuse a library whose calls would be interposed instead),
 * so that its calls to its own Fortran BLAS and OpenMP runtime are not
 * bound to those MKL puts in the global scope (native/loader.c says why).
 *
 * Libraries stay mapped after pb_cblas_close: unloading a threaded BLAS
 * with live worker threads is unsafe, and a second open is then cheap.
 */
pb_status pb_cblas_open(const char *name, const char *path, pb_cblas **out,
                        char *tried, size_t triedlen, char *err, size_t errlen);
pb_status pb_cblas_close(pb_cblas *lib, char *err, size_t errlen);

/*
 * pb_cblas_info writes "key=value" lines describing the library as loaded:
 * name, version, path, threading, code_path and library-specific keys.
 */
pb_status pb_cblas_info(const pb_cblas *lib, char *buf, size_t buflen, char *err, size_t errlen);

/*
 * pb_cblas_set_threads sets the library's own thread count, global to the
 * library (and to every handle on it). n must lie in
 * [PB_MIN_THREADS, PB_MAX_THREADS]; a count the library does not honour
 * (reads back differently; more than 1 on a library without thread
 * control, pb_cblas_family_info.one_thread, or on MKL's sequential layer)
 * is PB_ERR_UNSUPPORTED.
 */
pb_status pb_cblas_set_threads(pb_cblas *lib, int n, char *err, size_t errlen);
pb_status pb_cblas_get_threads(const pb_cblas *lib, int *n, char *err, size_t errlen);

/*
 * Direct calls, row-major, with BLAS semantics (strides may be negative for
 * vectors; beta == 0 means C is not read). Arguments are checked as the
 * BLAS would, before the library sees them. The *_ext calls are the cheap
 * extras gonum's interfaces want; a library lacking one returns
 * PB_ERR_UNSUPPORTED (pb_cblas_has tells beforehand).
 */
pb_status pb_cblas_sgemm(const pb_cblas *lib, pb_trans ta, pb_trans tb, int m, int n, int k,
                         float alpha, const float *a, int lda, const float *b, int ldb,
                         float beta, float *c, int ldc, char *err, size_t errlen);
pb_status pb_cblas_dgemm(const pb_cblas *lib, pb_trans ta, pb_trans tb, int m, int n, int k,
                         double alpha, const double *a, int lda, const double *b, int ldb,
                         double beta, double *c, int ldc, char *err, size_t errlen);
pb_status pb_cblas_sgemv(const pb_cblas *lib, pb_trans ta, int m, int n, float alpha,
                         const float *a, int lda, const float *x, int incx, float beta,
                         float *y, int incy, char *err, size_t errlen);
pb_status pb_cblas_dgemv(const pb_cblas *lib, pb_trans ta, int m, int n, double alpha,
                         const double *a, int lda, const double *x, int incx, double beta,
                         double *y, int incy, char *err, size_t errlen);
pb_status pb_cblas_saxpy(const pb_cblas *lib, int n, float alpha, const float *x, int incx,
                         float *y, int incy, char *err, size_t errlen);
pb_status pb_cblas_daxpy(const pb_cblas *lib, int n, double alpha, const double *x, int incx,
                         double *y, int incy, char *err, size_t errlen);
pb_status pb_cblas_sdot(const pb_cblas *lib, int n, const float *x, int incx, const float *y,
                        int incy, float *result, char *err, size_t errlen);
pb_status pb_cblas_ddot(const pb_cblas *lib, int n, const double *x, int incx, const double *y,
                        int incy, double *result, char *err, size_t errlen);

/* Optional level-1/3 extras (result pointers receive scalars). */
typedef enum pb_cblas_ext {
	PB_EXT_SCAL = 0,
	PB_EXT_NRM2,
	PB_EXT_ASUM,
	PB_EXT_IAMAX,
	PB_EXT_COPY,
	PB_EXT_SWAP,
	PB_EXT_TRSM,
	PB_EXT_COUNT
} pb_cblas_ext;

/* pb_cblas_has reports (1/0) whether the extra ext exists for dtype. */
int pb_cblas_has(const pb_cblas *lib, pb_cblas_ext ext, pb_dtype dt);

/* x = alpha·x */
pb_status pb_cblas_scal(const pb_cblas *lib, pb_dtype dt, int n, double alpha, void *x, int incx,
                        char *err, size_t errlen);
/* *result = ‖x‖₂ (nrm2) or Σ|x| (asum); incx > 0 */
pb_status pb_cblas_nrm2(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                        double *result, char *err, size_t errlen);
pb_status pb_cblas_asum(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                        double *result, char *err, size_t errlen);
/* *result = 0-based index of the first largest |x|, -1 when n == 0; incx > 0 */
pb_status pb_cblas_iamax(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                         int *result, char *err, size_t errlen);
pb_status pb_cblas_copy(const pb_cblas *lib, pb_dtype dt, int n, const void *x, int incx,
                        void *y, int incy, char *err, size_t errlen);
pb_status pb_cblas_swap(const pb_cblas *lib, pb_dtype dt, int n, void *x, int incx, void *y,
                        int incy, char *err, size_t errlen);

typedef enum pb_side { PB_LEFT = 0, PB_RIGHT = 1 } pb_side;
typedef enum pb_uplo { PB_UPPER = 0, PB_LOWER = 1 } pb_uplo;
typedef enum pb_diag { PB_NON_UNIT = 0, PB_UNIT = 1 } pb_diag;

/* B = alpha·op(A)⁻¹·B (left) or alpha·B·op(A)⁻¹ (right); B m×n. */
pb_status pb_cblas_trsm(const pb_cblas *lib, pb_dtype dt, pb_side side, pb_uplo uplo,
                        pb_trans ta, pb_diag diag, int m, int n, double alpha, const void *a,
                        int lda, void *b, int ldb, char *err, size_t errlen);

/* MKL extras (only on a handle opened as "mkl"). */

typedef enum pb_vml_op {
	PB_VML_ADD = 0, /* z = x + y */
	PB_VML_MUL,     /* z = x ⊙ y */
	PB_VML_EXP,     /* y = eˣ */
	PB_VML_TANH,    /* y = tanh x */
	PB_VML_SIGMOID  /* y = 1/(1+e⁻ˣ): not in MKL 2020 (PB_ERR_UNSUPPORTED) */
} pb_vml_op;

/* pb_mkl_vml_has reports (1/0) whether MKL provides op for dt. */
int pb_mkl_vml_has(const pb_cblas *lib, pb_vml_op op, pb_dtype dt);

/* Timed jobs. */

typedef struct pb_job pb_job;

typedef struct pb_job_opts {
	int copies;  /* buffer sets to rotate through, one per iteration: 1 .. PB_MAX_COPIES */
	int threads; /* the library's thread count, applied before every run; 0 leaves it */
} pb_job_opts;

/*
 * Job arguments, in order (arg indexes for pb_job_set_input):
 *   gemm  A (m×k, or k×m with ta), B (k×n, or n×k with tb), C (m×n) = A·B, output C
 *   gemv  A (m×n), x (n), y (m) = A·x, output y
 *   axpy  x (n), y (n) += alpha·x, output y (accumulates on every iteration)
 *   dot   x (n), y (n), r (1) = x·y, output r
 * All with tight leading dimensions, alpha = 1 and beta = 0 for gemm/gemv.
 */
pb_status pb_cblas_job_gemm(pb_cblas *lib, pb_dtype dt, pb_trans ta, pb_trans tb, int m, int n,
                            int k, const pb_job_opts *opts, pb_job **out, char *err, size_t errlen);
pb_status pb_cblas_job_gemv(pb_cblas *lib, pb_dtype dt, int m, int n, const pb_job_opts *opts,
                            pb_job **out, char *err, size_t errlen);
pb_status pb_cblas_job_axpy(pb_cblas *lib, pb_dtype dt, int n, double alpha,
                            const pb_job_opts *opts, pb_job **out, char *err, size_t errlen);
pb_status pb_cblas_job_dot(pb_cblas *lib, pb_dtype dt, int n, const pb_job_opts *opts,
                           pb_job **out, char *err, size_t errlen);
/* VML: add, mul: x, y, z; exp, tanh, sigmoid: x, y. Output the last. */
pb_status pb_mkl_job_vml(pb_cblas *lib, pb_vml_op op, pb_dtype dt, int n, const pb_job_opts *opts,
                         pb_job **out, char *err, size_t errlen);
/*
 * MKL's inspector-executor sparse BLAS (native/mkl_sparse.c): y = A·x (k = 0)
 * or Y = A·X (X cols×k, row-major), A rows×cols in CSR with nnz entries
 * (rowptr: rows+1 offsets from 0; colidx: nnz columns; both copied).
 * Arguments: values (nnz), x (cols·max(k,1)), y (rows·max(k,1)), output y.
 * optimized: mkl_sparse_set_mv_hint/mm_hint and mkl_sparse_optimize before
 * the first run, off the clock. pb_mkl_sparse_has reports (1/0) whether the
 * loaded MKL has these calls.
 */
int pb_mkl_sparse_has(const pb_cblas *lib);
pb_status pb_mkl_job_sparse(pb_cblas *lib, pb_dtype dt, int rows, int cols, size_t nnz, int k,
                            const int32_t *rowptr, const int32_t *colidx, int optimized,
                            const pb_job_opts *opts, pb_job **out, char *err, size_t errlen);

/*
 * MKL's sparse format conversions (native/mkl_sparse_convert.c), with the
 * converters of its older sparse BLAS, mkl_?csrcoo and mkl_?csrcsc, which
 * write into the caller's arrays, so the timed call is the conversion
 * alone. op: PB_CSR2COO, PB_COO2CSR, PB_CSR2CSC. Arguments (each copy's
 * own): 0 the input's pointers or rows (int32: CSR's rows+1 pointers, or
 * COO's nnz rows for coo2csr), 1 the column indices (int32, nnz), 2 the
 * values (dt, nnz), 3 the output's values (dt, nnz; csr2csc's, else
 * unused), 4 the output's indices (int32, nnz: COO's rows, CSC's rows), 5
 * the output's pointers (int32: CSR's rows+1, CSC's cols+1). Output: 4 for
 * csr2coo, 5 for coo2csr, 3 for csr2csc (4 and 5 read with
 * pb_job_arg_output). csr2csc takes a square matrix only (mkl_?csrcsc's
 * one dimension): another is PB_ERR_UNSUPPORTED.
 * pb_mkl_sparse_convert_has reports (1/0) whether the converters are there.
 */
typedef enum pb_sparse_convert { PB_CSR2COO = 0, PB_COO2CSR = 1, PB_CSR2CSC = 2 } pb_sparse_convert;
/* The arguments of a conversion job, MKL's and cuSPARSE's alike (above). */
typedef enum pb_convert_arg {
	PB_CONVERT_IN_PTR = 0,
	PB_CONVERT_IN_IDX = 1,
	PB_CONVERT_IN_VAL = 2,
	PB_CONVERT_OUT_VAL = 3,
	PB_CONVERT_OUT_IDX = 4,
	PB_CONVERT_OUT_PTR = 5,
	PB_CONVERT_NARGS = 6
} pb_convert_arg;
int pb_mkl_sparse_convert_has(const pb_cblas *lib);
pb_status pb_mkl_job_sparse_convert(pb_cblas *lib, pb_sparse_convert op, pb_dtype dt, int rows,
                                    int cols, size_t nnz, const pb_job_opts *opts, pb_job **out,
                                    char *err, size_t errlen);

/*
 * Low-precision gemm (native/cblas_lowp.c): the element types of a
 * library's mixed-precision gemm routines, which only some libraries have
 * (pb_cblas_lowp_has says, from the symbols the loaded file exports).
 */
typedef enum pb_lowp {
	PB_LOWP_BF16 = 1, /* bf16 A, B → f32 C: MKL cblas_gemm_bf16bf16f32, OpenBLAS cblas_sbgemm */
	PB_LOWP_F16 = 2,  /* f16 A, B → f32 C: MKL cblas_gemm_f16f16f32 (oneMKL 2024 and later) */
	PB_LOWP_I8 = 3,   /* s8 A, s8 B → s32 C: MKL cblas_gemm_s8u8s32, A stored +128, oa = −128 */
	PB_LOWP_U8S8 = 4  /* u8 A, s8 B → s32 C: MKL cblas_gemm_s8u8s32, no offsets */
} pb_lowp;

/* pb_cblas_lowp_has reports (1/0) whether lib has a gemm routine for dt. */
int pb_cblas_lowp_has(const pb_cblas *lib, pb_lowp dt);
/* pb_cblas_lowp_routine names the routine a job of dt calls ("" when absent; static storage). */
const char *pb_cblas_lowp_routine(const pb_cblas *lib, pb_lowp dt);

/*
 * pb_cblas_job_gemm_lowp prepares C = op(A)·op(B) in dt, row-major, tight
 * leading dimensions, alpha 1, beta 0; arguments as pb_cblas_job_gemm's.
 * pb_job_set_input converts A and B to the operand types (bf16 and f16
 * rounded to nearest even; integers must be exact and in range, else
 * PB_ERR_INVALID), outside the timed runs; the output is C widened to
 * double. The job's description names the routine and its offsets. A
 * library without the routine: PB_ERR_UNSUPPORTED.
 */
pb_status pb_cblas_job_gemm_lowp(pb_cblas *lib, pb_lowp dt, pb_trans ta, pb_trans tb, int m,
                                 int n, int k, const pb_job_opts *opts, pb_job **out, char *err,
                                 size_t errlen);

/* pb_job_args writes the job's argument count and which one is the output. */
pb_status pb_job_args(const pb_job *job, int *nargs, int *output, char *err, size_t errlen);
/* pb_job_arg_len writes the element count of argument arg. */
pb_status pb_job_arg_len(const pb_job *job, int arg, size_t *len, char *err, size_t errlen);
/*
 * pb_job_set_input converts src (len elements, exactly the argument's
 * length) to the job's dtype and copies it into every copy of argument arg.
 */
pb_status pb_job_set_input(pb_job *job, int arg, const double *src, size_t len, char *err,
                           size_t errlen);
/*
 * pb_job_run applies the job's thread count (outside the clock), then runs
 * iters (>= 0) iterations, iteration i on copy (start + i) mod copies where
 * start follows the previous run, and writes the elapsed CLOCK_MONOTONIC
 * nanoseconds into *ns.
 */
pb_status pb_job_run(pb_job *job, int64_t iters, int64_t *ns, char *err, size_t errlen);
/* pb_job_output widens the output of the latest iteration into dst (len elements). */
pb_status pb_job_output(const pb_job *job, double *dst, size_t len, char *err, size_t errlen);
/* pb_job_arg_output is pb_job_output of argument arg: a job with several outputs. */
pb_status pb_job_arg_output(const pb_job *job, int arg, double *dst, size_t len, char *err,
                            size_t errlen);
/* pb_job_describe writes what runs (e.g. the oneDNN implementation name). */
pb_status pb_job_describe(const pb_job *job, char *buf, size_t buflen, char *err, size_t errlen);
void pb_job_free(pb_job *job);

/* oneDNN (C API of oneDNN 2.x), CPU engine. */

typedef struct pb_dnnl pb_dnnl;

/*
 * pb_dnnl_open loads oneDNN (path NULL or "": PEAKBENCH_ONEDNN or the
 * standard sonames; with RTLD_DEEPBIND like BLIS), reads dnnl_version() and
 * refuses a major version whose enum values peakbench does not encode
 * (PB_ERR_VERSION), then creates a CPU engine.
 */
pb_status pb_dnnl_open(const char *path, pb_dnnl **out, char *tried, size_t triedlen, char *err,
                       size_t errlen);
pb_status pb_dnnl_close(pb_dnnl *lib, char *err, size_t errlen);
pb_status pb_dnnl_info(const pb_dnnl *lib, char *buf, size_t buflen, char *err, size_t errlen);
/*
 * Thread count for primitives run through this handle's jobs: with oneDNN's
 * OpenMP runtime it is applied by omp_set_num_threads of the OpenMP runtime
 * oneDNN is bound to, on the thread that runs the job, right before each
 * run (OpenMP's setting is per calling thread).
 */
pb_status pb_dnnl_set_threads(pb_dnnl *lib, int n, char *err, size_t errlen);
pb_status pb_dnnl_get_threads(const pb_dnnl *lib, int *n, char *err, size_t errlen);

typedef enum pb_dnnl_op {
	PB_DNNL_RELU = 0, /* eltwise: x, y */
	PB_DNNL_SIGMOID,  /* eltwise logistic: x, y */
	PB_DNNL_TANH,     /* eltwise: x, y */
	PB_DNNL_EXP,      /* eltwise: x, y */
	PB_DNNL_ADD,      /* binary: x, y, z */
	PB_DNNL_MUL,      /* binary: x, y, z */
	PB_DNNL_SUM,      /* reduction: x (n), r (1) */
	PB_DNNL_MAX,      /* reduction: x (n), r (1) */
	PB_DNNL_SOFTMAX   /* softmax over each row (axis 1): x (rows×cols), y */
} pb_dnnl_op;

/* pb_dnnl_job prepares op on rows×cols elements (rows is 1 except for softmax). */
pb_status pb_dnnl_job(pb_dnnl *lib, pb_dnnl_op op, pb_dtype dt, int64_t rows, int64_t cols,
                      const pb_job_opts *opts, pb_job **out, char *err, size_t errlen);

/* The element types of a oneDNN matmul: A × B → C. */
typedef enum pb_dnnl_gemm_type {
	PB_DNNL_GEMM_F32 = 0, /* f32 × f32 → f32 */
	PB_DNNL_GEMM_BF16,    /* bf16 × bf16 → f32 */
	PB_DNNL_GEMM_F16,     /* f16 × f16 → f32 */
	PB_DNNL_GEMM_S8S8,    /* s8 × s8 → s32, exact */
	PB_DNNL_GEMM_U8S8     /* u8 × s8 → s32, exact */
} pb_dnnl_gemm_type;

/*
 * pb_dnnl_gemm_has reports whether the loaded oneDNN has a matmul
 * implementation for type on this CPU (1) or not (0): it asks for the
 * primitive descriptor of a 64×64×64 matmul, which oneDNN refuses with
 * dnnl_unimplemented when it has none (oneDNN 2.x has no f16 matmul on
 * CPUs), and writes the implementation it chose into impl (impllen bytes;
 * may be NULL), "" when none. The ISA cap ONEDNN_MAX_CPU_ISA, read once
 * per process, applies.
 */
int pb_dnnl_gemm_has(pb_dnnl *lib, pb_dnnl_gemm_type type, char *impl, size_t impllen);

/*
 * pb_dnnl_gemm_job prepares C = A·B with the matmul primitive, row-major:
 * arguments A (m×k, or k×m when ta), B (k×n, or n×k when tb), C (m×n, the
 * output). Inputs are converted to the operands' types when set (round to
 * nearest even; integers saturate), before any timing; the output is
 * widened from C's type. The timed iteration is the matmul alone. The
 * job's description ends in "impl=" and oneDNN's implementation name
 * (e.g. "brg:avx512_core_amx_int8", "gemm:jit"). A type oneDNN has no
 * implementation for is PB_ERR_UNSUPPORTED.
 */
pb_status pb_dnnl_gemm_job(pb_dnnl *lib, pb_dnnl_gemm_type type, pb_trans ta, pb_trans tb,
                           int64_t m, int64_t n, int64_t k, const pb_job_opts *opts,
                           pb_job **out, char *err, size_t errlen);

/* The quantization reorders: f32 ↔ s8 or u8 with scales and zero points. */
typedef enum pb_dnnl_quant_op {
	PB_DNNL_QUANTIZE = 0, /* x (f32) → q = saturate(rne(x · fl32(1/scale)) + zp) */
	PB_DNNL_DEQUANTIZE    /* q → x (f32) = fl32(scale · (q − zp)) */
} pb_dnnl_quant_op;

/*
 * pb_dnnl_quant_job prepares op as a oneDNN reorder with output scales and
 * zero points (oneDNN 2.x attributes) on rows×cols elements, row-major:
 * arguments 0 the input (x f32, or q), 1 the output. The integer type is
 * u8 when is_unsigned, else s8. per_channel: scales and zero_points hold
 * one value per row (mask on dimension 0 of a rows×cols tensor); else one
 * for the whole tensor. Quantize gives oneDNN the multiplier 1/scale
 * rounded to f32; oneDNN adds the zero point in f32 before it rounds half
 * to even. A configuration oneDNN refuses (2.x takes one zero point per
 * tensor) is PB_ERR_UNSUPPORTED. The description ends in "impl=" and the
 * implementation name (e.g. "jit:uni").
 */
pb_status pb_dnnl_quant_job(pb_dnnl *lib, pb_dnnl_quant_op op, int is_unsigned, int64_t rows,
                            int64_t cols, int per_channel, const float *scales,
                            const int32_t *zero_points, const pb_job_opts *opts, pb_job **out,
                            char *err, size_t errlen);

/*
 * GPUs: the CUDA runtime or HIP, cuBLAS, cuDNN, rocBLAS and NVML.
 *
 * Loaded lazily like every other library: nothing here runs until
 * pb_gpu_rt_open, and a missing driver or device is an error returned, never
 * an exit. The CUDA *runtime* (libcudart) is used rather than the driver API
 * (libcuda): cuBLAS and cuDNN are runtime-API libraries whose handles,
 * streams and device pointers belong to the runtime's primary context, so a
 * runtime is needed anyway, and its error codes tell a missing driver
 * (cudaErrorInsufficientDriver, 35) from a machine without a device
 * (cudaErrorNoDevice, 100). HIP mirrors the runtime call for call, so one
 * implementation (pb_gpu_*) serves both; rocBLAS uses HIP.
 *
 * Where libraries are looked for (each soname, newest major first): the
 * dynamic linker's own search (LD_LIBRARY_PATH, ldconfig), then, where the
 * file exists, $CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64,
 * /usr/local/cuda-<version>/lib64, the nvidia/<package>/lib folders of
 * Python site-packages ($VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, pyenv,
 * /usr/local/lib/python3.x, /usr/lib/python3.x: this covers both the
 * nvidia/cublas/lib and the nvidia/cu13/lib wheel layouts), and for ROCm
 * $ROCM_PATH/lib, /opt/rocm/lib, /opt/rocm-<version>/lib. An
 * environment variable names the only file tried: PEAKBENCH_CUDART,
 * PEAKBENCH_CUBLAS, PEAKBENCH_CUDNN, PEAKBENCH_NVML, PEAKBENCH_HIP,
 * PEAKBENCH_ROCBLAS. A library's companions in its own folder (libcublasLt
 * beside libcublas, cuDNN 9's and 8's sub-libraries beside libcudnn) are
 * loaded by full path first, so that the dynamic linker binds to them rather
 * than to another version on its search path.
 *
 * Threads: the runtimes keep the current device per host thread, and Go
 * runs each cgo call on any thread, so every entry point below that touches
 * a device makes it current first. Handles are not safe for concurrent use.
 */

typedef enum pb_gpu_vendor {
	PB_GPU_CUDA = 1, /* libcudart */
	PB_GPU_HIP = 2   /* libamdhip64 */
} pb_gpu_vendor;

/* Element types of GPU jobs. */
typedef enum pb_gpu_dtype {
	PB_GPU_F16 = 1,  /* IEEE binary16 storage */
	PB_GPU_BF16 = 2, /* bfloat16 storage */
	PB_GPU_F32 = 3,
	PB_GPU_TF32 = 4, /* f32 storage, TF32 tensor-core arithmetic (gemm only) */
	PB_GPU_F64 = 5,
	PB_GPU_I8 = 6,   /* signed 8-bit integers (gemm inputs) */
	PB_GPU_I32 = 7,  /* signed 32-bit integers (an integer gemm's output) */
	PB_GPU_E4M3 = 8, /* OCP 8-bit float, 4 exponent bits, no infinities (gemm inputs) */
	PB_GPU_E5M2 = 9  /* OCP 8-bit float, 5 exponent bits (gemm inputs) */
} pb_gpu_dtype;

/* Runtime error codes the callers classify (equal in CUDA and HIP). */
#define PB_GPU_CODE_OUT_OF_MEMORY 2
#define PB_GPU_CODE_INSUFFICIENT_DRIVER 35
#define PB_GPU_CODE_NO_DEVICE 100
#define PB_GPU_CODE_INVALID_DEVICE 101

typedef struct pb_gpu_rt pb_gpu_rt;

/*
 * pb_gpu_rt_open loads the runtime of vendor (path NULL or "": the search
 * above; else the only file tried) and resolves its calls. Runtimes stay
 * loaded for the life of the process (unloading a GPU runtime is unsafe)
 * and a second open of the same file returns the same handle. When a CUDA
 * runtime reports cudaErrorInsufficientDriver, older runtimes found are
 * tried before giving up. *code receives the runtime's error code of the
 * device query (0 when it succeeded), tried the candidates, one
 * "CAND: WHY" per line, when none loads.
 */
pb_status pb_gpu_rt_open(pb_gpu_vendor vendor, const char *path, pb_gpu_rt **out, int *code,
                         char *tried, size_t triedlen, char *err, size_t errlen);
/* pb_gpu_rt_info writes key=value lines: vendor, path, version, driver_version. */
pb_status pb_gpu_rt_info(const pb_gpu_rt *rt, char *buf, size_t buflen, char *err, size_t errlen);
/*
 * pb_gpu_device_count writes the number of devices. A runtime without a
 * usable driver or device fails with the runtime's text and *code set
 * (PB_GPU_CODE_NO_DEVICE, PB_GPU_CODE_INSUFFICIENT_DRIVER, ...).
 */
pb_status pb_gpu_device_count(pb_gpu_rt *rt, int *count, int *code, char *err, size_t errlen);

/* What a device is, read from the runtime's attributes (0 where unknown). */
typedef struct pb_gpu_props {
	char name[256];
	char pci_bus_id[64];   /* "0000:3b:00.0" */
	int major, minor;      /* compute capability (HIP: its approximation) */
	int sms;               /* streaming multiprocessors / compute units */
	int clock_khz;         /* peak SM clock */
	int mem_clock_khz;     /* peak memory clock; the data rate is twice this */
	int bus_width_bits;    /* memory bus width */
	int l2_bytes;          /* L2 cache */
	unsigned long long total_mem, free_mem; /* bytes */
} pb_gpu_props;

pb_status pb_gpu_device_props(pb_gpu_rt *rt, int device, pb_gpu_props *props, int *code,
                              char *err, size_t errlen);

/* A device opened for work: a non-blocking stream of its own. */
typedef struct pb_gpu pb_gpu;

pb_status pb_gpu_open(pb_gpu_rt *rt, int device, pb_gpu **out, int *code, char *err,
                      size_t errlen);
/* pb_gpu_close frees the stream; libraries and jobs on it must be closed first. */
void pb_gpu_close(pb_gpu *gpu);
pb_status pb_gpu_mem_info(pb_gpu *gpu, unsigned long long *free_bytes,
                          unsigned long long *total_bytes, char *err, size_t errlen);
/*
 * pb_gpu_copy_bandwidth copies bytes from one device buffer to another
 * iters times back to back (after two untimed copies) and writes the time
 * the copies took, measured with events on the device's stream. The
 * traffic is 2·bytes per copy (read and write).
 */
pb_status pb_gpu_copy_bandwidth(pb_gpu *gpu, size_t bytes, int iters, int64_t *ns, char *err,
                                size_t errlen);

/*
 * GPU jobs: an operation prepared on device buffers (one set per copy),
 * inputs copied in once, timed with device events. Arguments are as for
 * pb_job (inputs first; gemm A, B, C; gemv A, x, y; axpy x, y; dot x, y, r;
 * unary x, y; binary x, y, z; reductions x, r). pb_gpu_job_run records an
 * event on the device's stream, enqueues iters iterations (iteration i on
 * copy (start + i) mod copies), records a second event, waits for it and
 * writes the time between the two. Out of device memory at preparation is
 * PB_ERR_NOMEM with a message naming the device, the size and the job.
 */
/* A GPU job is a pb_job on a device: pb_job_run and the rest take it too. */
typedef struct pb_job pb_gpu_job;

typedef struct pb_gpu_job_opts {
	int copies; /* buffer sets to rotate through: 1 .. PB_MAX_COPIES (0 means 1) */
} pb_gpu_job_opts;

pb_status pb_gpu_job_args(const pb_gpu_job *job, int *nargs, int *output, char *err,
                          size_t errlen);
pb_status pb_gpu_job_arg_len(const pb_gpu_job *job, int arg, size_t *len, char *err,
                             size_t errlen);
/*
 * pb_gpu_job_set_input converts src to the argument's type on the host (f16,
 * bf16, e4m3 and e5m2 rounded to nearest, ties to even, e4m3 saturating at
 * ±448; i8 rounded and saturated) and copies it to every copy.
 */
pb_status pb_gpu_job_set_input(pb_gpu_job *job, int arg, const double *src, size_t len,
                               char *err, size_t errlen);
pb_status pb_gpu_job_run(pb_gpu_job *job, int64_t iters, int64_t *ns, char *err, size_t errlen);
/* Waits for the device, copies the latest iteration's output back and widens it. */
pb_status pb_gpu_job_output(pb_gpu_job *job, double *dst, size_t len, char *err, size_t errlen);
pb_status pb_gpu_job_describe(const pb_gpu_job *job, char *buf, size_t buflen, char *err,
                              size_t errlen);
void pb_gpu_job_free(pb_gpu_job *job);

/* NVML: clocks, temperature and throttle reasons of an NVIDIA device. */
typedef struct pb_nvml pb_nvml;

#define PB_NVML_HAVE_SM_CLOCK 0x1
#define PB_NVML_HAVE_MEM_CLOCK 0x2
#define PB_NVML_HAVE_MAX_SM_CLOCK 0x4
#define PB_NVML_HAVE_MAX_MEM_CLOCK 0x8
#define PB_NVML_HAVE_TEMP 0x10
#define PB_NVML_HAVE_POWER 0x20
#define PB_NVML_HAVE_REASONS 0x40

typedef struct pb_nvml_sample {
	unsigned sm_mhz, mem_mhz, max_sm_mhz, max_mem_mhz, temp_c, power_mw;
	unsigned long long reasons; /* nvmlClocksEventReason* bits (include/vendor/nvml.h) */
	int have;                   /* PB_NVML_HAVE_* of the fields read */
} pb_nvml_sample;

/*
 * pb_nvml_open initializes NVML (PEAKBENCH_NVML, else libnvidia-ml.so.1)
 * and finds the device by its PCI bus id.
 */
pb_status pb_nvml_open(const char *pci_bus_id, pb_nvml **out, char *tried, size_t triedlen,
                       char *err, size_t errlen);
/* key=value lines: path, driver, and the calls used: reasons_call, temperature_call. */
pb_status pb_nvml_info(const pb_nvml *nvml, char *buf, size_t buflen, char *err, size_t errlen);
pb_status pb_nvml_read(pb_nvml *nvml, pb_nvml_sample *sample, char *err, size_t errlen);
void pb_nvml_close(pb_nvml *nvml);

/* cuBLAS (11 or later) on a CUDA device. */
typedef struct pb_cublas pb_cublas;

pb_status pb_cublas_open(pb_gpu *gpu, const char *path, pb_cublas **out, char *tried,
                         size_t triedlen, char *err, size_t errlen);
/*
 * key=value lines: version, path, lt_path (libcublasLt loaded beside it, if
 * any), and fp8: "cublasLtMatmul" when fp8 gemm can run, else why not.
 */
pb_status pb_cublas_info(const pb_cublas *lib, char *buf, size_t buflen, char *err,
                         size_t errlen);
void pb_cublas_close(pb_cublas *lib);
/*
 * Row-major C (m×n) = op(A)·op(B), computed as cuBLAS's column-major
 * Cᵀ = op(B)ᵀ·op(A)ᵀ (operands and m, n swapped). dt names the inputs; the
 * output is F32 for the 16- and 8-bit floats and I32 for I8. F32 and F64:
 * Sgemm, Dgemm; F16 and BF16: GemmEx, A and B in that type, C f32,
 * CUBLAS_COMPUTE_32F; TF32: GemmEx on f32 with CUBLAS_COMPUTE_32F_FAST_TF32;
 * I8: GemmEx, C i32, CUBLAS_COMPUTE_32I (leading dimensions of A and B
 * multiples of 4, else PB_ERR_UNSUPPORTED); E4M3 and E5M2: cublasLtMatmul
 * (compute capability 8.9 or later, row-major transB without transA only,
 * k a multiple of 16 and n of 4; E5M2 × E5M2 has no cuBLASLt kernel: all
 * PB_ERR_UNSUPPORTED with the reason).
 */
pb_status pb_cublas_job_gemm(pb_cublas *lib, pb_gpu_dtype dt, pb_trans ta, pb_trans tb, int m,
                             int n, int k, const pb_gpu_job_opts *opts, pb_gpu_job **out,
                             char *err, size_t errlen);
/* y = A·x, A m×n row-major (to cuBLAS: Aᵀ of its column-major n×m view). F32, F64. */
pb_status pb_cublas_job_gemv(pb_cublas *lib, pb_gpu_dtype dt, int m, int n,
                             const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err,
                             size_t errlen);
pb_status pb_cublas_job_axpy(pb_cublas *lib, pb_gpu_dtype dt, int n, double alpha,
                             const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err,
                             size_t errlen);
/* dot runs in device pointer mode: the result stays on the device, no sync per call. */
pb_status pb_cublas_job_dot(pb_cublas *lib, pb_gpu_dtype dt, int n, const pb_gpu_job_opts *opts,
                            pb_gpu_job **out, char *err, size_t errlen);

/* cuDNN (8 or 9, the legacy tensor-op API) on a CUDA device; f32 only. */
typedef struct pb_cudnn pb_cudnn;

typedef enum pb_cudnn_op {
	PB_CUDNN_ADD = 0, /* cudnnOpTensor add: x, y, z */
	PB_CUDNN_MUL,     /* cudnnOpTensor mul: x, y, z */
	PB_CUDNN_RELU,    /* cudnnActivationForward: x, y */
	PB_CUDNN_SIGMOID,
	PB_CUDNN_TANH,
	PB_CUDNN_SOFTMAX, /* cudnnSoftmaxForward, accurate, per row: N×C×1×1, instance mode */
	PB_CUDNN_SUM,     /* cudnnReduceTensor add: x, r */
	PB_CUDNN_MAX      /* cudnnReduceTensor max: x, r */
} pb_cudnn_op;

/*
 * pb_cudnn_open refuses (PB_ERR_VERSION) a cuDNN built for another CUDA
 * major than the runtime's (cudnnGetCudartVersion), and a cuDNN 8 without
 * libcudnn_ops_infer.so.8 (PB_ERR_NOT_FOUND): cuDNN 8 aborts the process
 * when a sub-library it needs does not load.
 */
pb_status pb_cudnn_open(pb_gpu *gpu, const char *path, pb_cudnn **out, char *tried,
                        size_t triedlen, char *err, size_t errlen);
/*
 * key=value lines: version, path, built_for_cuda ("12.4"), sublibraries
 * (cuDNN 8's resident, by path, comma-separated), conv ("not available:
 * WHY" when cuDNN 8's libcudnn_cnn_infer.so.8 is missing).
 */
pb_status pb_cudnn_info(const pb_cudnn *lib, char *buf, size_t buflen, char *err, size_t errlen);
void pb_cudnn_close(pb_cudnn *lib);
/* rows is 1 except for softmax. */
pb_status pb_cudnn_job(pb_cudnn *lib, pb_cudnn_op op, pb_gpu_dtype dt, int64_t rows,
                       int64_t cols, const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err,
                       size_t errlen);

/*
 * GPU libraries by name. A library of native/ that registers itself
 * (native/pb_gpu_registry.h: cufft.c) is opened, described, asked for jobs
 * and closed through the calls below, with no entry points of its own
 * here: its name ("cufft") and the meaning of its job parameters are the
 * library's, documented in its C file and spoken by its Go package (cgo/cufft).
 * A static link of libpeakbench keeps a library's file only when the
 * archive is linked whole (-Wl,--whole-archive): its registration is all
 * that refers to it.
 */
typedef struct pb_gpu_vlib pb_gpu_vlib;

/*
 * pb_gpu_vlib_open loads library name on gpu: path, when not empty, alone;
 * else its override variable's file (PEAKBENCH_CUFFT) or its search. An
 * unregistered name, or a device of another vendor than the library's, is
 * PB_ERR_INVALID; tried lists the candidates, one "CAND: WHY" per line,
 * when none loads. file, when not NULL, receives the file the library is
 * looked for as ("libcufft"), for the caller's not-found error.
 */
pb_status pb_gpu_vlib_open(const char *name, pb_gpu *gpu, const char *path, pb_gpu_vlib **out,
                           char *file, size_t filelen, char *tried, size_t triedlen, char *err,
                           size_t errlen);
/* key=value lines: version, path, and what else the library reports. */
pb_status pb_gpu_vlib_info(const pb_gpu_vlib *lib, char *buf, size_t buflen, char *err,
                           size_t errlen);
/*
 * pb_gpu_vlib_job prepares a job of the library in dt from its parameters
 * (params[0 .. nparams), their meaning the library's); reported[0 ..
 * nreported), when nreported > 0, receives what the library says about the
 * job made (cufft: reported[0], the plan's time in ns), zeros where it says
 * nothing.
 */
pb_status pb_gpu_vlib_job(pb_gpu_vlib *lib, pb_gpu_dtype dt, const int64_t *params, int nparams,
                          const pb_gpu_job_opts *opts, pb_gpu_job **out, int64_t *reported,
                          int nreported, char *err, size_t errlen);
/* pb_gpu_vlib_close frees the handle; jobs made from it must be freed first. */
void pb_gpu_vlib_close(pb_gpu_vlib *lib);
/* pb_gpu_vlib_names writes the registered names, one per line. */
void pb_gpu_vlib_names(char *buf, size_t buflen);

/* cuSPARSE (11.2 or later: the generic API) on a CUDA device. */
typedef struct pb_cusparse pb_cusparse;

pb_status pb_cusparse_open(pb_gpu *gpu, const char *path, pb_cusparse **out, char *tried,
                           size_t triedlen, char *err, size_t errlen);
/* key=value lines: version, path. */
pb_status pb_cusparse_info(const pb_cusparse *lib, char *buf, size_t buflen, char *err,
                           size_t errlen);
void pb_cusparse_close(pb_cusparse *lib);
/*
 * pb_cusparse_job prepares y = A·x (k = 0: cusparseSpMV) or Y = A·X (X
 * cols×k and Y rows×k row-major: cusparseSpMM), A rows×cols in CSR with
 * int32 indices from 0 (row_ptr: rows+1 offsets; col_idx: nnz columns,
 * both copied to the device here, per copy), F32 or F64, the library's
 * default algorithm; its workspace is allocated here. Arguments: 0 the
 * values (nnz), 1 x or X, 2 y or Y (the output).
 */
pb_status pb_cusparse_job(pb_cusparse *lib, pb_gpu_dtype dt, int rows, int cols, size_t nnz,
                          int k, const int32_t *row_ptr, const int32_t *col_idx,
                          const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err,
                          size_t errlen);
/*
 * pb_cusparse_convert_job prepares a format conversion of a rows×cols
 * matrix of nnz entries (native/cusparse_convert.c): PB_CSR2COO
 * (cusparseXcsr2coo), PB_COO2CSR (cusparseXcoo2csr, COO sorted by row) or
 * PB_CSR2CSC (cusparseCsr2cscEx2, CUSPARSE_ACTION_NUMERIC, algorithm 1, its
 * workspace allocated here), zero-based int32 indices, values F32 or F64.
 * Arguments as pb_mkl_job_sparse_convert's, each copy's own: 0 the input's
 * pointers or rows (CSR's rows+1 pointers, or COO's nnz rows for
 * coo2csr), 1 the column indices (nnz; csr2csc's), 2 the values (dt, nnz;
 * csr2csc's, the only argument set with pb_gpu_job_set_input), 3 the
 * output's values (dt, nnz), 4 its indices (nnz: COO's rows, CSC's rows),
 * 5 its pointers (CSR's rows+1, CSC's cols+1); an argument the conversion
 * does not use holds nothing. ptr (argument 0) and idx (argument 1, NULL
 * but for csr2csc) are copied to the device here, per copy. Output: 4 for
 * csr2coo, 5 for coo2csr, 3 for csr2csc (4 and 5 read with
 * pb_job_arg_output). pb_cusparse_convert_has reports (1/0) whether the
 * library file has op's calls.
 */
int pb_cusparse_convert_has(const pb_cusparse *lib, pb_sparse_convert op);
pb_status pb_cusparse_convert_job(pb_cusparse *lib, pb_sparse_convert op, pb_gpu_dtype dt,
                                  int rows, int cols, size_t nnz, const int32_t *ptr,
                                  const int32_t *idx, const pb_gpu_job_opts *opts,
                                  pb_gpu_job **out, char *err, size_t errlen);

/* rocBLAS on a HIP device. */
typedef struct pb_rocblas pb_rocblas;

pb_status pb_rocblas_open(pb_gpu *gpu, const char *path, pb_rocblas **out, char *tried,
                          size_t triedlen, char *err, size_t errlen);
pb_status pb_rocblas_info(const pb_rocblas *lib, char *buf, size_t buflen, char *err,
                          size_t errlen);
void pb_rocblas_close(pb_rocblas *lib);
/* As pb_cublas_job_gemm (column-major, operands swapped); F32 and F64. */
pb_status pb_rocblas_job_gemm(pb_rocblas *lib, pb_gpu_dtype dt, pb_trans ta, pb_trans tb, int m,
                              int n, int k, const pb_gpu_job_opts *opts, pb_gpu_job **out,
                              char *err, size_t errlen);

/* Deep-learning layers (native/cblas_conv.c, native/onednn_layers.c). */

/*
 * The geometry of a layer job. Spatial extents are three dimensions D, H, W
 * (index 0, 1, 2); a job of rank r uses the last r and keeps the others at
 * extent 1, window 1, stride 1, padding 0, dilation 1. Tensors are
 * N×C×D×H×W, or N×D×H×W×C when nhwc; convolution filters K×C×T×R×S, or
 * K×T×R×S×C when nhwc; outputs as inputs (K channels for convolutions).
 * Output extents: ⌊(in + 2·pad − dil·(window−1) − 1)/stride⌋ + 1 (floor).
 */
typedef struct pb_layer {
	int64_t n, c, k;   /* batch, input channels, convolution output channels */
	int64_t in[3];     /* input extents D, H, W */
	int64_t window[3]; /* convolution filter or pooling window T, R, S */
	int64_t stride[3];
	int64_t pad[3];    /* zero padding, both sides */
	int64_t dil[3];    /* convolution dilation (1: none) */
	int64_t out[3];    /* adaptive average pooling: the output extents */
	int rank;          /* spatial dimensions: 1..3 (normalizations 0..3) */
	int nhwc;          /* channels last */
	int groups;        /* group normalization */
} pb_layer;

/*
 * pb_cblas_job_conv prepares a convolution computed by im2col and the
 * library's GEMM, both inside every timed iteration: for each sample, the
 * input values each output position sees are copied (im2col, in C, one
 * thread) into a column buffer the job owns, then one cblas_?gemm
 * multiplies it with the filter (NCHW: y[n] = w · col, K×P; NHWC: y[n] =
 * col · wᵀ, P×K). A 1×1 convolution with stride 1 and no padding needs no
 * copy (NHWC: one GEMM over the whole batch). Arguments: x, w, y (output).
 */
pb_status pb_cblas_job_conv(pb_cblas *lib, pb_dtype dt, const pb_layer *geom,
                            const pb_job_opts *opts, pb_job **out, char *err, size_t errlen);

typedef enum pb_dnnl_layer_op {
	PB_DNNL_CONV = 0,     /* convolution forward (inference), no bias: x, w, y */
	PB_DNNL_MAXPOOL,      /* pooling max: x, y */
	PB_DNNL_AVGPOOL,      /* pooling avg_include_padding: x, y */
	PB_DNNL_ADAPTIVEPOOL, /* avg pool to geom->out: exact windows only (in % out == 0): x, y */
	PB_DNNL_BATCHNORM,    /* batch normalization inference, global stats, scale and shift:
	                         x, mean, variance, scale (γ), shift (β), y */
	PB_DNNL_LAYERNORM,    /* layer normalization over all but N, scale and shift
	                         (C·D·H·W each): x, scale, shift, y */
	PB_DNNL_GROUPNORM     /* oneDNN 2.x has none: PB_ERR_UNSUPPORTED */
} pb_dnnl_layer_op;

/* The algorithm of PB_DNNL_CONV. */
typedef enum pb_dnnl_conv_alg {
	PB_DNNL_CONV_AUTO = 0, /* dnnl_convolution_auto: the library chooses */
	PB_DNNL_CONV_DIRECT,   /* dnnl_convolution_direct */
	PB_DNNL_CONV_WINOGRAD  /* dnnl_convolution_winograd */
} pb_dnnl_conv_alg;

/*
 * pb_dnnl_layer_job prepares a layer primitive on the CPU engine, f32, on
 * plain tensors in the geometry's layout (nchw/nhwc and friends). The
 * convolution's weights are given plain (oihw or ohwi) but the primitive
 * may prefer a blocked layout (format any): then a reorder to it runs
 * before the clock starts, as frameworks reorder constant weights once.
 * eps is the normalizations' ε. pb_job_describe names the implementation
 * oneDNN chose (impl_info_str).
 */
pb_status pb_dnnl_layer_job(pb_dnnl *lib, pb_dnnl_layer_op op, pb_dtype dt, const pb_layer *geom,
                            pb_dnnl_conv_alg alg, float eps, const pb_job_opts *opts,
                            pb_job **out, char *err, size_t errlen);

/*
 * pb_cudnn_conv_job prepares a convolution forward with cuDNN (f32, no
 * bias, CUDNN_FMA_MATH: no TF32), in the geometry's layout (1-D as 2-D of
 * height 1). The algorithm is the fastest cudnnFindConvolutionForwardAlgorithm
 * measures (cudnnGetConvolutionForwardAlgorithm_v7's first when that fails);
 * its workspace (cudnnGetConvolutionForwardWorkspaceSize) is allocated
 * once. pb_gpu_job_describe names the algorithm ("algo=IMPLICIT_GEMM").
 * Arguments: x, w, y. PB_ERR_NOT_FOUND, before any cuDNN call, when cuDNN
 * 8's convolution library is missing (pb_cudnn_info's conv).
 */
pb_status pb_cudnn_conv_job(pb_cudnn *lib, pb_gpu_dtype dt, const pb_layer *geom,
                            const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err,
                            size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PEAKBENCH_H */
