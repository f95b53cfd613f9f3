/*
 * cusparse_convert.c — cuSPARSE's sparse format conversions as GPU jobs:
 * CSR → COO (cusparseXcsr2coo: the row pointers into a row per entry),
 * COO sorted by row → CSR (cusparseXcoo2csr: the rows into pointers) and
 * CSR → CSC (cusparseCsr2cscEx2: every value and index moved), zero-based
 * int32 indices, f32 or f64 values.
 *
 * Every array is a job argument, one set per copy (a cold-cache copy's
 * indices are cold too), laid out as MKL's conversion jobs lay theirs
 * (peakbench.h); the input's indices are copied to the device when the job
 * is made, its values (csr2csc) set by the harness. Csr2cscEx2's workspace
 * is what its _bufferSize query asks for, allocated once with the job and
 * shared by the copies, whose iterations run one after another on the
 * stream. The timed call is the conversion alone: each writes every element
 * of its output, so nothing is cleared between iterations.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cusparse_internal.h"
#include "vendor/cublas.h" /* cudaDataType: CUDA_R_32F, CUDA_R_64F */

static const char *const call_names[] = {"cusparseXcsr2coo", "cusparseXcoo2csr",
                                         "cusparseCsr2cscEx2"};
static const char *const op_names[] = {"csr2coo", "coo2csr", "csr2csc"};

int pb_cusparse_convert_has(const pb_cusparse *lib, pb_sparse_convert op)
{
	if (lib == NULL)
		return 0;
	switch (op) {
	case PB_CSR2COO:
		return lib->csr2coo != NULL;
	case PB_COO2CSR:
		return lib->coo2csr != NULL;
	case PB_CSR2CSC:
		return lib->csr2csc != NULL && lib->csr2csc_buffer_size != NULL;
	}
	return 0;
}

/* The job's parameters: p[0] op, p[1] rows, p[2] cols, p[3] nnz, p[4] the cudaDataType. */

static pb_status convert_iter(pb_gpu_job *j, int copy, char *err, size_t errlen)
{
	pb_cusparse *lib = j->dev.lib;
	int rows = (int)j->p[1], cols = (int)j->p[2], nnz = (int)j->p[3], type = (int)j->p[4];
	int s;
	switch ((pb_sparse_convert)j->p[0]) {
	case PB_CSR2COO:
		s = lib->csr2coo(lib->h, pb_job_buf(j, copy, PB_CONVERT_IN_PTR), nnz, rows,
		                 pb_job_buf(j, copy, PB_CONVERT_OUT_IDX), CUSPARSE_INDEX_BASE_ZERO);
		break;
	case PB_COO2CSR:
		s = lib->coo2csr(lib->h, pb_job_buf(j, copy, PB_CONVERT_IN_PTR), nnz, rows,
		                 pb_job_buf(j, copy, PB_CONVERT_OUT_PTR), CUSPARSE_INDEX_BASE_ZERO);
		break;
	default:
		s = lib->csr2csc(lib->h, rows, cols, nnz, pb_job_buf(j, copy, PB_CONVERT_IN_VAL),
		                 pb_job_buf(j, copy, PB_CONVERT_IN_PTR), pb_job_buf(j, copy, PB_CONVERT_IN_IDX),
		                 pb_job_buf(j, copy, PB_CONVERT_OUT_VAL), pb_job_buf(j, copy, PB_CONVERT_OUT_PTR),
		                 pb_job_buf(j, copy, PB_CONVERT_OUT_IDX), type, CUSPARSE_ACTION_NUMERIC,
		                 CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, j->dev.scratch[0]);
	}
	if (s != CUSPARSE_STATUS_SUCCESS)
		return pb_cusparse_fail(lib, s, call_names[(int)j->p[0]], err, errlen);
	return PB_OK;
}

/* csr2csc_workspace asks Csr2cscEx2_bufferSize for the workspace, on copy 0's arrays, and allocates it. */
static pb_status csr2csc_workspace(pb_cusparse *lib, pb_gpu_job *j, size_t *ws, char *err,
                                   size_t errlen)
{
	int s = lib->csr2csc_buffer_size(
	    lib->h, (int)j->p[1], (int)j->p[2], (int)j->p[3], pb_job_buf(j, 0, PB_CONVERT_IN_VAL),
	    pb_job_buf(j, 0, PB_CONVERT_IN_PTR), pb_job_buf(j, 0, PB_CONVERT_IN_IDX),
	    pb_job_buf(j, 0, PB_CONVERT_OUT_VAL), pb_job_buf(j, 0, PB_CONVERT_OUT_PTR),
	    pb_job_buf(j, 0, PB_CONVERT_OUT_IDX), (int)j->p[4], CUSPARSE_ACTION_NUMERIC,
	    CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, ws);
	if (s != CUSPARSE_STATUS_SUCCESS)
		return pb_cusparse_fail(lib, s, "cusparseCsr2cscEx2_bufferSize", err, errlen);
	return pb_gpu_job_scratch(j, 0, *ws, err, errlen);
}

/* check_input checks the arrays the C side trusts to size the job: pointers from 0 to nnz, rows in range. */
static pb_status check_input(pb_sparse_convert op, int rows, int cols, size_t nnz,
                             const int32_t *ptr, const int32_t *idx, char *err, size_t errlen)
{
	if (op == PB_COO2CSR) {
		for (size_t e = 0; e < nnz; e++)
			if (ptr[e] < 0 || ptr[e] >= rows || (e > 0 && ptr[e] < ptr[e - 1]))
				return pb_fail(PB_ERR_INVALID, err, errlen,
				               "cusparse: coo2csr: row %d of entry %zu: rows must ascend "
				               "within [0, %d)",
				               ptr[e], e, rows);
		return PB_OK;
	}
	if (ptr[0] != 0 || (size_t)ptr[rows] != nnz)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "cusparse: row offsets run from %d to %d; want 0 to %zu", ptr[0], ptr[rows],
		               nnz);
	for (int r = 0; r < rows; r++)
		if (ptr[r + 1] < ptr[r])
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "cusparse: row offset %d (%d) below the one before (%d)", r + 1,
			               ptr[r + 1], ptr[r]);
	if (op == PB_CSR2CSC)
		for (size_t e = 0; e < nnz; e++)
			if (idx[e] < 0 || idx[e] >= cols)
				return pb_fail(PB_ERR_INVALID, err, errlen,
				               "cusparse: column index %d outside [0, %d)", idx[e], cols);
	return PB_OK;
}

pb_status pb_cusparse_convert_job(pb_cusparse *lib, pb_sparse_convert op, pb_gpu_dtype dt,
                                  int rows, int cols, size_t nnz, const int32_t *ptr,
                                  const int32_t *idx, const pb_gpu_job_opts *opts,
                                  pb_gpu_job **out, char *err, size_t errlen)
{
	if (lib == NULL || ptr == NULL || out == NULL || (op == PB_CSR2CSC && idx == NULL))
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cusparse_convert_job: NULL argument");
	*out = NULL;
	if ((int)op < PB_CSR2COO || (int)op > PB_CSR2CSC)
		return pb_fail(PB_ERR_INVALID, err, errlen, "cusparse: no conversion %d", (int)op);
	if (dt != PB_GPU_F32 && dt != PB_GPU_F64)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "cusparse: %s: only f32 and f64",
		               pb_gpu_dtype_name(dt));
	if (rows < 1 || cols < 1 || nnz < 1 || nnz > INT32_MAX)
		return pb_fail(PB_ERR_INVALID, err, errlen, "cusparse: bad shape: %d×%d with %zu entries",
		               rows, cols, nnz);
	if (!pb_cusparse_convert_has(lib, op))
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "cusparse: %s lacks %s", lib->path,
		               call_names[op]);
	pb_status st = check_input(op, rows, cols, nnz, ptr, idx, err, errlen);
	if (st != PB_OK)
		return st;

	size_t rp = (size_t)rows + 1, cp = (size_t)cols + 1;
	size_t lens[PB_CONVERT_NARGS] = {0};
	switch (op) {
	case PB_CSR2COO:
		lens[PB_CONVERT_IN_PTR] = rp, lens[PB_CONVERT_OUT_IDX] = nnz;
		break;
	case PB_COO2CSR:
		lens[PB_CONVERT_IN_PTR] = nnz, lens[PB_CONVERT_OUT_PTR] = rp;
		break;
	case PB_CSR2CSC:
		lens[PB_CONVERT_IN_PTR] = rp, lens[PB_CONVERT_IN_IDX] = lens[PB_CONVERT_IN_VAL] = nnz;
		lens[PB_CONVERT_OUT_VAL] = lens[PB_CONVERT_OUT_IDX] = nnz, lens[PB_CONVERT_OUT_PTR] = cp;
		break;
	}
	const pb_gpu_dtype dts[PB_CONVERT_NARGS] = {PB_GPU_I32, PB_GPU_I32, dt,
	                                            dt,         PB_GPU_I32, PB_GPU_I32};
	const int output[] = {PB_CONVERT_OUT_IDX, PB_CONVERT_OUT_PTR, PB_CONVERT_OUT_VAL};
	char what[160];
	snprintf(what, sizeof what, "cusparse %s %s %d×%d nnz=%zu", op_names[op],
	         pb_gpu_dtype_name(dt), rows, cols, nnz);
	pb_gpu_job *j;
	st = pb_gpu_job_alloc(lib->gpu, PB_CONVERT_NARGS, lens, dts, output[op], opts, what, &j, err,
	                      errlen);
	if (st != PB_OK)
		return st;
	j->dev.lib = lib;
	j->iter = convert_iter;
	j->p[0] = op;
	j->p[1] = rows;
	j->p[2] = cols;
	j->p[3] = (int64_t)nnz;
	j->p[4] = dt == PB_GPU_F64 ? CUDA_R_64F : CUDA_R_32F;
	st = pb_cusparse_copy_in(j, PB_CONVERT_IN_PTR, ptr, lens[PB_CONVERT_IN_PTR], err, errlen);
	if (st == PB_OK && op == PB_CSR2CSC)
		st = pb_cusparse_copy_in(j, PB_CONVERT_IN_IDX, idx, nnz, err, errlen);
	size_t ws = 0;
	if (st == PB_OK && op == PB_CSR2CSC)
		st = csr2csc_workspace(lib, j, &ws, err, errlen);
	if (st != PB_OK) {
		pb_gpu_job_free(j);
		return st;
	}
	char extra[96] = "", wsb[32];
	if (op == PB_CSR2CSC)
		snprintf(extra, sizeof extra, " %s, numeric, algorithm 1, %s workspace,",
		         pb_gpu_dtype_name(dt), pb_gpu_bytes((double)ws, wsb, sizeof wsb));
	snprintf(j->desc, sizeof j->desc,
	         "cusparse %d.%d.%d %s int32 %d×%d nnz=%zu,%s on %s (%d cop%s)", lib->major,
	         lib->minor, lib->patch, call_names[op], rows, cols, nnz, extra, lib->gpu->label,
	         j->copies, j->copies == 1 ? "y" : "ies");
	*out = j;
	return PB_OK;
}
