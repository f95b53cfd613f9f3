/*
 * fake_cudnn.c — a stand-in for cuDNN 9's libcudnn.so.9 shim or, built with
 * -DPB_FAKE_CUDNN_MAJOR=8, cuDNN 8's libcudnn.so.8: the legacy tensor-op
 * and convolution-forward calls peakbench makes, computed naively in float
 * on the fake runtime's host-backed device memory.
 *
 * Sub-libraries. Like the real shims, the fake opens the sub-library that
 * holds a call by soname when the call is made: the tensor ops' (cuDNN 8:
 * libcudnn_ops_infer.so.8; 9: libcudnn_ops.so.9) and convolution's
 * (libcudnn_cnn_infer.so.8; libcudnn_cnn.so.9). The fake has no run path,
 * so that succeeds only if the loader loaded the sub-library (from the
 * shim's folder) first. Where cuDNN 8 then aborts the process, the fake
 * prints a message like cuDNN 8's and answers SUBLIB_FAILED, so a test
 * sees it and lives. The cuDNN 9 fake also needs libcudnn_ops.so.9 by soname to
 * load at all.
 *
 * Strict: descriptors must be f32, NCHW or NHWC, shapes must agree,
 * pointers must be device memory of the handle's device, the handle's
 * device must be current, and the reduction and the convolution must get
 * the workspace they asked for. The work goes on the stream bound to the
 * handle (cudnnSetStream; the default stream when none) and is carried out
 * when that stream is synchronized (fake_runtime.c), not during the call:
 * descriptors and host scalars are read at the call, tensors when the work
 * runs. Environment:
 *   PB_FAKE_CUDNN_CUDART  what cudnnGetCudartVersion answers (default: a
 *                         CUDA 12 build, the fake runtime's major)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

#ifndef PB_FAKE_CUDNN_MAJOR
#define PB_FAKE_CUDNN_MAJOR 9
#endif
#if PB_FAKE_CUDNN_MAJOR == 8
#define VERSION 8907 /* 8.9.7: 1000·major + 100·minor + patch */
#define MINOR 9
#define PATCH 7
#define CUDART 12020
#define OPS_LIB "libcudnn_ops_infer.so.8"
#define CNN_LIB "libcudnn_cnn_infer.so.8"
#else
#define VERSION 90100 /* 9.1.0: 10000·major + 100·minor + patch */
#define MINOR 1
#define PATCH 0
#define CUDART 12040
#define OPS_LIB "libcudnn_ops.so.9"
#define CNN_LIB "libcudnn_cnn.so.9"
#endif

extern int pbfake_current_device(void);
extern int pbfake_device_of(const void *p);
extern int pbfake_enqueue(void *stream, void (*fn)(void *arg), void *arg);

enum {
	OK = 0,
	NOT_INIT = 1001,
	BAD_PARAM = 2000,
	NOT_SUPPORTED = 3000,
	SUBLIB_FAILED = 4000, /* this fake's own code */
	EXEC_FAILED = 5000
};
#define WORKSPACE 256
#define CONV_WORKSPACE 1024 /* what IMPLICIT_PRECOMP_GEMM asks for */
#define MAXDIM 8

/* sublib opens a sub-library by soname, as the real shims do; a success is kept. */
static int sublib(const char *soname, void **cache)
{
	if (__atomic_load_n(cache, __ATOMIC_ACQUIRE) != NULL)
		return OK;
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "Could not load library %s. Error: %s\n", soname, dlerror());
		return SUBLIB_FAILED;
	}
	__atomic_store_n(cache, h, __ATOMIC_RELEASE);
	return OK;
}

static void *ops_h, *cnn_h;
#define NEED(soname, cache)                                                                     \
	do {                                                                                        \
		int s_ = sublib(soname, &cache);                                                        \
		if (s_ != OK)                                                                           \
			return s_;                                                                          \
	} while (0)
#define NEED_OPS() NEED(OPS_LIB, ops_h)
#define NEED_CNN() NEED(CNN_LIB, cnn_h)

typedef struct handle {
	int dev;
	void *stream;
} handle;
/* A tensor or filter: dims in N, C, (D,) H, W order (K, C, … for filters) whatever the format. */
typedef struct tensor {
	int nd, dims[MAXDIM], format, set;
} tensor;
typedef struct optensor {
	int op, set;
} optensor;
typedef struct act {
	int mode, set;
} act;
typedef struct reduce {
	int op, set;
} reduce;
typedef struct conv {
	int nsp, pad[3], stride[3], dil[3], math, set;
} conv;

EXPORT size_t cudnnGetVersion(void) { return sublib(OPS_LIB, &ops_h) == OK ? VERSION : 0; }

EXPORT size_t cudnnGetCudartVersion(void)
{
	if (sublib(OPS_LIB, &ops_h) != OK)
		return 0;
	const char *v = getenv("PB_FAKE_CUDNN_CUDART");
	return v != NULL && *v != '\0' ? (size_t)strtoul(v, NULL, 0) : CUDART;
}

EXPORT int cudnnGetProperty(int type, int *v)
{
	NEED_OPS();
	switch (type) {
	case 0:
		*v = PB_FAKE_CUDNN_MAJOR;
		return OK;
	case 1:
		*v = MINOR;
		return OK;
	case 2:
		*v = PATCH;
		return OK;
	}
	return BAD_PARAM;
}

EXPORT const char *cudnnGetErrorString(int s)
{
	switch (s) {
	case OK:
		return "CUDNN_STATUS_SUCCESS";
	case NOT_INIT:
		return "CUDNN_STATUS_NOT_INITIALIZED";
	case BAD_PARAM:
		return "CUDNN_STATUS_BAD_PARAM";
	case NOT_SUPPORTED:
		return "CUDNN_STATUS_NOT_SUPPORTED";
	case EXEC_FAILED:
		return "CUDNN_STATUS_EXECUTION_FAILED";
	case SUBLIB_FAILED:
		return "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED (the fake's stand-in for cuDNN 8's abort)";
	}
	return "CUDNN_UNKNOWN_STATUS";
}

EXPORT int cudnnCreate(handle **h)
{
	NEED_OPS();
	*h = calloc(1, sizeof **h);
	if (*h == NULL)
		return NOT_INIT;
	(*h)->dev = pbfake_current_device();
	return OK;
}

EXPORT int cudnnDestroy(handle *h)
{
	free(h);
	return OK;
}

EXPORT int cudnnSetStream(handle *h, void *s)
{
	h->stream = s;
	return OK;
}

#define CREATE(name, type, need)                                                                \
	EXPORT int name(type **d)                                                                   \
	{                                                                                           \
		need();                                                                                 \
		*d = calloc(1, sizeof(type));                                                           \
		return *d != NULL ? OK : NOT_INIT;                                                      \
	}
#define DESTROY(name, type)                                                                     \
	EXPORT int name(type *d)                                                                    \
	{                                                                                           \
		free(d);                                                                                \
		return OK;                                                                              \
	}

CREATE(cudnnCreateTensorDescriptor, tensor, NEED_OPS)
DESTROY(cudnnDestroyTensorDescriptor, tensor)
CREATE(cudnnCreateOpTensorDescriptor, optensor, NEED_OPS)
DESTROY(cudnnDestroyOpTensorDescriptor, optensor)
CREATE(cudnnCreateActivationDescriptor, act, NEED_OPS)
DESTROY(cudnnDestroyActivationDescriptor, act)
CREATE(cudnnCreateReduceTensorDescriptor, reduce, NEED_OPS)
DESTROY(cudnnDestroyReduceTensorDescriptor, reduce)
CREATE(cudnnCreateFilterDescriptor, tensor, NEED_OPS)
DESTROY(cudnnDestroyFilterDescriptor, tensor)
CREATE(cudnnCreateConvolutionDescriptor, conv, NEED_CNN)
DESTROY(cudnnDestroyConvolutionDescriptor, conv)

/* set_nd fills t: dims[] in N, C, … order; format 0 (NCHW) or 1 (NHWC). */
static int set_nd(tensor *t, int format, int dtype, int nd, const int *dims)
{
	if (t == NULL || (format != 0 && format != 1) || dtype != 0 || nd < 3 || nd > MAXDIM ||
	    (format == 1 && nd != 4 && nd != 5))
		return BAD_PARAM;
	for (int i = 0; i < nd; i++)
		if (dims[i] < 1)
			return BAD_PARAM;
	t->nd = nd;
	memcpy(t->dims, dims, (size_t)nd * sizeof(int));
	t->format = format;
	t->set = 1;
	return OK;
}

EXPORT int cudnnSetTensor4dDescriptor(tensor *t, int format, int dtype, int n, int c, int h, int w)
{
	int dims[4] = {n, c, h, w};
	if (format != 0)
		return BAD_PARAM;
	return set_nd(t, format, dtype, 4, dims);
}

EXPORT int cudnnSetTensorNdDescriptorEx(tensor *t, int format, int dtype, int nd, const int *dims)
{
	NEED_OPS();
	return set_nd(t, format, dtype, nd, dims);
}

/* Note the order: data type, then format (unlike the tensor call). */
EXPORT int cudnnSetFilterNdDescriptor(tensor *f, int dtype, int format, int nd, const int *dims)
{
	NEED_OPS();
	if (nd != 4 && nd != 5)
		return BAD_PARAM;
	return set_nd(f, format, dtype, nd, dims);
}

EXPORT int cudnnSetOpTensorDescriptor(optensor *d, int op, int comp, int nan)
{
	if ((op != 0 && op != 1) || comp != 0 || (nan != 0 && nan != 1))
		return BAD_PARAM;
	d->op = op;
	d->set = 1;
	return OK;
}

EXPORT int cudnnSetActivationDescriptor(act *d, int mode, int nan, double coef)
{
	(void)coef;
	if (mode < 0 || mode > 2 || (nan != 0 && nan != 1))
		return BAD_PARAM;
	d->mode = mode;
	d->set = 1;
	return OK;
}

EXPORT int cudnnSetReduceTensorDescriptor(reduce *d, int op, int comp, int nan, int indices,
                                          int itype)
{
	if ((op != 0 && op != 3) || comp != 0 || (nan != 0 && nan != 1) || indices != 0 || itype != 0)
		return BAD_PARAM;
	d->op = op;
	d->set = 1;
	return OK;
}

static size_t count(const tensor *t)
{
	size_t n = 1;
	for (int i = 0; i < t->nd; i++)
		n *= (size_t)t->dims[i];
	return n;
}

static int check(const handle *h, const tensor *t, const void *const *ptrs, int nptrs)
{
	if (h == NULL || pbfake_current_device() != h->dev)
		return EXEC_FAILED;
	if (t == NULL || !t->set)
		return BAD_PARAM;
	for (int i = 0; i < nptrs; i++)
		if (pbfake_device_of(ptrs[i]) != h->dev)
			return BAD_PARAM;
	return OK;
}

static int same(const tensor *a, const tensor *b)
{
	return a != NULL && b != NULL && a->set && b->set && a->nd == b->nd &&
	       a->format == b->format &&
	       memcmp(a->dims, b->dims, (size_t)a->nd * sizeof(int)) == 0;
}

/* later enqueues fn on the handle's stream with a copy of the n bytes of args. */
static int later(const handle *h, void (*fn)(void *), const void *args, size_t n)
{
	void *p = malloc(n);
	if (p == NULL)
		return EXEC_FAILED;
	memcpy(p, args, n);
	return pbfake_enqueue(h->stream, fn, p) == 0 ? OK : EXEC_FAILED;
}

/* The elementwise calls' arguments, as enqueued (descriptors copied). */
typedef struct elem_args {
	int op;   /* op tensor: 0 add, 1 mul; activation: the mode */
	float a1, a2, beta;
	tensor xd;
	const float *A, *B;
	float *C;
} elem_args;

static void run_op_tensor(void *p)
{
	const elem_args *e = p;
	size_t n = count(&e->xd);
	for (size_t i = 0; i < n; i++) {
		float x = e->a1 * e->A[i], y = e->a2 * e->B[i];
		float r = e->op == 0 ? x + y : x * y;
		e->C[i] = e->beta != 0 ? r + e->beta * e->C[i] : r;
	}
}

EXPORT int cudnnOpTensor(handle *h, optensor *op, const float *a1, tensor *ad, const float *A,
                         const float *a2, tensor *bd, const float *B, const float *beta,
                         tensor *cd, float *C)
{
	const void *p[3] = {A, B, C};
	int s = check(h, ad, p, 3);
	if (s != OK)
		return s;
	if (op == NULL || !op->set || !same(ad, bd) || !same(ad, cd))
		return BAD_PARAM;
	elem_args e = {op->op, *a1, *a2, *beta, *ad, A, B, C};
	return later(h, run_op_tensor, &e, sizeof e);
}

static void run_activation(void *p)
{
	const elem_args *e = p;
	size_t n = count(&e->xd);
	for (size_t i = 0; i < n; i++) {
		float v = e->A[i], r;
		switch (e->op) {
		case 0:
			r = 1.0f / (1.0f + expf(-v));
			break;
		case 1:
			r = v > 0 ? v : 0;
			break;
		default:
			r = tanhf(v);
			break;
		}
		e->C[i] = e->a1 * r + (e->beta != 0 ? e->beta * e->C[i] : 0);
	}
}

EXPORT int cudnnActivationForward(handle *h, act *a, const float *alpha, tensor *xd, const float *x,
                                  const float *beta, tensor *yd, float *y)
{
	const void *p[2] = {x, y};
	int s = check(h, xd, p, 2);
	if (s != OK)
		return s;
	if (a == NULL || !a->set || !same(xd, yd))
		return BAD_PARAM;
	elem_args e = {a->mode, *alpha, 0, *beta, *xd, x, NULL, y};
	return later(h, run_activation, &e, sizeof e);
}

static void run_softmax(void *p)
{
	const elem_args *e = p;
	const tensor *xd = &e->xd;
	size_t inner = count(xd) / (size_t)xd->dims[0];
	for (int r = 0; r < xd->dims[0]; r++) {
		const float *xr = e->A + (size_t)r * inner;
		float *yr = e->C + (size_t)r * inner;
		float m = xr[0];
		for (size_t i = 1; i < inner; i++)
			m = xr[i] > m ? xr[i] : m;
		float sum = 0;
		for (size_t i = 0; i < inner; i++) {
			yr[i] = expf(xr[i] - m);
			sum += yr[i];
		}
		for (size_t i = 0; i < inner; i++)
			yr[i] = e->a1 * (yr[i] / sum) + (e->beta != 0 ? e->beta * yr[i] : 0);
	}
}

EXPORT int cudnnSoftmaxForward(handle *h, int algo, int mode, const float *alpha, tensor *xd,
                               const float *x, const float *beta, tensor *yd, float *y)
{
	const void *p[2] = {x, y};
	int s = check(h, xd, p, 2);
	if (s != OK)
		return s;
	if (algo != 1 || mode != 0 || !same(xd, yd))
		return BAD_PARAM;
	elem_args e = {0, *alpha, 0, *beta, *xd, x, NULL, y};
	return later(h, run_softmax, &e, sizeof e);
}

EXPORT int cudnnGetReductionWorkspaceSize(handle *h, reduce *r, tensor *ad, tensor *cd, size_t *n)
{
	(void)h;
	if (r == NULL || !r->set || ad == NULL || cd == NULL)
		return BAD_PARAM;
	*n = WORKSPACE;
	return OK;
}

EXPORT int cudnnGetReductionIndicesSize(handle *h, reduce *r, tensor *ad, tensor *cd, size_t *n)
{
	(void)h;
	(void)ad;
	(void)cd;
	if (r == NULL || !r->set)
		return BAD_PARAM;
	*n = 0;
	return OK;
}

static void run_reduce(void *p)
{
	const elem_args *e = p;
	size_t n = count(&e->xd);
	float acc = e->op == 0 ? 0 : e->A[0];
	for (size_t i = 0; i < n; i++)
		acc = e->op == 0 ? acc + e->A[i] : (e->A[i] > acc ? e->A[i] : acc);
	*e->C = e->a1 * acc + (e->beta != 0 ? e->beta * *e->C : 0);
}

EXPORT int cudnnReduceTensor(handle *h, reduce *r, void *indices, size_t isize, void *ws,
                             size_t wsize, const float *alpha, tensor *ad, const float *A,
                             const float *beta, tensor *cd, float *C)
{
	(void)indices;
	(void)isize;
	const void *p[3] = {A, C, ws};
	int s = check(h, ad, p, 3);
	if (s != OK)
		return s;
	/* cuDNN 9 refuses a reduction that reduces nothing (1 element to 1), as here */
	if (r == NULL || !r->set || cd == NULL || count(cd) != 1 || count(ad) < 2 || wsize < WORKSPACE)
		return BAD_PARAM;
	elem_args e = {r->op, *alpha, 0, *beta, *ad, A, NULL, C};
	return later(h, run_reduce, &e, sizeof e);
}

/* ---- convolution forward (cuDNN 8: libcudnn_cnn_infer; 9: libcudnn_cnn) ---- */

EXPORT int cudnnSetConvolutionNdDescriptor(conv *d, int n, const int *pad, const int *stride,
                                           const int *dil, int mode, int comp)
{
	NEED_CNN();
	if (d == NULL || n < 1 || n > 3 || comp != 0)
		return BAD_PARAM;
	if (mode != 1) /* the fake computes cross-correlation only */
		return NOT_SUPPORTED;
	for (int i = 0; i < n; i++) {
		if (pad[i] < 0 || stride[i] < 1 || dil[i] < 1)
			return BAD_PARAM;
		d->pad[i] = pad[i];
		d->stride[i] = stride[i];
		d->dil[i] = dil[i];
	}
	d->nsp = n;
	d->set = 1;
	return OK;
}

EXPORT int cudnnSetConvolutionMathType(conv *d, int math)
{
	NEED_CNN();
	if (d == NULL || math < 0 || math > 3)
		return BAD_PARAM;
	d->math = math;
	return OK;
}

/* out_dims computes y's dims from x, w and d (N, K, spatial…), or fails. */
static int out_dims(const conv *d, const tensor *x, const tensor *w, int *y)
{
	if (d == NULL || !d->set || x == NULL || !x->set || w == NULL || !w->set)
		return BAD_PARAM;
	if (x->nd != w->nd || d->nsp != x->nd - 2 || x->dims[1] != w->dims[1] ||
	    x->format != w->format)
		return BAD_PARAM;
	y[0] = x->dims[0];
	y[1] = w->dims[0];
	for (int i = 0; i < d->nsp; i++) {
		int span = d->dil[i] * (w->dims[2 + i] - 1) + 1;
		int padded = x->dims[2 + i] + 2 * d->pad[i];
		if (padded < span)
			return BAD_PARAM;
		y[2 + i] = (padded - span) / d->stride[i] + 1;
	}
	return OK;
}

EXPORT int cudnnGetConvolutionNdForwardOutputDim(conv *d, tensor *x, tensor *w, int nd, int *dims)
{
	NEED_CNN();
	if (x == NULL || nd != x->nd)
		return BAD_PARAM;
	return out_dims(d, x, w, dims);
}

/* conv_check checks a forward call's descriptors against each other. */
static int conv_check(const handle *h, const tensor *x, const tensor *w, const conv *d,
                      const tensor *y)
{
	if (h == NULL || pbfake_current_device() != h->dev)
		return EXEC_FAILED;
	int want[MAXDIM];
	int s = out_dims(d, x, w, want);
	if (s != OK)
		return s;
	if (y == NULL || !y->set || y->nd != x->nd || y->format != x->format ||
	    memcmp(y->dims, want, (size_t)y->nd * sizeof(int)) != 0)
		return BAD_PARAM;
	return OK;
}

typedef struct {
	int algo, status;
	float time;
	size_t memory;
	int determinism, math_type, reserved[3];
} algo_perf;

/* find answers IMPLICIT_PRECOMP_GEMM (1) first, then IMPLICIT_GEMM (0). */
static int find(handle *h, tensor *x, tensor *w, conv *d, tensor *y, int req, int *ret,
                algo_perf *perf)
{
	int s = conv_check(h, x, w, d, y);
	if (s != OK)
		return s;
	if (req < 1 || ret == NULL || perf == NULL)
		return BAD_PARAM;
	algo_perf all[2] = {{.algo = 1, .time = 0.01f, .memory = CONV_WORKSPACE, .math_type = d->math},
	                    {.algo = 0, .time = 0.02f, .math_type = d->math}};
	*ret = req < 2 ? req : 2;
	memcpy(perf, all, (size_t)*ret * sizeof *perf);
	return OK;
}

EXPORT int cudnnFindConvolutionForwardAlgorithm(handle *h, tensor *x, tensor *w, conv *d,
                                                tensor *y, int req, int *ret, algo_perf *perf)
{
	NEED_CNN();
	return find(h, x, w, d, y, req, ret, perf);
}

EXPORT int cudnnGetConvolutionForwardAlgorithm_v7(handle *h, tensor *x, tensor *w, conv *d,
                                                  tensor *y, int req, int *ret, algo_perf *perf)
{
	NEED_CNN();
	return find(h, x, w, d, y, req, ret, perf);
}

static size_t workspace(int algo) { return algo == 1 ? CONV_WORKSPACE : 0; }

EXPORT int cudnnGetConvolutionForwardWorkspaceSize(handle *h, tensor *x, tensor *w, conv *d,
                                                   tensor *y, int algo, size_t *bytes)
{
	NEED_CNN();
	int s = conv_check(h, x, w, d, y);
	if (s != OK)
		return s;
	if (algo < 0 || algo > 7)
		return BAD_PARAM;
	*bytes = workspace(algo);
	return OK;
}

/* at returns the offset of (n, c, spatial) in a tensor of dims t (N, C, …) in t's format. */
static size_t at(const tensor *t, int n, int c, const int *sp)
{
	int ns = t->nd - 2;
	size_t o = (size_t)n;
	if (t->format == 0) { /* N, C, spatial… */
		o = o * (size_t)t->dims[1] + (size_t)c;
		for (int i = 0; i < ns; i++)
			o = o * (size_t)t->dims[2 + i] + (size_t)sp[i];
	} else { /* N, spatial…, C */
		for (int i = 0; i < ns; i++)
			o = o * (size_t)t->dims[2 + i] + (size_t)sp[i];
		o = o * (size_t)t->dims[1] + (size_t)c;
	}
	return o;
}

/* A convolution's arguments, as enqueued (descriptors copied). */
typedef struct conv_args {
	float alpha, beta;
	tensor xd, wd, yd;
	conv d;
	const float *x, *w;
	float *y;
} conv_args;

/* run_conv computes the cross-correlation directly, accumulating in double. */
static void run_conv(void *p)
{
	const conv_args *a = p;
	const tensor *xd = &a->xd, *wd = &a->wd, *yd = &a->yd;
	const conv *d = &a->d;
	int ns = d->nsp, C = xd->dims[1];
	int o[3] = {0, 0, 0}, win[3] = {0, 0, 0}, in[3];
	size_t outs = 1, wins = 1;
	for (int i = 0; i < ns; i++) {
		outs *= (size_t)yd->dims[2 + i];
		wins *= (size_t)wd->dims[2 + i];
	}
	for (int n = 0; n < yd->dims[0]; n++)
		for (int k = 0; k < yd->dims[1]; k++)
			for (size_t oi = 0; oi < outs; oi++) {
				size_t r = oi;
				for (int i = ns - 1; i >= 0; i--) {
					o[i] = (int)(r % (size_t)yd->dims[2 + i]);
					r /= (size_t)yd->dims[2 + i];
				}
				double acc = 0;
				for (int c = 0; c < C; c++)
					for (size_t wi = 0; wi < wins; wi++) {
						size_t q = wi;
						int inside = 1;
						for (int i = ns - 1; i >= 0; i--) {
							win[i] = (int)(q % (size_t)wd->dims[2 + i]);
							q /= (size_t)wd->dims[2 + i];
							in[i] = o[i] * d->stride[i] - d->pad[i] + win[i] * d->dil[i];
							if (in[i] < 0 || in[i] >= xd->dims[2 + i])
								inside = 0;
						}
						if (inside)
							acc += (double)a->x[at(xd, n, c, in)] * (double)a->w[at(wd, k, c, win)];
					}
				float *dst = &a->y[at(yd, n, k, o)];
				*dst = a->alpha * (float)acc + (a->beta != 0 ? a->beta * *dst : 0);
			}
}

EXPORT int cudnnConvolutionForward(handle *h, const float *alpha, tensor *xd, const float *x,
                                   tensor *wd, const float *w, conv *d, int algo, void *ws,
                                   size_t wsbytes, const float *beta, tensor *yd, float *y)
{
	NEED_CNN();
	int s = conv_check(h, xd, wd, d, yd);
	if (s != OK)
		return s;
	if (algo < 0 || algo > 7 || wsbytes < workspace(algo))
		return BAD_PARAM;
	if (pbfake_device_of(x) != h->dev || pbfake_device_of(w) != h->dev ||
	    pbfake_device_of(y) != h->dev || (workspace(algo) > 0 && pbfake_device_of(ws) != h->dev))
		return BAD_PARAM;
	conv_args a = {*alpha, *beta, *xd, *wd, *yd, *d, x, w, y};
	return later(h, run_conv, &a, sizeof a);
}
