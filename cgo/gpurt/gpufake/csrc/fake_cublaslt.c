/*
 * fake_cublaslt.c — a stand-in for cuBLASLt 12 (libcublasLt.so.12): the
 * matmul calls of fp8 gemm, computed naively on the fake runtime's
 * host-backed "device" memory. It holds what cuBLAS's documentation says
 * fp8 needs and refuses the rest as the real one would:
 *   - compute type CUBLAS_COMPUTE_32F, scale type CUDA_R_32F;
 *   - E4M3 × E4M3, E4M3 × E5M2 or E5M2 × E4M3 inputs (no E5M2 × E5M2), C
 *     and D of one type, f32 here;
 *   - A transposed and B not ("TN"), pointers and leading dimensions
 *     16-byte aligned, a device of compute capability 8.9 or later
 *     (PB_FAKE_CUDA_CC, as the fake runtime reports it);
 *   - every matrix, scale and workspace a device allocation of the
 *     handle's device, the calling thread's current device the handle's,
 *     the workspace at least what the heuristic asked for.
 * The work goes on the stream passed to cublasLtMatmul and runs when it is
 * synchronized (fake_runtime.c): alpha and beta are read at the call, the
 * operands and the A and B scales when the work runs. Products of the
 * decoded fp8 values are summed in f32.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

extern int pbfake_current_device(void);
extern int pbfake_device_of(const void *p);
extern int pbfake_enqueue(void *stream, void (*fn)(void *arg), void *arg);

enum { OK = 0, NOT_INIT = 1, ALLOC = 3, INVALID = 7, EXEC_FAILED = 13, NOT_SUPPORTED = 15 };
enum { R_32F = 0, R_8F_E4M3 = 28, R_8F_E5M2 = 29, COMPUTE_32F = 68 };

#define MAGIC 0x6c74666bu      /* "kftl" */
#define ALGO_MAGIC 0x616c676fu /* "ogla" */
#define WORKSPACE (1u << 20)   /* what the heuristic asks for */

EXPORT int cublasLtGetVersion(void) { return 120405; }

typedef struct lthandle {
	uint32_t magic;
	int dev;
} lthandle;

typedef struct ltdesc {
	uint32_t magic;
	int compute, scale, transa, transb;
	const float *ascale, *bscale;
} ltdesc;

typedef struct ltlayout {
	uint32_t magic;
	int type;
	uint64_t rows, cols;
	int64_t ld;
} ltlayout;

typedef struct ltpref {
	uint32_t magic;
	uint64_t max_ws;
} ltpref;

typedef struct {
	uint64_t data[8];
} algo_t;

typedef struct {
	algo_t algo;
	size_t workspaceSize;
	int state;
	float wavesCount;
	int reserved[4];
} heuristic_t;

EXPORT int cublasLtCreate(lthandle **h)
{
	lthandle *x = calloc(1, sizeof *x);
	if (x == NULL)
		return ALLOC;
	*x = (lthandle){MAGIC, pbfake_current_device()};
	*h = x;
	return OK;
}

EXPORT int cublasLtDestroy(lthandle *h)
{
	if (h == NULL || h->magic != MAGIC)
		return NOT_INIT;
	h->magic = 0;
	free(h);
	return OK;
}

EXPORT int cublasLtMatmulDescCreate(ltdesc **d, int compute, int scale)
{
	ltdesc *x = calloc(1, sizeof *x);
	if (x == NULL)
		return ALLOC;
	*x = (ltdesc){.magic = MAGIC, .compute = compute, .scale = scale};
	*d = x;
	return OK;
}

EXPORT int cublasLtMatmulDescDestroy(ltdesc *d)
{
	if (d == NULL || d->magic != MAGIC)
		return INVALID;
	d->magic = 0;
	free(d);
	return OK;
}

EXPORT int cublasLtMatmulDescSetAttribute(ltdesc *d, int attr, const void *buf, size_t size)
{
	if (d == NULL || d->magic != MAGIC || buf == NULL)
		return INVALID;
	switch (attr) {
	case 3: /* TRANSA */
	case 4: /* TRANSB */
		if (size != sizeof(int32_t))
			return INVALID;
		int32_t op;
		memcpy(&op, buf, sizeof op);
		if (op != 0 && op != 1)
			return INVALID;
		*(attr == 3 ? &d->transa : &d->transb) = op;
		return OK;
	case 17: /* A_SCALE_POINTER */
	case 18: /* B_SCALE_POINTER */
		if (size != sizeof(void *))
			return INVALID;
		memcpy(attr == 17 ? &d->ascale : &d->bscale, buf, sizeof(void *));
		return OK;
	}
	return INVALID; /* nothing else is modelled */
}

EXPORT int cublasLtMatrixLayoutCreate(ltlayout **l, int type, uint64_t rows, uint64_t cols,
                                      int64_t ld)
{
	if (ld < (int64_t)(rows > 1 ? rows : 1))
		return INVALID;
	ltlayout *x = calloc(1, sizeof *x);
	if (x == NULL)
		return ALLOC;
	*x = (ltlayout){MAGIC, type, rows, cols, ld};
	*l = x;
	return OK;
}

EXPORT int cublasLtMatrixLayoutDestroy(ltlayout *l)
{
	if (l == NULL || l->magic != MAGIC)
		return INVALID;
	l->magic = 0;
	free(l);
	return OK;
}

EXPORT int cublasLtMatmulPreferenceCreate(ltpref **p)
{
	ltpref *x = calloc(1, sizeof *x);
	if (x == NULL)
		return ALLOC;
	x->magic = MAGIC;
	*p = x;
	return OK;
}

EXPORT int cublasLtMatmulPreferenceDestroy(ltpref *p)
{
	if (p == NULL || p->magic != MAGIC)
		return INVALID;
	p->magic = 0;
	free(p);
	return OK;
}

EXPORT int cublasLtMatmulPreferenceSetAttribute(ltpref *p, int attr, const void *buf, size_t size)
{
	if (p == NULL || p->magic != MAGIC || buf == NULL)
		return INVALID;
	if (attr != 1 || size != sizeof(uint64_t)) /* MAX_WORKSPACE_BYTES */
		return INVALID;
	memcpy(&p->max_ws, buf, sizeof p->max_ws);
	return OK;
}

static int fp8(int t) { return t == R_8F_E4M3 || t == R_8F_E5M2; }

static int elem_size(int t) { return t == R_32F ? 4 : fp8(t) ? 1 : 0; }

static int compute_capability(void)
{
	const char *v = getenv("PB_FAKE_CUDA_CC");
	return v != NULL && *v != '\0' ? atoi(v) : 90;
}

/* shape checks what the real library checks before choosing: 0 or a status. */
static int shape(const ltdesc *d, const ltlayout *a, const ltlayout *b, const ltlayout *c,
                 const ltlayout *dd)
{
	if (d == NULL || d->magic != MAGIC || a == NULL || a->magic != MAGIC || b == NULL ||
	    b->magic != MAGIC || c == NULL || c->magic != MAGIC || dd == NULL || dd->magic != MAGIC)
		return INVALID;
	uint64_t m = d->transa ? a->cols : a->rows, ka = d->transa ? a->rows : a->cols;
	uint64_t kb = d->transb ? b->cols : b->rows, n = d->transb ? b->rows : b->cols;
	if (ka != kb || c->rows != m || c->cols != n || dd->rows != m || dd->cols != n)
		return INVALID;
	if (!fp8(a->type) || !fp8(b->type) || (a->type == R_8F_E5M2 && b->type == R_8F_E5M2))
		return NOT_SUPPORTED;
	if (c->type != R_32F || dd->type != R_32F || d->compute != COMPUTE_32F || d->scale != R_32F)
		return NOT_SUPPORTED;
	if (d->transa != 1 || d->transb != 0 || compute_capability() < 89)
		return NOT_SUPPORTED;
	const ltlayout *ls[4] = {a, b, c, dd};
	for (int i = 0; i < 4; i++)
		if ((ls[i]->ld * elem_size(ls[i]->type)) % 16 != 0)
			return NOT_SUPPORTED;
	return OK;
}

EXPORT int cublasLtMatmulAlgoGetHeuristic(lthandle *h, ltdesc *d, ltlayout *a, ltlayout *b,
                                          ltlayout *c, ltlayout *dd, ltpref *p, int requested,
                                          heuristic_t *results, int *returned)
{
	if (h == NULL || h->magic != MAGIC)
		return NOT_INIT;
	if (p == NULL || p->magic != MAGIC || requested < 1 || results == NULL || returned == NULL)
		return INVALID;
	*returned = 0;
	int s = shape(d, a, b, c, dd);
	if (s != OK)
		return s;
	if (p->max_ws < WORKSPACE)
		return NOT_SUPPORTED;
	memset(&results[0], 0, sizeof results[0]);
	results[0].algo.data[0] = ALGO_MAGIC;
	results[0].workspaceSize = WORKSPACE;
	results[0].wavesCount = 1;
	*returned = 1;
	return OK;
}

/* Element types 28 (E4M3, no infinities, S.1111.111 NaN) and 29 (E5M2, f16's top byte). */
static float decode(uint8_t v, int type)
{
	int s = v >> 7, e, m;
	float x;
	if (type == R_8F_E4M3) {
		e = (v >> 3) & 0xf;
		m = v & 7;
		if (e == 0xf && m == 7)
			return __builtin_nanf("");
		x = e == 0 ? m / 512.0f : (1 + m / 8.0f) * __builtin_ldexpf(1, e - 7);
	} else {
		e = (v >> 2) & 0x1f;
		m = v & 3;
		if (e == 0x1f)
			return m ? __builtin_nanf("") : s ? -__builtin_inff() : __builtin_inff();
		x = e == 0 ? m / 65536.0f : (1 + m / 4.0f) * __builtin_ldexpf(1, e - 15);
	}
	return s ? -x : x;
}

typedef struct matmul_args {
	uint64_t m, n, k;
	int ta, tb, atype, btype;
	int64_t lda, ldb, ldc, ldd;
	float alpha, beta;
	const uint8_t *A, *B;
	const float *C, *ascale, *bscale;
	float *D;
} matmul_args;

static void run_matmul(void *p)
{
	const matmul_args *g = p;
	float sa = g->ascale != NULL ? *g->ascale : 1, sb = g->bscale != NULL ? *g->bscale : 1;
	for (uint64_t j = 0; j < g->n; j++)
		for (uint64_t i = 0; i < g->m; i++) {
			float acc = 0;
			for (uint64_t q = 0; q < g->k; q++) {
				size_t ai = g->ta ? q + i * g->lda : i + q * g->lda;
				size_t bi = g->tb ? j + q * g->ldb : q + j * g->ldb;
				acc += decode(g->A[ai], g->atype) * decode(g->B[bi], g->btype);
			}
			float v = g->alpha * sa * sb * acc;
			if (g->beta != 0)
				v += g->beta * g->C[i + j * g->ldc];
			g->D[i + j * g->ldd] = v;
		}
}

static int on_device(const lthandle *h, const void *p, int align)
{
	return pbfake_device_of(p) == h->dev && (uintptr_t)p % (uintptr_t)align == 0;
}

EXPORT int cublasLtMatmul(lthandle *h, ltdesc *d, const float *alpha, const void *A, ltlayout *a,
                          const void *B, ltlayout *b, const float *beta, const void *C,
                          ltlayout *c, void *D, ltlayout *dd, const algo_t *algo, void *ws,
                          size_t wsbytes, void *stream)
{
	if (h == NULL || h->magic != MAGIC)
		return NOT_INIT;
	if (pbfake_current_device() != h->dev)
		return EXEC_FAILED; /* a kernel launched on the wrong device */
	int s = shape(d, a, b, c, dd);
	if (s != OK)
		return s;
	if (algo == NULL || algo->data[0] != ALGO_MAGIC || wsbytes < WORKSPACE ||
	    !on_device(h, ws, 1) || alpha == NULL || beta == NULL)
		return INVALID;
	if (!on_device(h, A, 16) || !on_device(h, B, 16) || !on_device(h, C, 16) ||
	    !on_device(h, D, 16))
		return INVALID;
	if ((d->ascale != NULL && !on_device(h, d->ascale, 4)) ||
	    (d->bscale != NULL && !on_device(h, d->bscale, 4)))
		return INVALID;
	/* as cuBLASLt 13.1 on an H100: a scale off 16-byte alignment is refused here */
	if (((uintptr_t)d->ascale | (uintptr_t)d->bscale) % 16 != 0)
		return NOT_SUPPORTED;
	/* PB_FAKE_LT_NO_SCALES: refuse any scale pointer here, after the
	 * heuristic took it, to test a caller's fallback */
	const char *ns = getenv("PB_FAKE_LT_NO_SCALES");
	if (ns != NULL && *ns != '\0' && (d->ascale != NULL || d->bscale != NULL))
		return NOT_SUPPORTED;
	matmul_args *g = malloc(sizeof *g);
	if (g == NULL)
		return ALLOC;
	*g = (matmul_args){
		.m = c->rows, .n = c->cols, .k = d->transa ? a->rows : a->cols,
		.ta = d->transa, .tb = d->transb, .atype = a->type, .btype = b->type,
		.lda = a->ld, .ldb = b->ld, .ldc = c->ld, .ldd = dd->ld,
		.alpha = *alpha, .beta = *beta,
		.A = A, .B = B, .C = C, .ascale = d->ascale, .bscale = d->bscale, .D = D,
	};
	return pbfake_enqueue(stream, run_matmul, g) == 0 ? OK : EXEC_FAILED;
}
