/*
 * fake_cudnn.c — a stand-in for cuDNN 9's libcudnn.so.9 shim: the legacy
 * tensor-op calls peakbench makes, computed naively in float on the fake
 * runtime's host-backed device memory. Like the real shim it needs its
 * sub-library (libcudnn_ops.so.9) by soname, found only when the loader
 * has loaded it from the same folder first. Strict: descriptors must be
 * f32 NCHW, shapes must agree, pointers must be device memory of the
 * handle's device, and the reduction must get the workspace it asked for.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

extern int pbfake_current_device(void);
extern int pbfake_device_of(const void *p);

enum { OK = 0, NOT_INIT = 1001, BAD_PARAM = 2000, NOT_SUPPORTED = 3000, EXEC_FAILED = 5000 };
#define WORKSPACE 256

typedef struct handle {
	int dev;
	void *stream;
} handle;
typedef struct tensor {
	int n, c, h, w, set;
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

EXPORT size_t cudnnGetVersion(void) { return 90100; }

EXPORT int cudnnGetProperty(int type, int *v)
{
	switch (type) {
	case 0:
		*v = 9;
		return OK;
	case 1:
		*v = 1;
		return OK;
	case 2:
		*v = 0;
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
	}
	return "CUDNN_UNKNOWN_STATUS";
}

EXPORT int cudnnCreate(handle **h)
{
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

#define CREATE(name, type)                                                                      \
	EXPORT int name(type **d)                                                                   \
	{                                                                                           \
		*d = calloc(1, sizeof(type));                                                           \
		return *d != NULL ? OK : NOT_INIT;                                                      \
	}
#define DESTROY(name, type)                                                                     \
	EXPORT int name(type *d)                                                                    \
	{                                                                                           \
		free(d);                                                                                \
		return OK;                                                                              \
	}

CREATE(cudnnCreateTensorDescriptor, tensor)
DESTROY(cudnnDestroyTensorDescriptor, tensor)
CREATE(cudnnCreateOpTensorDescriptor, optensor)
DESTROY(cudnnDestroyOpTensorDescriptor, optensor)
CREATE(cudnnCreateActivationDescriptor, act)
DESTROY(cudnnDestroyActivationDescriptor, act)
CREATE(cudnnCreateReduceTensorDescriptor, reduce)
DESTROY(cudnnDestroyReduceTensorDescriptor, reduce)

EXPORT int cudnnSetTensor4dDescriptor(tensor *t, int format, int dtype, int n, int c, int h, int w)
{
	if (format != 0 || dtype != 0 || n < 1 || c < 1 || h < 1 || w < 1)
		return BAD_PARAM;
	t->n = n;
	t->c = c;
	t->h = h;
	t->w = w;
	t->set = 1;
	return OK;
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

static size_t count(const tensor *t) { return (size_t)t->n * t->c * t->h * t->w; }

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
	return a != NULL && b != NULL && a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w;
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
	size_t n = count(ad);
	for (size_t i = 0; i < n; i++) {
		float x = *a1 * A[i], y = *a2 * B[i];
		float r = op->op == 0 ? x + y : x * y;
		C[i] = *beta != 0 ? r + *beta * C[i] : r;
	}
	return OK;
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
	size_t n = count(xd);
	for (size_t i = 0; i < n; i++) {
		float v = x[i], r;
		switch (a->mode) {
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
		y[i] = *alpha * r + (*beta != 0 ? *beta * y[i] : 0);
	}
	return OK;
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
	size_t inner = (size_t)xd->c * xd->h * xd->w;
	for (int r = 0; r < xd->n; r++) {
		const float *xr = x + (size_t)r * inner;
		float *yr = y + (size_t)r * inner;
		float m = xr[0];
		for (size_t i = 1; i < inner; i++)
			m = xr[i] > m ? xr[i] : m;
		float sum = 0;
		for (size_t i = 0; i < inner; i++) {
			yr[i] = expf(xr[i] - m);
			sum += yr[i];
		}
		for (size_t i = 0; i < inner; i++)
			yr[i] = *alpha * (yr[i] / sum) + (*beta != 0 ? *beta * yr[i] : 0);
	}
	return OK;
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
	if (r == NULL || !r->set || cd == NULL || count(cd) != 1 || wsize < WORKSPACE)
		return BAD_PARAM;
	size_t n = count(ad);
	float acc = r->op == 0 ? 0 : A[0];
	for (size_t i = 0; i < n; i++)
		acc = r->op == 0 ? acc + A[i] : (A[i] > acc ? A[i] : acc);
	*C = *alpha * acc + (*beta != 0 ? *beta * *C : 0);
	return OK;
}
