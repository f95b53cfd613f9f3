/*
 * fake_cusparse.c — a stand-in for cuSPARSE 12 (libcusparse.so.12): the
 * generic API's CSR SpMV and SpMM computed on the fake runtime's
 * host-backed "device" memory, each row's products summed in order in the
 * compute type, and the format conversions cusparseXcsr2coo,
 * cusparseXcoo2csr and cusparseCsr2cscEx2 (a counting sort: rows ascend
 * within each column, as the real ALG1 leaves them). Strict where the real
 * one would misbehave:
 *   - descriptors must be live and of the kind the call takes; CSR with
 *     int32 offsets and indices from zero, dense matrices row-major or
 *     column-major with a leading dimension that fits;
 *   - value types must equal the compute type (f32 or f64), shapes must
 *     agree (A rows×cols, x cols, y rows; B cols×k, C rows×k);
 *   - every array must be a device allocation of the handle's device,
 *     current on the calling thread, and the external buffer a device
 *     allocation whenever the bufferSize query asked for one;
 *   - a conversion's arrays must each lie within one allocation of the
 *     handle's device, at the size its dimensions give, and Csr2cscEx2's
 *     buffer must hold the bytes its _bufferSize asked for; index bases,
 *     actions and algorithms other than the documented values are refused;
 *   - the work goes on the stream bound to the handle (cusparseSetStream;
 *     the default stream when none) and is carried out when that stream is
 *     synchronized (fake_runtime.c), not during the call; alpha and beta
 *     (host scalars) are read at the call.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

extern int pbfake_current_device(void);
extern int pbfake_device_of(const void *p);
extern int pbfake_enqueue(void *stream, void (*fn)(void *arg), void *arg);

enum {
	SUCCESS = 0,
	NOT_INIT = 1,
	ALLOC_FAILED = 2,
	INVALID = 3,
	EXEC_FAILED = 6,
	NOT_SUPPORTED = 10,
};
enum { R32F = 0, R64F = 1, IDX32 = 2, ORDER_COL = 1, ORDER_ROW = 2 };

typedef struct handle {
	uint32_t magic;
	int dev;
	void *stream;
} handle;

#define HMAGIC 0x63737072u
#define CSR 0x43535200u
#define DNVEC 0x444e5600u
#define DNMAT 0x444e4d00u

/* One descriptor type for the three kinds: what is not used stays zero. */
typedef struct descr {
	uint32_t magic;
	int64_t rows, cols, nnz, ld;
	void *rowptr, *colidx, *values;
	int type, order;
} descr;

EXPORT int cusparseCreate(handle **h)
{
	handle *x = calloc(1, sizeof *x);
	if (x == NULL)
		return ALLOC_FAILED;
	x->magic = HMAGIC;
	x->dev = pbfake_current_device();
	*h = x;
	return SUCCESS;
}

EXPORT int cusparseDestroy(handle *h)
{
	if (h == NULL || h->magic != HMAGIC)
		return NOT_INIT;
	h->magic = 0;
	free(h);
	return SUCCESS;
}

EXPORT int cusparseSetStream(handle *h, void *s)
{
	if (h == NULL || h->magic != HMAGIC)
		return NOT_INIT;
	h->stream = s;
	return SUCCESS;
}

EXPORT int cusparseGetProperty(int type, int *v)
{
	static const int version[3] = {12, 3, 1};
	if (type < 0 || type > 2)
		return INVALID;
	*v = version[type];
	return SUCCESS;
}

EXPORT const char *cusparseGetErrorString(int s)
{
	switch (s) {
	case SUCCESS:
		return "success";
	case INVALID:
		return "invalid value";
	case EXEC_FAILED:
		return "execution failed";
	case NOT_SUPPORTED:
		return "operation not supported";
	}
	return "unknown error";
}

static int value_type(int t) { return t == R32F || t == R64F; }

static int made(descr **out, descr d)
{
	descr *x = malloc(sizeof *x);
	if (x == NULL)
		return ALLOC_FAILED;
	*x = d;
	*out = x;
	return SUCCESS;
}

static int gone(descr *d, uint32_t magic)
{
	if (d == NULL || d->magic != magic)
		return INVALID;
	d->magic = 0;
	free(d);
	return SUCCESS;
}

EXPORT int cusparseCreateCsr(descr **out, int64_t rows, int64_t cols, int64_t nnz, void *rowptr,
                             void *colidx, void *values, int rowptr_type, int colidx_type,
                             int base, int type)
{
	if (out == NULL || rows < 0 || cols < 0 || nnz < 0 || !value_type(type) || base != 0)
		return INVALID;
	if (rowptr_type != IDX32 || colidx_type != IDX32)
		return NOT_SUPPORTED; /* this fake knows int32 only */
	return made(out, (descr){.magic = CSR, .rows = rows, .cols = cols, .nnz = nnz,
	                         .rowptr = rowptr, .colidx = colidx, .values = values, .type = type});
}

EXPORT int cusparseDestroySpMat(descr *d) { return gone(d, CSR); }

EXPORT int cusparseCreateDnVec(descr **out, int64_t size, void *values, int type)
{
	if (out == NULL || size < 0 || !value_type(type))
		return INVALID;
	return made(out, (descr){.magic = DNVEC, .rows = size, .cols = 1, .ld = size,
	                         .values = values, .type = type, .order = ORDER_COL});
}

EXPORT int cusparseDestroyDnVec(descr *d) { return gone(d, DNVEC); }

EXPORT int cusparseCreateDnMat(descr **out, int64_t rows, int64_t cols, int64_t ld, void *values,
                               int type, int order)
{
	if (out == NULL || rows < 0 || cols < 0 || !value_type(type))
		return INVALID;
	if ((order == ORDER_ROW && ld < cols) || (order == ORDER_COL && ld < rows) ||
	    (order != ORDER_ROW && order != ORDER_COL))
		return INVALID;
	return made(out, (descr){.magic = DNMAT, .rows = rows, .cols = cols, .ld = ld,
	                         .values = values, .type = type, .order = order});
}

EXPORT int cusparseDestroyDnMat(descr *d) { return gone(d, DNMAT); }

/* The buffer the queries ask for: something, so that a job must allocate it. */
static size_t buffer_bytes(const descr *a) { return 256 + (size_t)a->rows * 8; }

/* check validates a product's operands: A (CSR) rows×cols, B cols×k, C rows×k. */
static int check(const handle *h, const descr *a, const descr *b, const descr *c, uint32_t dense,
                 int type)
{
	if (h == NULL || h->magic != HMAGIC)
		return NOT_INIT;
	if (a == NULL || a->magic != CSR || b == NULL || b->magic != dense || c == NULL ||
	    c->magic != dense)
		return INVALID;
	if (a->type != type || b->type != type || c->type != type)
		return INVALID;
	if (b->rows != a->cols || c->rows != a->rows || b->cols != c->cols)
		return INVALID;
	return SUCCESS;
}

/* on_device: the arrays, read when the work runs, must be the handle's device's. */
static int on_device(const handle *h, const descr *a, const descr *b, const descr *c)
{
	if (pbfake_current_device() != h->dev)
		return EXEC_FAILED;
	const void *ps[] = {a->rowptr, a->colidx, a->values, b->values, c->values};
	for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
		if (pbfake_device_of(ps[i]) != h->dev)
			return INVALID;
	return SUCCESS;
}

typedef struct product {
	descr a, b, c; /* copies: the descriptors may be destroyed before the work runs */
	double alpha, beta;
} product;

static double get(const descr *d, int64_t i)
{
	return d->type == R64F ? ((const double *)d->values)[i] : ((const float *)d->values)[i];
}

static void put(const descr *d, int64_t i, double v)
{
	if (d->type == R64F)
		((double *)d->values)[i] = v;
	else
		((float *)d->values)[i] = (float)v;
}

/* at is element (r, col) of a dense operand in its order. */
static int64_t at(const descr *d, int64_t r, int64_t col)
{
	return d->order == ORDER_ROW ? r * d->ld + col : col * d->ld + r;
}

static void run_product(void *arg)
{
	product *p = arg;
	const int32_t *rp = p->a.rowptr, *ci = p->a.colidx;
	for (int64_t r = 0; r < p->a.rows; r++)
		for (int64_t col = 0; col < p->c.cols; col++) {
			double s = 0;
			float s32 = 0;
			for (int32_t e = rp[r]; e < rp[r + 1]; e++) {
				double v = get(&p->a, e) * get(&p->b, at(&p->b, ci[e], col));
				s += v;
				s32 += (float)v;
			}
			double acc = p->a.type == R64F ? s : s32;
			double old = p->beta != 0 ? get(&p->c, at(&p->c, r, col)) : 0;
			put(&p->c, at(&p->c, r, col), p->alpha * acc + p->beta * old);
		}
}

static double scalar(const void *p, int type)
{
	return type == R64F ? *(const double *)p : *(const float *)p;
}

static int submit(const handle *h, const descr *a, const descr *b, const descr *c,
                  const void *alpha, const void *beta, int type, const void *buffer)
{
	int s = on_device(h, a, b, c);
	if (s != SUCCESS)
		return s;
	if (alpha == NULL || beta == NULL || pbfake_device_of(buffer) != h->dev)
		return INVALID; /* host scalars; the workspace the query asked for */
	product *p = malloc(sizeof *p);
	if (p == NULL)
		return ALLOC_FAILED;
	*p = (product){.a = *a, .b = *b, .c = *c, .alpha = scalar(alpha, type),
	               .beta = scalar(beta, type)};
	return pbfake_enqueue(h->stream, run_product, p) == 0 ? SUCCESS : EXEC_FAILED;
}

EXPORT int cusparseSpMV_bufferSize(handle *h, int op, const void *alpha, descr *a, descr *x,
                                   const void *beta, descr *y, int type, int alg, size_t *bytes)
{
	(void)alpha, (void)beta;
	int s = check(h, a, x, y, DNVEC, type);
	if (s != SUCCESS)
		return s;
	if (op != 0 || alg != 0 || bytes == NULL)
		return INVALID;
	*bytes = buffer_bytes(a);
	return SUCCESS;
}

EXPORT int cusparseSpMV(handle *h, int op, const void *alpha, descr *a, descr *x,
                        const void *beta, descr *y, int type, int alg, void *buffer)
{
	int s = check(h, a, x, y, DNVEC, type);
	if (s != SUCCESS)
		return s;
	if (op != 0 || alg != 0)
		return INVALID;
	return submit(h, a, x, y, alpha, beta, type, buffer);
}

EXPORT int cusparseSpMM_bufferSize(handle *h, int opa, int opb, const void *alpha, descr *a,
                                   descr *b, const void *beta, descr *c, int type, int alg,
                                   size_t *bytes)
{
	(void)alpha, (void)beta;
	int s = check(h, a, b, c, DNMAT, type);
	if (s != SUCCESS)
		return s;
	if (opa != 0 || opb != 0 || alg != 0 || bytes == NULL)
		return INVALID;
	*bytes = buffer_bytes(a);
	return SUCCESS;
}

EXPORT int cusparseSpMM(handle *h, int opa, int opb, const void *alpha, descr *a, descr *b,
                        const void *beta, descr *c, int type, int alg, void *buffer)
{
	int s = check(h, a, b, c, DNMAT, type);
	if (s != SUCCESS)
		return s;
	if (opa != 0 || opb != 0 || alg != 0)
		return INVALID;
	return submit(h, a, b, c, alpha, beta, type, buffer);
}

/* ---- format conversions (the legacy API: plain device arrays) ---- */

enum { ACTION_SYMBOLIC = 0, ACTION_NUMERIC = 1, CSR2CSC_ALG1 = 1 };

/*
 * spans: the first and the last of bytes from p lie in device memory of the
 * handle's device (an array shorter than its dimensions give, at the end of
 * an allocation, runs out of device memory: each allocation has a header).
 */
static int spans(const handle *h, const void *p, size_t bytes)
{
	if (pbfake_device_of(p) != h->dev)
		return 0;
	return bytes == 0 || pbfake_device_of((const char *)p + bytes - 1) == h->dev;
}

/* legacy_check: the handle, its device current, the dimensions and the index base. */
static int legacy_check(const handle *h, int m, int nnz, int base)
{
	if (h == NULL || h->magic != HMAGIC)
		return NOT_INIT;
	if (m < 0 || nnz < 0 || (base != 0 && base != 1))
		return INVALID;
	if (pbfake_current_device() != h->dev)
		return EXEC_FAILED;
	return SUCCESS;
}

/* A conversion of the row array alone: pointers → rows (csr2coo) or rows → pointers (coo2csr). */
typedef struct rows_conv {
	const int32_t *in;
	int32_t *out;
	int m, nnz, base;
} rows_conv;

/* run_csr2coo writes each row's index over its entries (pointers base-relative). */
static void run_csr2coo(void *arg)
{
	const rows_conv *x = arg;
	for (int r = 0; r < x->m; r++)
		for (int32_t e = x->in[r] - x->base; e < x->in[r + 1] - x->base; e++)
			if (e >= 0 && e < x->nnz) /* a real GPU would write wherever: stay in the array */
				x->out[e] = r + x->base;
}

EXPORT int cusparseXcsr2coo(handle *h, const int32_t *csr_row_ptr, int nnz, int m,
                            int32_t *coo_row_ind, int base)
{
	int s = legacy_check(h, m, nnz, base);
	if (s != SUCCESS)
		return s;
	if (!spans(h, csr_row_ptr, ((size_t)m + 1) * 4) || !spans(h, coo_row_ind, (size_t)nnz * 4))
		return INVALID;
	rows_conv *x = malloc(sizeof *x);
	if (x == NULL)
		return ALLOC_FAILED;
	*x = (rows_conv){.in = csr_row_ptr, .out = coo_row_ind, .m = m, .nnz = nnz, .base = base};
	return pbfake_enqueue(h->stream, run_csr2coo, x) == 0 ? SUCCESS : EXEC_FAILED;
}

/* run_coo2csr counts each row's entries (rows sorted, as the call assumes) into pointers. */
static void run_coo2csr(void *arg)
{
	const rows_conv *x = arg;
	int32_t *ptr = x->out;
	for (int r = 0; r <= x->m; r++)
		ptr[r] = 0;
	for (int e = 0; e < x->nnz; e++) {
		int r = x->in[e] - x->base;
		if (r >= 0 && r < x->m)
			ptr[r + 1]++;
	}
	for (int r = 0; r < x->m; r++)
		ptr[r + 1] += ptr[r];
	for (int r = 0; r <= x->m; r++)
		ptr[r] += x->base;
}

EXPORT int cusparseXcoo2csr(handle *h, const int32_t *coo_row_ind, int nnz, int m,
                            int32_t *csr_row_ptr, int base)
{
	int s = legacy_check(h, m, nnz, base);
	if (s != SUCCESS)
		return s;
	if (!spans(h, coo_row_ind, (size_t)nnz * 4) || !spans(h, csr_row_ptr, ((size_t)m + 1) * 4))
		return INVALID;
	rows_conv *x = malloc(sizeof *x);
	if (x == NULL)
		return ALLOC_FAILED;
	*x = (rows_conv){.in = coo_row_ind, .out = csr_row_ptr, .m = m, .nnz = nnz, .base = base};
	return pbfake_enqueue(h->stream, run_coo2csr, x) == 0 ? SUCCESS : EXEC_FAILED;
}

typedef struct transpose {
	int m, n, nnz, type, action, base;
	const void *csr_val;
	const int32_t *csr_ptr, *csr_ind;
	void *csc_val;
	int32_t *csc_ptr, *csc_ind;
	int32_t *next; /* in the caller's buffer: the cursors of the columns */
} transpose;

/* The buffer Csr2cscEx2 asks for: a cursor per column and some, so that a job must allocate it. */
static size_t csr2csc_bytes(int n) { return 256 + ((size_t)n + 1) * 4; }

static int csr2csc_check(const handle *h, int m, int n, int nnz, const void *csr_val,
                         const int32_t *csr_ptr, const int32_t *csr_ind, const void *csc_val,
                         const int32_t *csc_ptr, const int32_t *csc_ind, int type, int action,
                         int base, int alg)
{
	int s = legacy_check(h, m, nnz, base);
	if (s != SUCCESS)
		return s;
	if (n < 0 || (action != ACTION_SYMBOLIC && action != ACTION_NUMERIC) || alg != CSR2CSC_ALG1)
		return INVALID;
	if (!value_type(type))
		return NOT_SUPPORTED; /* this fake knows f32 and f64 only */
	size_t vs = type == R64F ? 8 : 4, nz = (size_t)nnz;
	if (!spans(h, csr_ptr, ((size_t)m + 1) * 4) || !spans(h, csr_ind, nz * 4) ||
	    !spans(h, csc_ptr, ((size_t)n + 1) * 4) || !spans(h, csc_ind, nz * 4))
		return INVALID;
	if (action == ACTION_NUMERIC && (!spans(h, csr_val, nz * vs) || !spans(h, csc_val, nz * vs)))
		return INVALID;
	return SUCCESS;
}

EXPORT int cusparseCsr2cscEx2_bufferSize(handle *h, int m, int n, int nnz, const void *csr_val,
                                         const int32_t *csr_ptr, const int32_t *csr_ind,
                                         void *csc_val, int32_t *csc_ptr, int32_t *csc_ind,
                                         int type, int action, int base, int alg, size_t *bytes)
{
	int s = csr2csc_check(h, m, n, nnz, csr_val, csr_ptr, csr_ind, csc_val, csc_ptr, csc_ind,
	                      type, action, base, alg);
	if (s != SUCCESS)
		return s;
	if (bytes == NULL)
		return INVALID;
	*bytes = csr2csc_bytes(n);
	return SUCCESS;
}

/* run_csr2csc: a counting sort of the entries by column, rows in order, the cursors in the buffer. */
static void run_csr2csc(void *arg)
{
	const transpose *t = arg;
	int32_t *next = t->next;
	for (int c = 0; c <= t->n; c++)
		next[c] = 0;
	for (int e = 0; e < t->nnz; e++) {
		int c = t->csr_ind[e] - t->base;
		if (c >= 0 && c < t->n)
			next[c + 1]++;
	}
	for (int c = 0; c < t->n; c++)
		next[c + 1] += next[c];
	for (int c = 0; c <= t->n; c++)
		t->csc_ptr[c] = next[c] + t->base;
	for (int r = 0; r < t->m; r++)
		for (int32_t e = t->csr_ptr[r] - t->base; e < t->csr_ptr[r + 1] - t->base; e++) {
			if (e < 0 || e >= t->nnz)
				continue;
			int c = t->csr_ind[e] - t->base;
			if (c < 0 || c >= t->n)
				continue;
			int32_t q = next[c]++;
			t->csc_ind[q] = r + t->base;
			if (t->action != ACTION_NUMERIC)
				continue;
			if (t->type == R64F)
				((double *)t->csc_val)[q] = ((const double *)t->csr_val)[e];
			else
				((float *)t->csc_val)[q] = ((const float *)t->csr_val)[e];
		}
}

EXPORT int cusparseCsr2cscEx2(handle *h, int m, int n, int nnz, const void *csr_val,
                              const int32_t *csr_ptr, const int32_t *csr_ind, void *csc_val,
                              int32_t *csc_ptr, int32_t *csc_ind, int type, int action, int base,
                              int alg, void *buffer)
{
	int s = csr2csc_check(h, m, n, nnz, csr_val, csr_ptr, csr_ind, csc_val, csc_ptr, csc_ind,
	                      type, action, base, alg);
	if (s != SUCCESS)
		return s;
	if (!spans(h, buffer, csr2csc_bytes(n)))
		return INVALID; /* the workspace the query asked for */
	transpose *t = malloc(sizeof *t);
	if (t == NULL)
		return ALLOC_FAILED;
	*t = (transpose){.m = m, .n = n, .nnz = nnz, .type = type, .action = action, .base = base,
	                 .csr_val = csr_val, .csr_ptr = csr_ptr, .csr_ind = csr_ind,
	                 .csc_val = csc_val, .csc_ptr = csc_ptr, .csc_ind = csc_ind, .next = buffer};
	return pbfake_enqueue(h->stream, run_csr2csc, t) == 0 ? SUCCESS : EXEC_FAILED;
}
