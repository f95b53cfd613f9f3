/*
 * test_layers.c — the layer jobs (cblas_conv.c, onednn_layers.c) against a
 * direct convolution in double: NCHW and NHWC, stride, padding, dilation;
 * a oneDNN convolution run from a thread other than the one that made it
 * (the scratchpad must be the job's own); oneDNN's unsupported layers. A
 * library that is not installed is skipped unless PEAKBENCH_REQUIRE_LIBS
 * names it.
 */
#include <pthread.h>

#include "peakbench.h"
#include "pb_test.h"

static pb_layer geom(int nhwc)
{
	pb_layer g;
	memset(&g, 0, sizeof g);
	g.n = 2, g.c = 5, g.k = 7, g.rank = 2, g.nhwc = nhwc;
	for (int i = 0; i < 3; i++)
		g.in[i] = g.window[i] = g.stride[i] = g.dil[i] = g.out[i] = 1;
	g.in[1] = 11, g.in[2] = 13;
	g.window[1] = 3, g.window[2] = 2;
	g.stride[1] = 2, g.pad[1] = 1, g.pad[2] = 2, g.dil[2] = 2;
	return g;
}

static int64_t outdim(const pb_layer *g, int i)
{
	return (g->in[i] + 2 * g->pad[i] - g->dil[i] * (g->window[i] - 1) - 1) / g->stride[i] + 1;
}

/* ref computes y (and Σ|x||w| in scale) by the definition, 2-D. */
static void ref(const pb_layer *g, const double *x, const double *w, double *y, double *scale)
{
	int64_t H = g->in[1], W = g->in[2], R = g->window[1], S = g->window[2];
	int64_t P = outdim(g, 1), Q = outdim(g, 2);
	for (int64_t n = 0; n < g->n; n++)
		for (int64_t k = 0; k < g->k; k++)
			for (int64_t p = 0; p < P; p++)
				for (int64_t q = 0; q < Q; q++) {
					double s = 0, a = 0;
					for (int64_t c = 0; c < g->c; c++)
						for (int64_t r = 0; r < R; r++)
							for (int64_t t = 0; t < S; t++) {
								int64_t h = p * g->stride[1] + r * g->dil[1] - g->pad[1];
								int64_t v = q * g->stride[2] + t * g->dil[2] - g->pad[2];
								if (h < 0 || v < 0 || h >= H || v >= W)
									continue;
								double xv = g->nhwc ? x[((n * H + h) * W + v) * g->c + c]
								                    : x[((n * g->c + c) * H + h) * W + v];
								double wv = g->nhwc ? w[((k * R + r) * S + t) * g->c + c]
								                    : w[((k * g->c + c) * R + r) * S + t];
								s += xv * wv;
								a += fabs(xv * wv);
							}
					int64_t o = g->nhwc ? ((n * P + p) * Q + q) * g->k + k : ((n * g->k + k) * P + p) * Q + q;
					y[o] = s;
					scale[o] = a;
				}
}

typedef struct {
	pb_job *job;
	int64_t iters;
	pb_status st;
	char err[512];
} run_arg;

static void *run_thread(void *p)
{
	run_arg *a = p;
	int64_t ns;
	a->st = pb_job_run(a->job, a->iters, &ns, a->err, sizeof a->err);
	return NULL;
}

/* check runs job (x, w, y) from another thread and compares y with ref. */
static void check_conv(const char *what, pb_job *job, const pb_layer *g)
{
	size_t nx = (size_t)(g->n * g->c * g->in[1] * g->in[2]);
	size_t nw = (size_t)(g->k * g->c * g->window[1] * g->window[2]);
	size_t ny = (size_t)(g->n * g->k * outdim(g, 1) * outdim(g, 2));
	double *x = malloc(nx * sizeof *x), *w = malloc(nw * sizeof *w);
	double *y = malloc(ny * sizeof *y), *want = malloc(ny * sizeof *y), *scale = malloc(ny * sizeof *y);
	for (size_t i = 0; i < nx; i++)
		x[i] = (float)urand();
	for (size_t i = 0; i < nw; i++)
		w[i] = (float)urand();
	char err[512];
	CHECK(pb_job_set_input(job, 0, x, nx, err, sizeof err) == PB_OK, "%s: %s", what, err);
	CHECK(pb_job_set_input(job, 1, w, nw, err, sizeof err) == PB_OK, "%s: %s", what, err);
	run_arg a = {job, 3, PB_OK, ""};
	pthread_t t;
	CHECK(pthread_create(&t, NULL, run_thread, &a) == 0, "%s: pthread_create", what);
	pthread_join(t, NULL);
	CHECK(a.st == PB_OK, "%s: run: %s", what, a.err);
	CHECK(pb_job_output(job, y, ny, err, sizeof err) == PB_OK, "%s: %s", what, err);
	ref(g, x, w, want, scale);
	double tol = (double)(g->c * g->window[1] * g->window[2] + 2) * 0x1p-24;
	for (size_t i = 0; i < ny; i++)
		if (fabs(y[i] - want[i]) > tol * scale[i] + 1e-30) {
			CHECK(0, "%s: y[%zu] = %g, want %g", what, i, y[i], want[i]);
			break;
		}
	free(x), free(w), free(y), free(want), free(scale);
}

int main(void)
{
	char err[2048], tried[8192];
	int ran = 0;
	pb_cblas *blas = NULL;
	if (pb_cblas_open("openblas", NULL, &blas, tried, sizeof tried, err, sizeof err) != PB_OK) {
		CHECK(!required("openblas"), "PEAKBENCH_REQUIRE_LIBS names openblas: %s", err);
		blas = NULL;
	}
	pb_dnnl *dnnl = NULL;
	if (pb_dnnl_open(NULL, &dnnl, tried, sizeof tried, err, sizeof err) != PB_OK) {
		CHECK(!required("onednn"), "PEAKBENCH_REQUIRE_LIBS names onednn: %s", err);
		dnnl = NULL;
	}
	for (int nhwc = 0; nhwc < 2; nhwc++) {
		pb_layer g = geom(nhwc);
		pb_job_opts o = {2, 2};
		pb_job *job = NULL;
		if (blas != NULL) {
			pb_status st = pb_cblas_job_conv(blas, PB_F32, &g, &o, &job, err, sizeof err);
			CHECK(st == PB_OK, "cblas conv: %s", err);
			if (st == PB_OK) {
				check_conv(nhwc ? "openblas nhwc" : "openblas nchw", job, &g);
				pb_job_free(job);
				ran++;
			}
		}
		if (dnnl != NULL) {
			pb_status st = pb_dnnl_layer_job(dnnl, PB_DNNL_CONV, PB_F32, &g, PB_DNNL_CONV_AUTO, 1e-5f,
			                                 &o, &job, err, sizeof err);
			CHECK(st == PB_OK, "onednn conv: %s", err);
			if (st == PB_OK) {
				check_conv(nhwc ? "onednn nhwc" : "onednn nchw", job, &g);
				pb_job_free(job);
				ran++;
			}
		}
	}
	pb_layer bad = geom(0);
	bad.window[1] = 40;
	pb_job *job = NULL;
	if (blas != NULL)
		CHECK(pb_cblas_job_conv(blas, PB_F32, &bad, NULL, &job, err, sizeof err) == PB_ERR_INVALID &&
		          job == NULL,
		      "a window larger than the input was accepted");
	if (dnnl != NULL) {
		pb_layer g = geom(0);
		CHECK(pb_dnnl_layer_job(dnnl, PB_DNNL_GROUPNORM, PB_F32, &g, PB_DNNL_CONV_AUTO, 1e-5f, NULL,
		                        &job, err, sizeof err) == PB_ERR_UNSUPPORTED,
		      "groupnorm: %s", err);
		CHECK(pb_dnnl_layer_job(dnnl, PB_DNNL_CONV, PB_F64, &g, PB_DNNL_CONV_AUTO, 1e-5f, NULL, &job,
		                        err, sizeof err) == PB_ERR_UNSUPPORTED,
		      "f64: %s", err);
		g.out[1] = 4; /* 11 is no multiple of 4 */
		g.out[2] = 13;
		g.pad[1] = g.pad[2] = 0;
		g.dil[2] = 1;
		CHECK(pb_dnnl_layer_job(dnnl, PB_DNNL_ADAPTIVEPOOL, PB_F32, &g, PB_DNNL_CONV_AUTO, 1e-5f,
		                        NULL, &job, err, sizeof err) == PB_ERR_UNSUPPORTED,
		      "adaptive 11→4: %s", err);
		pb_dnnl_close(dnnl, NULL, 0);
	}
	if (blas != NULL)
		pb_cblas_close(blas, NULL, 0);
	if (pb_failures > 0)
		return 1;
	printf("layers: %d conv jobs verified\n", ran);
	return ran == 0 ? 77 : 0;
}
