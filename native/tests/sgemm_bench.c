/*
 * pb_sgemm_bench — SGEMM n×n×n called straight from C: the library's own
 * cblas_sgemm, resolved with dlsym from the very dlopen handle peakbench's
 * loader made (pb_cblas_open finds the file and sets the thread count; the
 * timed loop then calls the vendor function pointer directly, with no
 * peakbench code in between). It is the baseline for the bridge overhead:
 * the same multiplication through Go (cgo/cblas's PrepareGemm + Run) should
 * come within a few percent.
 *
 * Buffers are placed as peakbench's jobs place them (64-byte aligned,
 * staggered by 576 bytes within a page), so only the bridge differs.
 *
 *   pb_sgemm_bench [-l openblas|blis|mkl|netlib] [-n 1024] [-t threads] [-i iters] [-r reps]
 *
 * Prints one line per repetition and a summary:
 *   RESULT lib=openblas version=0.3.21 n=1024 threads=2 best_gflops=... median_gflops=...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "peakbench.h"
#include "vendor/cblas.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static float *place(size_t n, int index, void **base)
{
	size_t off = ((size_t)index * 576) % 4096;
	if (posix_memalign(base, 4096, n * sizeof(float) + off) != 0)
		return NULL;
	float *p = (float *)((char *)*base + off);
	for (size_t i = 0; i < n; i++)
		p[i] = (float)((double)((i * 2654435761u) % 2001) / 1000.0 - 1.0);
	return p;
}

int main(int argc, char **argv)
{
	const char *name = "openblas";
	int n = 1024, threads = 0, iters = 10, reps = 5, opt;
	while ((opt = getopt(argc, argv, "l:n:t:i:r:")) != -1) {
		switch (opt) {
		case 'l':
			name = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'i':
			iters = atoi(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-l lib] [-n size] [-t threads] [-i iters] [-r reps]\n",
			        argv[0]);
			return 2;
		}
	}
	if (n < 1 || iters < 1 || reps < 1 || reps > 1000) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	char err[4096], info[4096];
	pb_cblas *lib = NULL;
	if (pb_cblas_open(name, NULL, &lib, NULL, 0, err, sizeof err) != PB_OK) {
		fprintf(stderr, "SKIP: %s\n", err);
		return 77;
	}
	if (threads > 0 && pb_cblas_set_threads(lib, threads, err, sizeof err) != PB_OK) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	pb_cblas_get_threads(lib, &threads, NULL, 0);
	pb_cblas_info(lib, info, sizeof info, NULL, 0);
	char path[4096] = "", version[256] = "";
	const char *p = strstr(info, "\npath=");
	if (p != NULL)
		sscanf(p + 6, "%4095[^\n]", path);
	p = strstr(info, "\nversion=");
	if (p != NULL)
		sscanf(p + 9, "%255[^\n]", version);

	/* The same handle: the file is loaded already, so dlopen returns it. */
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	cblas_sgemm_fn sgemm = dl != NULL ? (cblas_sgemm_fn)dlsym(dl, "cblas_sgemm") : NULL;
	if (sgemm == NULL) {
		fprintf(stderr, "cannot resolve cblas_sgemm in %s\n", path);
		return 1;
	}
	size_t nn = (size_t)n * (size_t)n;
	void *ba, *bb, *bc;
	float *a = place(nn, 0, &ba), *b = place(nn, 1, &bb), *c = place(nn, 2, &bc);
	if (a == NULL || b == NULL || c == NULL) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n); /* warm up */
	double *g = calloc((size_t)reps, sizeof *g);
	double flops = 2.0 * n * n * (double)n * iters;
	for (int r = 0; r < reps; r++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < iters; i++)
			sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
		g[r] = flops / s * 1e-9;
		printf("rep %d: %.1f GFLOP/s\n", r, g[r]);
	}
	qsort(g, (size_t)reps, sizeof *g, cmp);
	printf("RESULT lib=%s version=%s n=%d threads=%d iters=%d reps=%d best_gflops=%.2f "
	       "median_gflops=%.2f\n",
	       name, version, n, threads, iters, reps, g[reps - 1], g[reps / 2]);
	free(g);
	dlclose(dl);
	free(ba);
	free(bb);
	free(bc);
	pb_cblas_close(lib, NULL, 0);
	return 0;
}
