/*
 * cblas_jobs.c — timed jobs on a CBLAS library (timing.c's host jobs), the
 * library's thread count applied before the clock starts.
 */
#include <stdio.h>

#include "pb_internal.h"

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

/* set_job_threads applies opts' thread count to lib now (apply_threads, before each run). */
static pb_status set_job_threads(pb_cblas *lib, const pb_job_opts *opts, char *err, size_t errlen)
{
	if (lib == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "NULL library handle");
	if (opts != NULL && opts->threads != 0)
		return pb_cblas_set_threads(lib, opts->threads, err, errlen);
	return PB_OK;
}

static void bind_job(pb_job *j, pb_cblas *lib)
{
	j->lib = lib;
	j->before = apply_threads;
}

static pb_status new_job(pb_cblas *lib, pb_dtype dt, int nargs, const size_t *lens, int output,
                         const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	pb_status st = set_job_threads(lib, opts, err, errlen);
	if (st == PB_OK)
		st = pb_job_alloc(dt, nargs, lens, output, opts, out, err, errlen);
	if (st == PB_OK)
		bind_job(*out, lib);
	return st;
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

pb_status pb_cblas_new_typed_job(pb_cblas *lib, int nargs, const size_t *lens,
                                 const pb_host_dtype *types, int output, const pb_job_opts *opts,
                                 pb_job **out, char *err, size_t errlen)
{
	pb_status st = set_job_threads(lib, opts, err, errlen);
	if (st == PB_OK)
		st = pb_job_alloc_typed(nargs, lens, types, output, opts, out, err, errlen);
	if (st == PB_OK)
		bind_job(*out, lib);
	return st;
}
