/*
 * fake_cublas.c — a stand-in for cuBLAS 12 (libcublas.so.12) with the
 * column-major semantics of the real one, computed naively on the fake
 * runtime's host-backed "device" memory. It is strict where the real one
 * would silently misbehave, so that tests catch what a GPU would:
 *   - every matrix and vector must be a device allocation;
 *   - leading dimensions must be at least the rows of the stored matrix;
 *   - the calling thread's current device must be the handle's;
 *   - gemm, gemv and axpy must run in host pointer mode (peakbench passes
 *     host scalars), dot in device pointer mode with a device result;
 *   - the work goes on the stream bound to the handle (cublasSetStream;
 *     the default stream when none) and is carried out when that stream is
 *     synchronized (fake_runtime.c), not during the call: host scalars are
 *     read at the call, operands when the work runs.
 * Linked against the fake libcudart (for the current device; its soname is
 * libpbfake_cudart.so, so a real runtime loaded in the same process does not
 * stand in for it) and against libcublasLt.so.12 (like the real one, found
 * only if loaded beforehand: a real one serves as well).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

extern int pbfake_current_device(void);
extern int pbfake_device_of(const void *p);
extern int pbfake_enqueue(void *stream, void (*fn)(void *arg), void *arg);

enum { OK = 0, NOT_INIT = 1, INVALID = 7, EXEC_FAILED = 13, NOT_SUPPORTED = 15 };

typedef struct handle {
	uint32_t magic;
	int dev;
	int mode; /* 0 host, 1 device */
	int math;
	void *stream;
} handle;

#define MAGIC 0x63626c73u

EXPORT int cublasCreate_v2(handle **h)
{
	handle *x = calloc(1, sizeof *x);
	if (x == NULL)
		return 3;
	x->magic = MAGIC;
	x->dev = pbfake_current_device();
	*h = x;
	return OK;
}

EXPORT int cublasDestroy_v2(handle *h)
{
	if (h == NULL || h->magic != MAGIC)
		return NOT_INIT;
	h->magic = 0;
	free(h);
	return OK;
}

EXPORT int cublasSetStream_v2(handle *h, void *s)
{
	if (h == NULL || h->magic != MAGIC)
		return NOT_INIT;
	h->stream = s;
	return OK;
}

EXPORT int cublasSetPointerMode_v2(handle *h, int mode)
{
	if (h == NULL || h->magic != MAGIC)
		return NOT_INIT;
	if (mode != 0 && mode != 1)
		return INVALID;
	h->mode = mode;
	return OK;
}

EXPORT int cublasSetMathMode(handle *h, int mode)
{
	if (h == NULL || h->magic != MAGIC)
		return NOT_INIT;
	h->math = mode;
	return OK;
}

EXPORT int cublasGetProperty(int type, int *v)
{
	const char *major = getenv("PB_FAKE_CUBLAS_MAJOR");
	switch (type) {
	case 0:
		*v = major != NULL && *major != '\0' ? atoi(major) : 12;
		return OK;
	case 1:
		*v = 4;
		return OK;
	case 2:
		*v = 5;
		return OK;
	}
	return INVALID;
}

EXPORT const char *cublasGetStatusString(int s)
{
	switch (s) {
	case OK:
		return "success";
	case NOT_INIT:
		return "the library was not initialized";
	case INVALID:
		return "an invalid numeric value was used as an argument";
	case EXEC_FAILED:
		return "the GPU program failed to execute";
	case NOT_SUPPORTED:
		return "the functionality requested is not supported";
	}
	return "unknown error";
}

static int check(const handle *h, int want_mode)
{
	if (h == NULL || h->magic != MAGIC)
		return NOT_INIT;
	if (pbfake_current_device() != h->dev)
		return EXEC_FAILED; /* a kernel launched on the wrong device */
	if (h->mode != want_mode)
		return INVALID;
	return OK;
}

static int on_device(const handle *h, const void *p) { return pbfake_device_of(p) == h->dev; }

/* later enqueues fn on the handle's stream with a copy of the n bytes of args. */
static int later(const handle *h, void (*fn)(void *), const void *args, size_t n)
{
	void *p = malloc(n);
	if (p == NULL)
		return 3; /* CUBLAS_STATUS_ALLOC_FAILED */
	memcpy(p, args, n);
	return pbfake_enqueue(h->stream, fn, p) == 0 ? OK : EXEC_FAILED;
}

/* Element access by cudaDataType: 0 f32, 1 f64, 2 f16, 3 i8, 10 i32, 14 bf16. */
static double ld(const void *p, size_t i, int type)
{
	switch (type) {
	case 3:
		return ((const int8_t *)p)[i];
	case 10:
		return ((const int32_t *)p)[i];
	case 0:
		return ((const float *)p)[i];
	case 1:
		return ((const double *)p)[i];
	case 2:
		return (double)((const _Float16 *)p)[i];
	case 14: {
		uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
		float f;
		memcpy(&f, &u, sizeof f);
		return f;
	}
	}
	return 0;
}

static void st(void *p, size_t i, int type, double v)
{
	switch (type) {
	case 10:
		((int32_t *)p)[i] = (int32_t)v;
		break;
	case 0:
		((float *)p)[i] = (float)v;
		break;
	case 1:
		((double *)p)[i] = v;
		break;
	case 2:
		((_Float16 *)p)[i] = (_Float16)(float)v;
		break;
	case 14: {
		float f = (float)v;
		uint32_t u;
		memcpy(&u, &f, sizeof u);
		u += 0x7fff + ((u >> 16) & 1); /* round to nearest even */
		((uint16_t *)p)[i] = (uint16_t)(u >> 16);
		break;
	}
	}
}

static float tf32(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	u += 0xfff + ((u >> 13) & 1);
	u &= ~0x1fffu;
	memcpy(&x, &u, sizeof x);
	return x;
}

/* A gemm's arguments, as enqueued. */
typedef struct gemm_args {
	int ta, tb, m, n, k;
	double alpha, beta;
	const void *A, *B;
	void *C;
	int atype, btype, ctype, lda, ldb, ldc, wide, round_tf32, integer;
} gemm_args;

/*
 * run_gemm computes column-major C = alpha·op(A)·op(B) + beta·C (C m×n), in
 * double (wide = 1), float, or 32-bit integer (integer = 1, wrapping as the
 * hardware does) accumulation; beta == 0 does not read C.
 */
static void run_gemm(void *p)
{
	const gemm_args *g = p;
	for (int j = 0; j < g->n; j++)
		for (int i = 0; i < g->m; i++) {
			double dacc = 0;
			float facc = 0;
			uint32_t iacc = 0;
			for (int q = 0; q < g->k; q++) {
				double a = ld(g->A, g->ta ? (size_t)q + (size_t)i * g->lda : (size_t)i + (size_t)q * g->lda, g->atype);
				double b = ld(g->B, g->tb ? (size_t)j + (size_t)q * g->ldb : (size_t)q + (size_t)j * g->ldb, g->btype);
				if (g->integer)
					iacc += (uint32_t)((int32_t)a * (int32_t)b);
				else if (g->wide)
					dacc += a * b;
				else if (g->round_tf32)
					facc += tf32((float)a) * tf32((float)b);
				else
					facc += (float)a * (float)b;
			}
			double acc = g->integer ? (double)(int32_t)iacc : g->wide ? dacc : facc;
			size_t ci = (size_t)i + (size_t)j * g->ldc;
			double v = g->alpha * acc;
			if (g->beta != 0)
				v += g->beta * ld(g->C, ci, g->ctype);
			st(g->C, ci, g->ctype, v);
		}
}

/* gemm checks a gemm's arguments and enqueues it. */
static int gemm(const handle *h, int ta, int tb, int m, int n, int k, double alpha, const void *A,
                int atype, int lda, const void *B, int btype, int ldb, double beta, void *C,
                int ctype, int ldc, int wide, int round_tf32, int integer)
{
	if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1) || m < 0 || n < 0 || k < 0)
		return INVALID;
	int arows = ta ? k : m, brows = tb ? n : k;
	if (lda < (arows > 1 ? arows : 1) || ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1))
		return INVALID;
	if (!on_device(h, A) || !on_device(h, B) || !on_device(h, C))
		return INVALID;
	gemm_args g = {ta, tb, m, n, k, alpha, beta, A, B, C, atype, btype, ctype, lda, ldb, ldc,
	               wide, round_tf32, integer};
	return later(h, run_gemm, &g, sizeof g);
}

EXPORT int cublasSgemm_v2(handle *h, int ta, int tb, int m, int n, int k, const float *alpha,
                          const float *A, int lda, const float *B, int ldb, const float *beta,
                          float *C, int ldc)
{
	int s = check(h, 0);
	if (s != OK)
		return s;
	return gemm(h, ta, tb, m, n, k, *alpha, A, 0, lda, B, 0, ldb, *beta, C, 0, ldc, 0, 0, 0);
}

EXPORT int cublasDgemm_v2(handle *h, int ta, int tb, int m, int n, int k, const double *alpha,
                          const double *A, int lda, const double *B, int ldb, const double *beta,
                          double *C, int ldc)
{
	int s = check(h, 0);
	if (s != OK)
		return s;
	return gemm(h, ta, tb, m, n, k, *alpha, A, 1, lda, B, 1, ldb, *beta, C, 1, ldc, 1, 0, 0);
}

EXPORT int cublasGemmEx(handle *h, int ta, int tb, int m, int n, int k, const void *alpha,
                        const void *A, int atype, int lda, const void *B, int btype, int ldb,
                        const void *beta, void *C, int ctype, int ldc, int compute, int algo)
{
	int s = check(h, 0);
	if (s != OK)
		return s;
	if (algo != -1)
		return INVALID;
	/* the combinations of cuBLAS's GemmEx table peakbench may call */
	if (atype != btype)
		return NOT_SUPPORTED;
	int tf = 0;
	switch (compute) {
	case 68: /* CUBLAS_COMPUTE_32F: f32, or f16/bf16 into themselves or f32 */
		if (!(atype == 0 && ctype == 0) && !((atype == 2 || atype == 14) && (ctype == atype || ctype == 0)))
			return NOT_SUPPORTED;
		break;
	case 77: /* CUBLAS_COMPUTE_32F_FAST_TF32 */
		if (atype != 0 || ctype != 0)
			return NOT_SUPPORTED;
		tf = 1;
		break;
	case 72: { /* CUBLAS_COMPUTE_32I: i8 into i32, int32 scales */
		if (atype != 3 || ctype != 10)
			return NOT_SUPPORTED;
		/* A and B 4-byte aligned, lda and ldb multiples of 4 (cuBLAS's documentation) */
		if (lda % 4 != 0 || ldb % 4 != 0 || (uintptr_t)A % 4 != 0 || (uintptr_t)B % 4 != 0)
			return NOT_SUPPORTED;
		double a = *(const int32_t *)alpha, b = *(const int32_t *)beta;
		return gemm(h, ta, tb, m, n, k, a, A, atype, lda, B, btype, ldb, b, C, ctype, ldc, 0, 0, 1);
	}
	default:
		return NOT_SUPPORTED;
	}
	/* the scale type of the 32F compute types is float */
	double a = *(const float *)alpha, b = *(const float *)beta;
	return gemm(h, ta, tb, m, n, k, a, A, atype, lda, B, btype, ldb, b, C, ctype, ldc, 0, tf, 0);
}

typedef struct gemv_args {
	int trans, m, n, lda, type;
	double alpha, beta;
	const void *A, *x;
	void *y;
} gemv_args;

static void run_gemv(void *p)
{
	const gemv_args *g = p;
	int rows = g->trans ? g->n : g->m, cols = g->trans ? g->m : g->n; /* y has rows elements */
	for (int i = 0; i < rows; i++) {
		double acc = 0;
		for (int j = 0; j < cols; j++) {
			double a = g->trans ? ld(g->A, (size_t)j + (size_t)i * g->lda, g->type)
			                    : ld(g->A, (size_t)i + (size_t)j * g->lda, g->type);
			acc += a * ld(g->x, (size_t)j, g->type);
		}
		double v = g->alpha * acc;
		if (g->beta != 0)
			v += g->beta * ld(g->y, (size_t)i, g->type);
		st(g->y, (size_t)i, g->type, v);
	}
}

static int gemv(const handle *h, int trans, int m, int n, double alpha, const void *A, int lda,
                const void *x, int incx, double beta, void *y, int incy, int type)
{
	if ((trans != 0 && trans != 1) || m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx != 1 ||
	    incy != 1)
		return INVALID;
	if (!on_device(h, A) || !on_device(h, x) || !on_device(h, y))
		return INVALID;
	gemv_args g = {trans, m, n, lda, type, alpha, beta, A, x, y};
	return later(h, run_gemv, &g, sizeof g);
}

EXPORT int cublasSgemv_v2(handle *h, int trans, int m, int n, const float *alpha, const float *A,
                          int lda, const float *x, int incx, const float *beta, float *y, int incy)
{
	int s = check(h, 0);
	return s != OK ? s : gemv(h, trans, m, n, *alpha, A, lda, x, incx, *beta, y, incy, 0);
}

EXPORT int cublasDgemv_v2(handle *h, int trans, int m, int n, const double *alpha,
                          const double *A, int lda, const double *x, int incx, const double *beta,
                          double *y, int incy)
{
	int s = check(h, 0);
	return s != OK ? s : gemv(h, trans, m, n, *alpha, A, lda, x, incx, *beta, y, incy, 1);
}

/* axpy and dot: y += alpha·x, or *r = x·y (type 0 f32, 1 f64). */
typedef struct vec_args {
	int n, type;
	double alpha;
	const void *x;
	void *y, *r;
} vec_args;

static void run_axpy(void *p)
{
	const vec_args *v = p;
	for (int i = 0; i < v->n; i++)
		st(v->y, (size_t)i, v->type, ld(v->y, (size_t)i, v->type) + v->alpha * ld(v->x, (size_t)i, v->type));
}

static void run_dot(void *p)
{
	const vec_args *v = p;
	double dacc = 0;
	float facc = 0;
	for (int i = 0; i < v->n; i++) {
		if (v->type == 1)
			dacc += ld(v->x, (size_t)i, 1) * ld(v->y, (size_t)i, 1);
		else
			facc += ((const float *)v->x)[i] * ((const float *)v->y)[i];
	}
	st(v->r, 0, v->type, v->type == 1 ? dacc : facc);
}

static int axpy(handle *h, int n, double alpha, const void *x, int incx, void *y, int incy, int type)
{
	int s = check(h, 0);
	if (s != OK)
		return s;
	if (n < 0 || incx != 1 || incy != 1 || !on_device(h, x) || !on_device(h, y))
		return INVALID;
	vec_args v = {n, type, alpha, x, y, NULL};
	return later(h, run_axpy, &v, sizeof v);
}

static int dot(handle *h, int n, const void *x, int incx, const void *y, int incy, void *r, int type)
{
	int s = check(h, 1);
	if (s != OK)
		return s;
	if (n < 0 || incx != 1 || incy != 1 || !on_device(h, x) || !on_device(h, y) || !on_device(h, r))
		return INVALID;
	vec_args v = {n, type, 0, x, (void *)y, r};
	return later(h, run_dot, &v, sizeof v);
}

EXPORT int cublasSaxpy_v2(handle *h, int n, const float *alpha, const float *x, int incx, float *y,
                          int incy)
{
	return axpy(h, n, h != NULL && h->magic == MAGIC ? *alpha : 0, x, incx, y, incy, 0);
}

EXPORT int cublasDaxpy_v2(handle *h, int n, const double *alpha, const double *x, int incx,
                          double *y, int incy)
{
	return axpy(h, n, h != NULL && h->magic == MAGIC ? *alpha : 0, x, incx, y, incy, 1);
}

EXPORT int cublasSdot_v2(handle *h, int n, const float *x, int incx, const float *y, int incy,
                         float *r)
{
	return dot(h, n, x, incx, y, incy, r, 0);
}

EXPORT int cublasDdot_v2(handle *h, int n, const double *x, int incx, const double *y, int incy,
                         double *r)
{
	return dot(h, n, x, incx, y, incy, r, 1);
}
