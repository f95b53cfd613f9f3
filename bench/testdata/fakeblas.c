/* A fake OpenBLAS for the fault-injection tests (faults_test.go): the
 * symbols peakbench resolves for the openblas family, with a correct naive
 * GEMM, that misbehaves on its FAKE_AT-th GEMM call (1 by default) as
 * FAKE_MODE says: segv (a write through a null pointer), abort, exit (exit
 * status 7), hang (never returns, after creating the file FAKE_MARK names,
 * if any), wrong (every result from then on is off by one in its first
 * element), nan (every result from then on is NaN in its first element),
 * leak (every call from then on takes 32 MiB, touched and never freed), or
 * threads (exit status 40 + the count openblas_set_num_threads last set:
 * what peakbench asked the library for). With FAKE_SIZE set, only GEMMs of that many rows count: the
 * workloads before it run correctly. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int calls;
static volatile char *volatile leaked; /* the last leak, reachable: not optimised away */
static int threads = 1;

/* misbehave runs before each GEMM; it returns 1 when the result must be
 * made wrong, 2 when it must be NaN. */
static int misbehave(int m)
{
	const char *mode = getenv("FAKE_MODE");
	const char *at = getenv("FAKE_AT");
	const char *size = getenv("FAKE_SIZE");
	int n = at != NULL ? atoi(at) : 1;
	if (mode == NULL || (size != NULL && atoi(size) != m) || ++calls < n)
		return 0;
	switch (mode[0]) {
	case 's':
		fprintf(stderr, "fakeblas: segfault on call %d\n", calls);
		*(volatile int *)0 = 1;
		break;
	case 'a':
		fprintf(stderr, "fakeblas: abort on call %d\n", calls);
		abort();
	case 'e':
		fprintf(stderr, "fakeblas: exit on call %d\n", calls);
		exit(7);
	case 'h':
		if (getenv("FAKE_MARK") != NULL)
			fclose(fopen(getenv("FAKE_MARK"), "w"));
		for (;;)
			pause();
	case 'w':
		return 1;
	case 'n':
		return 2;
	case 'l': {
		size_t n = 32u << 20;
		volatile char *p = malloc(n); /* volatile: the stores are not elided */
		for (size_t i = 0; p != NULL && i < n; i += 4096)
			p[i] = 1; /* resident, and never freed */
		leaked = p;
		return 0;
	}
	case 't':
		fprintf(stderr, "fakeblas: exit with the thread count\n");
		exit(40 + threads);
	}
	return 0;
}

/* at reads element (i, j) of op(X), X stored in order (101 row-major, 102
 * column-major) with leading dimension ld, transposed when t is 112/113. */
#define AT(X, ld, i, j, order, t)                                                                  \
	((t) != 111 ? ((order) == 101 ? (X)[(j) * (ld) + (i)] : (X)[(i) * (ld) + (j)])               \
	            : ((order) == 101 ? (X)[(i) * (ld) + (j)] : (X)[(j) * (ld) + (i)]))

#define GEMM(name, T)                                                                              \
	void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda,       \
	          const T *b, int ldb, T beta, T *c, int ldc)                                           \
	{                                                                                              \
		int wrong = misbehave(m);                                                                        \
		for (int i = 0; i < m; i++)                                                                \
			for (int j = 0; j < n; j++) {                                                          \
				T s = 0;                                                                           \
				for (int p = 0; p < k; p++)                                                        \
					s += AT(a, lda, i, p, order, ta) * AT(b, ldb, p, j, order, tb);                \
				T *cij = order == 101 ? &c[i * ldc + j] : &c[j * ldc + i];                         \
				*cij = alpha * s + (beta != 0 ? beta * *cij : 0);                                  \
			}                                                                                      \
		if (wrong && m > 0 && n > 0)                                                               \
			c[0] = wrong == 2 ? (T)NAN : c[0] + 1;                                                 \
	}
GEMM(cblas_sgemm, float)
GEMM(cblas_dgemm, double)

/* The other entry points peakbench requires; the tests run gemm alone. */
void cblas_sgemv(void) {}
void cblas_dgemv(void) {}
void cblas_saxpy(void) {}
void cblas_daxpy(void) {}
float cblas_sdot(void) { return 0; }
double cblas_ddot(void) { return 0; }

void openblas_set_num_threads(int n) { threads = n; }
int openblas_get_num_threads(void) { return threads; }
