/*
 * MKL's sparse format conversions: CSR → COO (the row of each entry), COO
 * sorted by row → CSR (the row pointers) and CSR → CSC, with the converters
 * of MKL's older sparse BLAS, mkl_?csrcoo and mkl_?csrcsc (deprecated, in
 * MKL 2020 and oneMKL). They write into the caller's arrays, so the timed
 * call is the conversion alone; the inspector-executor route
 * (mkl_sparse_convert_csr) allocates the result inside the call and needs
 * an export and a destroy per conversion. Every array is a job argument,
 * one set per copy (a cold-cache copy's indices are cold too).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pb_internal.h"
#include "vendor/mkl_sparse.h"

typedef struct convert_fns {
	mkl_scsrcoo_fn scsrcoo;
	mkl_dcsrcoo_fn dcsrcoo;
	mkl_scsrcsc_fn scsrcsc;
	mkl_dcsrcsc_fn dcsrcsc;
} convert_fns;

static int resolve(const pb_cblas *lib, convert_fns *f, pb_sb *missing)
{
	const pb_sym syms[] = {
	    {"mkl_scsrcoo", &f->scsrcoo, 0},
	    {"mkl_dcsrcoo", &f->dcsrcoo, 0},
	    {"mkl_scsrcsc", &f->scsrcsc, 0},
	    {"mkl_dcsrcsc", &f->dcsrcsc, 0},
	};
	return pb_dl_resolve(lib->dl, syms, PB_NSYMS(syms), missing);
}

int pb_mkl_sparse_convert_has(const pb_cblas *lib)
{
	if (lib == NULL || lib->fam->load != pb_mkl_load)
		return 0;
	convert_fns f;
	char buf[256];
	pb_sb m;
	pb_sb_init(&m, buf, sizeof buf);
	return resolve(lib, &f, &m) == 0;
}

typedef struct convert_ctx {
	convert_fns f;
	pb_sparse_convert op;
	pb_dtype dt;
	int rows, cols, nnz;
} convert_ctx;

static pb_status it_convert(pb_job *j, int c, char *err, size_t errlen)
{
	convert_ctx *s = j->ctx;
	int *inp = pb_job_buf(j, c, PB_CONVERT_IN_PTR), *ja = pb_job_buf(j, c, PB_CONVERT_IN_IDX);
	void *a = pb_job_buf(j, c, PB_CONVERT_IN_VAL), *b = pb_job_buf(j, c, PB_CONVERT_OUT_VAL);
	int *idx = pb_job_buf(j, c, PB_CONVERT_OUT_IDX), *ptr = pb_job_buf(j, c, PB_CONVERT_OUT_PTR);
	int info = 0, nnz = s->nnz;
	const char *call;
	switch (s->op) {
	case PB_CSR2COO: {
		/* CSR → COO, zero-based both, the rows alone (job[5] = 1). */
		const int job[6] = {0, 0, 0, 0, nnz, 1};
		call = "mkl_?csrcoo";
		if (s->dt == PB_F64)
			s->f.dcsrcoo(job, &s->rows, a, ja, inp, &nnz, b, idx, ptr, &info);
		else
			s->f.scsrcoo(job, &s->rows, a, ja, inp, &nnz, b, idx, ptr, &info);
		break;
	}
	case PB_COO2CSR: {
		/* COO → CSR with the columns of each row ascending (job[0] = 2),
		 * the row pointers alone (job[5] = 1). */
		const int job[6] = {2, 0, 0, 0, nnz, 1};
		call = "mkl_?csrcoo";
		if (s->dt == PB_F64)
			s->f.dcsrcoo(job, &s->rows, b, idx, ptr, &nnz, a, inp, ja, &info);
		else
			s->f.scsrcoo(job, &s->rows, b, idx, ptr, &nnz, a, inp, ja, &info);
		break;
	}
	default: {
		/* CSR → CSC, zero-based both, values too (job[5] = 1). */
		const int job[6] = {0, 0, 0, 0, 0, 1};
		call = "mkl_?csrcsc";
		if (s->dt == PB_F64)
			s->f.dcsrcsc(job, &s->rows, a, ja, inp, b, idx, ptr, &info);
		else
			s->f.scsrcsc(job, &s->rows, a, ja, inp, b, idx, ptr, &info);
	}
	}
	if (info != 0)
		return pb_fail(PB_ERR_LIBRARY, err, errlen, "mkl: %s returned info %d", call, info);
	return PB_OK;
}

static void convert_destroy(pb_job *j)
{
	free(j->ctx);
	j->ctx = NULL;
}

static const char *const convert_names[] = {"csr2coo", "coo2csr", "csr2csc"};

pb_status pb_mkl_job_sparse_convert(pb_cblas *lib, pb_sparse_convert op, pb_dtype dt, int rows,
                                    int cols, size_t nnz, const pb_job_opts *opts, pb_job **out,
                                    char *err, size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_mkl_job_sparse_convert: NULL argument");
	if (lib->fam->load != pb_mkl_load)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "%s: the sparse converters are MKL's",
		               lib->name);
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	if ((unsigned)op > PB_CSR2CSC || rows < 1 || cols < 1 || nnz < 1 || nnz > INT32_MAX)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "sparse conversion %d: %d×%d with %zu entries: bad op or shape", (int)op,
		               rows, cols, nnz);
	if (op == PB_CSR2CSC && rows != cols)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "mkl: mkl_?csrcsc converts square matrices only, not %d×%d", rows, cols);
	convert_ctx *s = calloc(1, sizeof *s);
	if (s == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "sparse conversion: out of memory");
	char missing[256];
	pb_sb m;
	pb_sb_init(&m, missing, sizeof missing);
	if (resolve(lib, &s->f, &m) > 0) {
		free(s);
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "mkl: %s lacks the sparse converters: %s",
		               lib->path, missing);
	}
	pb_host_dtype v = dt == PB_F64 ? PB_HOST_F64 : PB_HOST_F32;
	size_t rp = (size_t)rows + 1;
	size_t lens[PB_CONVERT_NARGS] = {op == PB_COO2CSR ? nnz : rp, nnz, nnz, nnz, nnz,
	                                 op == PB_CSR2CSC ? (size_t)cols + 1 : rp};
	const pb_host_dtype types[PB_CONVERT_NARGS] = {PB_HOST_S32, PB_HOST_S32, v,
	                                               v,           PB_HOST_S32, PB_HOST_S32};
	const int output[] = {PB_CONVERT_OUT_IDX, PB_CONVERT_OUT_PTR, PB_CONVERT_OUT_VAL};
	pb_status st =
	    pb_cblas_new_typed_job(lib, PB_CONVERT_NARGS, lens, types, output[op], opts, out, err, errlen);
	if (st != PB_OK) {
		free(s);
		return st;
	}
	pb_job *j = *out;
	s->op = op;
	s->dt = dt;
	s->rows = rows;
	s->cols = cols;
	s->nnz = (int)nnz;
	j->ctx = s;
	j->destroy = convert_destroy;
	j->iter = it_convert;
	snprintf(j->desc, sizeof j->desc, "mkl %s (mkl_%c%s) %d×%d nnz=%zu", convert_names[op],
	         dt == PB_F32 ? 's' : 'd', op == PB_CSR2CSC ? "csrcsc" : "csrcoo", rows, cols, nnz);
	return PB_OK;
}
