/*
 * cblas_conv.c — convolution by im2col and the library's GEMM, as a timed
 * job: every iteration lowers each sample into the job's column buffer (in
 * C, on the calling thread) and multiplies it with the filter with
 * cblas_sgemm or cblas_dgemm (on the library's threads). The lowering is
 * part of the method's cost, so it is inside the clock; it is split over
 * the job's thread count (pthreads made for each lowering, when the column
 * matrix is large enough to pay for them), as the GEMM is.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_internal.h"

typedef struct conv_ctx {
	pb_layer g;
	int64_t o[3];  /* output extents */
	int64_t P;     /* output positions per sample */
	int64_t kdim;  /* C·T·R·S, the GEMM's inner dimension */
	int pointwise; /* 1×1, stride 1, no padding: x is its own column matrix */
	char *col;     /* one sample's column matrix (NULL when pointwise) */
} conv_ctx;

/* valid_range: the outputs o in [0, n) whose tap at o·stride + off lies in [0, in). */
static void valid_range(int64_t n, int64_t stride, int64_t off, int64_t in, int64_t *lo,
                        int64_t *hi)
{
	int64_t l = off < 0 ? (-off + stride - 1) / stride : 0;
	int64_t h = in - 1 - off < 0 ? l : (in - 1 - off) / stride + 1;
	if (h > n)
		h = n;
	if (h < l)
		h = l;
	*lo = l;
	*hi = h;
}

/* copy_strided copies n elements of size es from src, stride elements apart. */
static void copy_strided(char *dst, const char *src, int64_t n, int64_t stride, size_t es)
{
	if (es == 4) {
		float *d = (float *)dst;
		const float *s = (const float *)src;
		for (int64_t i = 0; i < n; i++)
			d[i] = s[i * stride];
	} else {
		double *d = (double *)dst;
		const double *s = (const double *)src;
		for (int64_t i = 0; i < n; i++)
			d[i] = s[i * stride];
	}
}

/* im2col lowers rows [lo, hi) of one sample x (C·D·H·W elements) into col. */
static void im2col(const conv_ctx *cx, const char *x, char *col, size_t es, int64_t lo_row,
                   int64_t hi_row)
{
	const pb_layer *g = &cx->g;
	const int64_t *o = cx->o;
	int64_t taps = g->window[0] * g->window[1] * g->window[2];
	if (g->nhwc) {
		/* P rows of T·R·S·C: each tap copies one input pixel's C channels. */
		size_t cb = (size_t)g->c * es;
		char *dst = col + (size_t)(lo_row * taps) * cb;
		for (int64_t q = lo_row; q < hi_row; q++) {
			int64_t o0 = q / (o[1] * o[2]), o1 = q / o[2] % o[1], o2 = q % o[2];
			for (int64_t t = 0; t < g->window[0]; t++) {
				int64_t i0 = o0 * g->stride[0] + t * g->dil[0] - g->pad[0];
				for (int64_t r = 0; r < g->window[1]; r++) {
					int64_t i1 = o1 * g->stride[1] + r * g->dil[1] - g->pad[1];
					for (int64_t s = 0; s < g->window[2]; s++, dst += cb) {
						int64_t i2 = o2 * g->stride[2] + s * g->dil[2] - g->pad[2];
						if (i0 < 0 || i1 < 0 || i2 < 0 || i0 >= g->in[0] ||
						    i1 >= g->in[1] || i2 >= g->in[2]) {
							memset(dst, 0, cb);
							continue;
						}
						memcpy(dst, x + (size_t)((i0 * g->in[1] + i1) * g->in[2] + i2) * cb,
						       cb);
					}
				}
			}
		}
		return;
	}
	/* C·T·R·S rows of P: each row is the input plane c seen through tap (t, r, s). */
	int64_t isz = g->in[0] * g->in[1] * g->in[2];
	for (int64_t row = lo_row; row < hi_row; row++) {
		int64_t c = row / taps, tap = row % taps;
		int64_t t = tap / (g->window[1] * g->window[2]), r = tap / g->window[2] % g->window[1],
		        s = tap % g->window[2];
		int64_t off = s * g->dil[2] - g->pad[2], lo, hi;
		valid_range(o[2], g->stride[2], off, g->in[2], &lo, &hi);
		const char *xc = x + (size_t)(c * isz) * es;
		char *dst = col + (size_t)(row * cx->P) * es;
		for (int64_t o0 = 0; o0 < o[0]; o0++) {
			int64_t i0 = o0 * g->stride[0] + t * g->dil[0] - g->pad[0];
			for (int64_t o1 = 0; o1 < o[1]; o1++, dst += (size_t)o[2] * es) {
				int64_t i1 = o1 * g->stride[1] + r * g->dil[1] - g->pad[1];
				if (i0 < 0 || i1 < 0 || i0 >= g->in[0] || i1 >= g->in[1] || lo >= hi) {
					memset(dst, 0, (size_t)o[2] * es);
					continue;
				}
				const char *src = xc + (size_t)((i0 * g->in[1] + i1) * g->in[2]) * es;
				memset(dst, 0, (size_t)lo * es);
				memset(dst + (size_t)hi * es, 0, (size_t)(o[2] - hi) * es);
				if (g->stride[2] == 1)
					memcpy(dst + (size_t)lo * es, src + (size_t)(lo + off) * es,
					       (size_t)(hi - lo) * es);
				else
					copy_strided(dst + (size_t)lo * es, src + (size_t)(lo * g->stride[2] + off) * es,
					             hi - lo, g->stride[2], es);
			}
		}
	}
}

typedef struct im2col_part {
	const conv_ctx *cx;
	const char *x;
	char *col;
	size_t es;
	int64_t lo, hi;
} im2col_part;

static void *im2col_thread(void *arg)
{
	im2col_part *p = arg;
	im2col(p->cx, p->x, p->col, p->es, p->lo, p->hi);
	return NULL;
}

/* Column matrices smaller than this are lowered on the calling thread. */
#define PARALLEL_BYTES (256 << 10)

/*
 * lower writes one sample's column matrix with up to threads threads, each
 * on a band of rows; a thread that cannot be made leaves its band to the
 * caller.
 */
static void lower(const conv_ctx *cx, const char *x, char *col, size_t es, int threads)
{
	const pb_layer *g = &cx->g;
	int64_t rows = g->nhwc ? cx->P : cx->kdim;
	size_t bytes = (size_t)(cx->kdim * cx->P) * es;
	if (threads > 16)
		threads = 16;
	if (threads <= 1 || bytes < PARALLEL_BYTES || rows < threads) {
		im2col(cx, x, col, es, 0, rows);
		return;
	}
	pthread_t tid[16];
	im2col_part part[16];
	int made[16] = {0};
	int64_t step = (rows + threads - 1) / threads;
	for (int t = 0; t < threads; t++) {
		int64_t lo = t * step, hi = lo + step < rows ? lo + step : rows;
		part[t] = (im2col_part){cx, x, col, es, lo, hi > lo ? hi : lo};
		if (t > 0)
			made[t] = pthread_create(&tid[t], NULL, im2col_thread, &part[t]) == 0;
	}
	im2col_thread(&part[0]);
	for (int t = 1; t < threads; t++) {
		if (made[t])
			pthread_join(tid[t], NULL);
		else
			im2col_thread(&part[t]);
	}
}

/* gemm runs C = op(A)·op(B) (row-major, alpha 1, beta 0) in the job's dtype. */
static void gemm(const pb_job *j, int tb, int64_t m, int64_t n, int64_t k, const void *a,
                 int64_t lda, const void *b, int64_t ldb, void *c, int64_t ldc)
{
	int t = tb ? CblasTrans : CblasNoTrans;
	if (j->dt == PB_F32)
		j->lib->sgemm(CblasRowMajor, CblasNoTrans, t, (int)m, (int)n, (int)k, 1.0f, a, (int)lda,
		              b, (int)ldb, 0.0f, c, (int)ldc);
	else
		j->lib->dgemm(CblasRowMajor, CblasNoTrans, t, (int)m, (int)n, (int)k, 1.0, a, (int)lda, b,
		              (int)ldb, 0.0, c, (int)ldc);
}

static pb_status it_conv(pb_job *j, int copy, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const conv_ctx *cx = j->ctx;
	const pb_layer *g = &cx->g;
	size_t es = (size_t)j->dt;
	const char *x = pb_job_buf(j, copy, 0);
	const char *w = pb_job_buf(j, copy, 1);
	char *y = pb_job_buf(j, copy, 2);
	int64_t isz = g->c * g->in[0] * g->in[1] * g->in[2];
	if (g->nhwc && cx->pointwise) {
		gemm(j, 1, g->n * cx->P, g->k, g->c, x, g->c, w, g->c, y, g->k);
		return PB_OK;
	}
	for (int64_t n = 0; n < g->n; n++) {
		const char *xn = x + (size_t)(n * isz) * es;
		char *yn = y + (size_t)(n * g->k * cx->P) * es;
		const char *col = xn;
		if (!cx->pointwise) {
			lower(cx, xn, cx->col, es, j->threads);
			col = cx->col;
		}
		if (g->nhwc)
			gemm(j, 1, cx->P, g->k, cx->kdim, col, cx->kdim, w, cx->kdim, yn, g->k);
		else
			gemm(j, 0, g->k, cx->P, cx->kdim, w, cx->kdim, col, cx->P, yn, cx->P);
	}
	return PB_OK;
}

static void conv_destroy(pb_job *j)
{
	conv_ctx *cx = j->ctx;
	if (cx != NULL) {
		free(cx->col);
		free(cx);
	}
	j->ctx = NULL;
}

pb_status pb_cblas_job_conv(pb_cblas *lib, pb_dtype dt, const pb_layer *geom,
                            const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	if (out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "conv job: out is NULL");
	*out = NULL;
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "conv job: bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	pb_status st = pb_layer_check(geom, 1, "conv job", err, errlen);
	if (st != PB_OK)
		return st;
	conv_ctx *cx = calloc(1, sizeof *cx);
	if (cx == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "conv job: out of memory");
	cx->g = *geom;
	const pb_layer *g = &cx->g;
	pb_layer_outdims(g, 1, cx->o);
	cx->P = cx->o[0] * cx->o[1] * cx->o[2];
	int64_t taps = g->window[0] * g->window[1] * g->window[2];
	cx->kdim = g->c * taps;
	cx->pointwise = taps == 1 && g->stride[0] == 1 && g->stride[1] == 1 && g->stride[2] == 1 &&
	                g->pad[0] == 0 && g->pad[1] == 0 && g->pad[2] == 0;
	/* CBLAS takes int dimensions and leading dimensions. */
	int64_t dims[] = {g->k, cx->P, cx->kdim, g->n * cx->P};
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
		if (dims[i] > INT_MAX) {
			free(cx);
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "conv job: a GEMM dimension (%lld) exceeds CBLAS's int",
			               (long long)dims[i]);
		}
	size_t lens[3] = {(size_t)(g->n * g->c * g->in[0] * g->in[1] * g->in[2]),
	                  (size_t)(g->k * cx->kdim), (size_t)(g->n * g->k * cx->P)};
	if (!cx->pointwise) {
		size_t bytes = (size_t)(cx->kdim * cx->P) * (size_t)dt;
		cx->col = malloc(bytes > 0 ? bytes : 1);
		if (cx->col == NULL) {
			free(cx);
			return pb_fail(PB_ERR_NOMEM, err, errlen,
			               "conv job: cannot allocate a %zu-byte column buffer", bytes);
		}
		memset(cx->col, 0, bytes); /* fault the pages in before any timing */
	}
	st = pb_cblas_new_job(lib, dt, 3, lens, 2, opts, out, err, errlen);
	if (st != PB_OK) {
		free(cx->col);
		free(cx);
		return st;
	}
	pb_job *j = *out;
	j->ctx = cx;
	j->destroy = conv_destroy;
	j->iter = it_conv;
	snprintf(j->desc, sizeof j->desc, "%s %s + cblas_%cgemm%s", lib->name,
	         cx->pointwise ? "no im2col (1x1)" : "im2col", dt == PB_F32 ? 's' : 'd',
	         g->nhwc ? " NT" : " NN");
	return PB_OK;
}
