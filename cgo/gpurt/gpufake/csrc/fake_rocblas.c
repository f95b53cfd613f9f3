/*
 * fake_rocblas.c — a stand-in for rocBLAS (librocblas.so.4): handles and
 * column-major sgemm/dgemm computed naively on the fake HIP runtime's
 * host-backed device memory, with rocBLAS's operation enum (111 none, 112
 * transpose). Strict like the fake cuBLAS: device pointers of the handle's
 * device, leading dimensions at least the stored rows, and the handle's
 * device current on the calling thread. The work goes on the stream bound
 * to the handle (rocblas_set_stream; the default stream when none) and is
 * carried out when that stream is synchronized (fake_runtime.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

extern int pbfake_current_device(void);
extern int pbfake_device_of(const void *p);
extern int pbfake_enqueue(void *stream, void (*fn)(void *arg), void *arg);

enum {
	OK = 0,
	INVALID_HANDLE = 1,
	INVALID_POINTER = 3,
	INVALID_SIZE = 4,
	INTERNAL = 6,
	INVALID_VALUE = 11
};

typedef struct handle {
	int dev;
	void *stream;
} handle;

EXPORT int rocblas_create_handle(handle **h)
{
	*h = calloc(1, sizeof **h);
	if (*h == NULL)
		return INTERNAL;
	(*h)->dev = pbfake_current_device();
	return OK;
}

EXPORT int rocblas_destroy_handle(handle *h)
{
	if (h == NULL)
		return INVALID_HANDLE;
	free(h);
	return OK;
}

EXPORT int rocblas_set_stream(handle *h, void *s)
{
	if (h == NULL)
		return INVALID_HANDLE;
	h->stream = s;
	return OK;
}

EXPORT const char *rocblas_status_to_string(int s)
{
	switch (s) {
	case OK:
		return "rocblas_status_success";
	case INVALID_HANDLE:
		return "rocblas_status_invalid_handle";
	case INVALID_POINTER:
		return "rocblas_status_invalid_pointer";
	case INVALID_SIZE:
		return "rocblas_status_invalid_size";
	case INTERNAL:
		return "rocblas_status_internal_error";
	case INVALID_VALUE:
		return "rocblas_status_invalid_value";
	}
	return "unknown rocblas status";
}

EXPORT int rocblas_get_version_string(char *buf, size_t len)
{
	strncpy(buf, "4.2.0.fake", len);
	if (len > 0)
		buf[len - 1] = '\0';
	return OK;
}

/* A gemm's arguments, as enqueued (host scalars read at the call). */
typedef struct gemm_args {
	int ta, tb, m, n, k, lda, ldb, ldc;
	double alpha, beta;
	const void *A, *B;
	void *C;
} gemm_args;

#define GEMM(NAME, T)                                                                           \
	static void run_##NAME(void *p)                                                             \
	{                                                                                           \
		const gemm_args *g = p;                                                                 \
		const T *A = g->A, *B = g->B;                                                           \
		T *C = g->C;                                                                            \
		for (int j = 0; j < g->n; j++)                                                          \
			for (int i = 0; i < g->m; i++) {                                                    \
				T acc = 0;                                                                      \
				for (int q = 0; q < g->k; q++) {                                                \
					T a = g->ta == 112 ? A[q + (size_t)i * g->lda] : A[i + (size_t)q * g->lda];  \
					T b = g->tb == 112 ? B[j + (size_t)q * g->ldb] : B[q + (size_t)j * g->ldb];  \
					acc += a * b;                                                               \
				}                                                                               \
				T *c = &C[i + (size_t)j * g->ldc];                                              \
				*c = (T)g->alpha * acc + (g->beta != 0 ? (T)g->beta * *c : 0);                  \
			}                                                                                   \
	}                                                                                           \
	EXPORT int NAME(handle *h, int ta, int tb, int m, int n, int k, const T *alpha, const T *A,  \
	                int lda, const T *B, int ldb, const T *beta, T *C, int ldc)                  \
	{                                                                                           \
		if (h == NULL)                                                                          \
			return INVALID_HANDLE;                                                              \
		if (pbfake_current_device() != h->dev)                                                 \
			return INTERNAL;                                                                    \
		if ((ta != 111 && ta != 112) || (tb != 111 && tb != 112))                               \
			return INVALID_VALUE;                                                               \
		int arows = ta == 112 ? k : m, brows = tb == 112 ? n : k;                               \
		if (m < 0 || n < 0 || k < 0 || lda < (arows > 1 ? arows : 1) ||                          \
		    ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1))                             \
			return INVALID_SIZE;                                                                \
		if (pbfake_device_of(A) != h->dev || pbfake_device_of(B) != h->dev ||                    \
		    pbfake_device_of(C) != h->dev)                                                      \
			return INVALID_POINTER;                                                             \
		gemm_args *g = malloc(sizeof *g);                                                       \
		if (g == NULL)                                                                          \
			return INTERNAL;                                                                    \
		*g = (gemm_args){ta, tb, m, n, k, lda, ldb, ldc, *alpha, *beta, A, B, C};              \
		return pbfake_enqueue(h->stream, run_##NAME, g) == 0 ? OK : INTERNAL;                   \
	}

GEMM(rocblas_sgemm, float)
GEMM(rocblas_dgemm, double)
