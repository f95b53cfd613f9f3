/*
 * MKL's inspector-executor sparse BLAS: y = A·x (mkl_sparse_?_mv) and
 * Y = A·X (mkl_sparse_?_mm, X row-major) for A in CSR with int32 (LP64)
 * indices, from the MKL that mkl.c opened. Two algorithms: "plain" times
 * the calls on the handle as created; "optimized" first gives MKL the mv
 * (mm) hint and lets mkl_sparse_optimize analyse the matrix, outside the
 * clock, as an application calling it many times would.
 *
 * The handle refers to the job's buffers (values per copy) and index arrays
 * of its own (one set per copy, so a cold-cache copy's indices are cold
 * too). It is made before the first run, once the inputs are in the
 * buffers: mkl_sparse_optimize may copy the values into a format of its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_internal.h"
#include "vendor/mkl_sparse.h"

typedef struct pb_mkl_sparse_fns {
	mkl_sparse_s_create_csr_fn s_create_csr;
	mkl_sparse_d_create_csr_fn d_create_csr;
	mkl_sparse_destroy_fn destroy;
	mkl_sparse_set_mv_hint_fn set_mv_hint;
	mkl_sparse_set_mm_hint_fn set_mm_hint;
	mkl_sparse_optimize_fn optimize;
	mkl_sparse_s_mv_fn s_mv;
	mkl_sparse_d_mv_fn d_mv;
	mkl_sparse_s_mm_fn s_mm;
	mkl_sparse_d_mm_fn d_mm;
} pb_mkl_sparse_fns;

/* resolve fills f from lib; it returns the number of calls missing. */
static int resolve(const pb_cblas *lib, pb_mkl_sparse_fns *f, pb_sb *missing)
{
	const pb_sym syms[] = {
	    {"mkl_sparse_s_create_csr", &f->s_create_csr, 0},
	    {"mkl_sparse_d_create_csr", &f->d_create_csr, 0},
	    {"mkl_sparse_destroy", &f->destroy, 0},
	    {"mkl_sparse_set_mv_hint", &f->set_mv_hint, 0},
	    {"mkl_sparse_set_mm_hint", &f->set_mm_hint, 0},
	    {"mkl_sparse_optimize", &f->optimize, 0},
	    {"mkl_sparse_s_mv", &f->s_mv, 0},
	    {"mkl_sparse_d_mv", &f->d_mv, 0},
	    {"mkl_sparse_s_mm", &f->s_mm, 0},
	    {"mkl_sparse_d_mm", &f->d_mm, 0},
	};
	return pb_dl_resolve(lib->dl, syms, PB_NSYMS(syms), missing);
}

static int is_mkl(const pb_cblas *lib) { return lib != NULL && lib->fam->load == pb_mkl_load; }

int pb_mkl_sparse_has(const pb_cblas *lib)
{
	if (!is_mkl(lib))
		return 0;
	pb_mkl_sparse_fns f;
	char buf[256];
	pb_sb m;
	pb_sb_init(&m, buf, sizeof buf);
	return resolve(lib, &f, &m) == 0;
}

typedef struct sparse_ctx {
	pb_mkl_sparse_fns f;
	pb_job_hook_fn inner_before; /* the CBLAS job's: applies the thread count */
	int rows, cols, k, optimized;
	size_t nnz;
	int **rowptr, **colidx; /* per copy */
	sparse_matrix_t *a;     /* per copy, NULL until the first run */
} sparse_ctx;

static const struct matrix_descr general = {SPARSE_MATRIX_TYPE_GENERAL, SPARSE_FILL_MODE_FULL,
                                            SPARSE_DIAG_NON_UNIT};

static pb_status sparse_fail(int st, const char *call, char *err, size_t errlen)
{
	return pb_fail(st == SPARSE_STATUS_NOT_SUPPORTED ? PB_ERR_UNSUPPORTED : PB_ERR_LIBRARY, err,
	               errlen, "mkl: %s returned sparse status %d", call, st);
}

/* make_handles creates (and for "optimized", analyses) each copy's handle. */
static pb_status make_handles(pb_job *j, sparse_ctx *s, char *err, size_t errlen)
{
	for (int c = 0; c < j->copies; c++) {
		if (s->a[c] != NULL)
			continue;
		int *rp = s->rowptr[c];
		void *val = pb_job_buf(j, c, 0);
		int st = j->dt == PB_F64
		             ? s->f.d_create_csr(&s->a[c], SPARSE_INDEX_BASE_ZERO, s->rows, s->cols, rp,
		                                 rp + 1, s->colidx[c], val)
		             : s->f.s_create_csr(&s->a[c], SPARSE_INDEX_BASE_ZERO, s->rows, s->cols, rp,
		                                 rp + 1, s->colidx[c], val);
		if (st != SPARSE_STATUS_SUCCESS) {
			s->a[c] = NULL;
			return sparse_fail(st, "mkl_sparse_?_create_csr", err, errlen);
		}
		if (!s->optimized)
			continue;
		/* A large expected count: the run calls it thousands of times. */
		st = s->k > 0 ? s->f.set_mm_hint(s->a[c], SPARSE_OPERATION_NON_TRANSPOSE, general,
		                                  SPARSE_LAYOUT_ROW_MAJOR, s->k, 1000000)
		              : s->f.set_mv_hint(s->a[c], SPARSE_OPERATION_NON_TRANSPOSE, general,
		                                 1000000);
		if (st != SPARSE_STATUS_SUCCESS && st != SPARSE_STATUS_NOT_SUPPORTED)
			return sparse_fail(st, "mkl_sparse_set_mv_hint", err, errlen);
		if ((st = s->f.optimize(s->a[c])) != SPARSE_STATUS_SUCCESS)
			return sparse_fail(st, "mkl_sparse_optimize", err, errlen);
	}
	return PB_OK;
}

static pb_status sparse_before(pb_job *j, char *err, size_t errlen)
{
	sparse_ctx *s = j->ctx;
	pb_status st;
	if (s->inner_before != NULL && (st = s->inner_before(j, err, errlen)) != PB_OK)
		return st;
	return make_handles(j, s, err, errlen);
}

static pb_status it_sparse(pb_job *j, int c, char *err, size_t errlen)
{
	sparse_ctx *s = j->ctx;
	const void *x = pb_job_buf(j, c, 1);
	void *y = pb_job_buf(j, c, 2);
	int st;
	if (s->k > 0)
		st = j->dt == PB_F64
		         ? s->f.d_mm(SPARSE_OPERATION_NON_TRANSPOSE, 1.0, s->a[c], general,
		                     SPARSE_LAYOUT_ROW_MAJOR, x, s->k, s->k, 0.0, y, s->k)
		         : s->f.s_mm(SPARSE_OPERATION_NON_TRANSPOSE, 1.0f, s->a[c], general,
		                     SPARSE_LAYOUT_ROW_MAJOR, x, s->k, s->k, 0.0f, y, s->k);
	else
		st = j->dt == PB_F64 ? s->f.d_mv(SPARSE_OPERATION_NON_TRANSPOSE, 1.0, s->a[c], general, x,
		                                 0.0, y)
		                     : s->f.s_mv(SPARSE_OPERATION_NON_TRANSPOSE, 1.0f, s->a[c], general,
		                                 x, 0.0f, y);
	if (st != SPARSE_STATUS_SUCCESS)
		return sparse_fail(st, s->k > 0 ? "mkl_sparse_?_mm" : "mkl_sparse_?_mv", err, errlen);
	return PB_OK;
}

static void sparse_destroy(pb_job *j)
{
	sparse_ctx *s = j->ctx;
	if (s == NULL)
		return;
	for (int c = 0; c < j->copies; c++) {
		if (s->a != NULL && s->a[c] != NULL)
			s->f.destroy(s->a[c]);
		if (s->rowptr != NULL)
			free(s->rowptr[c]);
		if (s->colidx != NULL)
			free(s->colidx[c]);
	}
	free(s->a);
	free(s->rowptr);
	free(s->colidx);
	free(s);
	j->ctx = NULL;
}

/* copy_ints returns n ints copied from src, 64-byte aligned; NULL when out of memory. */
static int *copy_ints(const int32_t *src, size_t n)
{
	int *p = aligned_alloc(64, (n * sizeof(int) + 63) / 64 * 64);
	if (p != NULL)
		memcpy(p, src, n * sizeof(int));
	return p;
}

pb_status pb_mkl_job_sparse(pb_cblas *lib, pb_dtype dt, int rows, int cols, size_t nnz, int k,
                            const int32_t *rowptr, const int32_t *colidx, int optimized,
                            const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	if (lib == NULL || out == NULL || rowptr == NULL || colidx == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_mkl_job_sparse: NULL argument");
	if (!is_mkl(lib))
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "%s: sparse BLAS is MKL's only",
		               lib->name);
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	if (rows < 1 || cols < 1 || nnz < 1 || k < 0 || (size_t)rowptr[rows] != nnz ||
	    rowptr[0] != 0)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "sparse job: %d×%d with %zu entries, k=%d: bad shape or row pointers",
		               rows, cols, nnz, k);
	sparse_ctx *s = calloc(1, sizeof *s);
	if (s == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "sparse job: out of memory");
	char missing[256];
	pb_sb m;
	pb_sb_init(&m, missing, sizeof missing);
	if (resolve(lib, &s->f, &m) > 0) {
		free(s);
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "mkl: %s lacks the sparse BLAS: %s",
		               lib->path, missing);
	}
	int cols_x = k > 0 ? k : 1;
	size_t lens[3] = {nnz, (size_t)cols * cols_x, (size_t)rows * cols_x};
	pb_status st = pb_cblas_new_job(lib, dt, 3, lens, 2, opts, out, err, errlen);
	if (st != PB_OK) {
		free(s);
		return st;
	}
	pb_job *j = *out;
	s->rows = rows;
	s->cols = cols;
	s->k = k;
	s->nnz = nnz;
	s->optimized = optimized;
	s->inner_before = j->before;
	j->ctx = s;
	j->destroy = sparse_destroy;
	j->before = sparse_before;
	j->iter = it_sparse;
	s->a = calloc((size_t)j->copies, sizeof *s->a);
	s->rowptr = calloc((size_t)j->copies, sizeof *s->rowptr);
	s->colidx = calloc((size_t)j->copies, sizeof *s->colidx);
	if (s->a == NULL || s->rowptr == NULL || s->colidx == NULL)
		goto oom;
	for (int c = 0; c < j->copies; c++) {
		s->rowptr[c] = copy_ints(rowptr, (size_t)rows + 1);
		s->colidx[c] = copy_ints(colidx, nnz);
		if (s->rowptr[c] == NULL || s->colidx[c] == NULL)
			goto oom;
	}
	snprintf(j->desc, sizeof j->desc, "mkl mkl_sparse_%c_%s %d×%d nnz=%zu%s", dt == PB_F32 ? 's' : 'd',
	         k > 0 ? "mm" : "mv", rows, cols, nnz, optimized ? " optimized" : "");
	return PB_OK;
oom:
	pb_job_free(j);
	*out = NULL;
	return pb_fail(PB_ERR_NOMEM, err, errlen, "sparse job: out of memory for the indices");
}
