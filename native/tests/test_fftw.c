/*
 * test_fftw.c — the FFTW loader (native/fftw.c): in each precision, small
 * transforms (forward, backward, real-to-complex, 1-D batched and 2-D)
 * against a DFT in double under each planner flag, a threaded plan, wisdom
 * written and read back, refused arguments, a plan FFTW declines to make,
 * and the error of a library that is not there. Without FFTW the test is
 * skipped (77) unless PEAKBENCH_REQUIRE_LIBS names fftw.
 */
#include <unistd.h>

#include "peakbench_fftw.h"
#include "pb_test.h"

/* FFTW's planner flags (fftw3.h). */
enum { FLAG_MEASURE = 0, FLAG_PATIENT = 1u << 5, FLAG_ESTIMATE = 1u << 6, FLAG_WISDOM_ONLY = 1u << 21 };

/* dft1 transforms n complex values of x, stride s, into y (stride s), by the definition. */
static void dft1(const double *x, double *y, int n, int s, int sign)
{
	for (int k = 0; k < n; k++) {
		double re = 0, im = 0;
		for (int j = 0; j < n; j++) {
			double a = sign * 2 * M_PI * (double)((long)j * k % n) / n;
			double xr = x[2 * j * s], xi = x[2 * j * s + 1];
			re += xr * cos(a) - xi * sin(a);
			im += xr * sin(a) + xi * cos(a);
		}
		y[2 * k * s] = re, y[2 * k * s + 1] = im;
	}
}

/* ref writes the transforms of in (interleaved complex, or reals for R2C) in fftw.c's layout. */
static void ref(int kind, int rank, const int *dims, int batch, const double *in, double *out)
{
	int rows = rank == 1 ? 1 : dims[0], n = dims[rank - 1], pts = rows * n;
	int sign = kind == PB_FFTW_BACKWARD ? 1 : -1, orow = kind == PB_FFTW_R2C ? n / 2 + 1 : n;
	double *a = calloc((size_t)(2 * pts), sizeof *a), *b = calloc((size_t)(2 * pts), sizeof *b);
	for (int t = 0; t < batch; t++) {
		for (int i = 0; i < pts; i++) {
			a[2 * i] = kind == PB_FFTW_R2C ? in[t * pts + i] : in[2 * (t * pts + i)];
			a[2 * i + 1] = kind == PB_FFTW_R2C ? 0 : in[2 * (t * pts + i) + 1];
		}
		for (int r = 0; r < rows; r++)
			dft1(a + 2 * r * n, b + 2 * r * n, n, 1, sign);
		if (rows > 1) {
			for (int c = 0; c < n; c++)
				dft1(b + 2 * c, a + 2 * c, rows, n, sign);
			memcpy(b, a, (size_t)(2 * pts) * sizeof *a);
		}
		for (int r = 0; r < rows; r++)
			memcpy(out + 2 * (t * rows + r) * orow, b + 2 * r * n, (size_t)(2 * orow) * sizeof *b);
	}
	free(a);
	free(b);
}

/* check plans one transform, runs it and compares its output with ref's. */
static void check(pb_fftw *f, int f64, int kind, int rank, const int *dims, int batch, unsigned flags,
                  int threads)
{
	int rows = rank == 1 ? 1 : dims[0], n = dims[rank - 1], pts = rows * n;
	size_t nin = (size_t)(kind == PB_FFTW_R2C ? 1 : 2) * (size_t)(pts * batch);
	size_t nout = kind == PB_FFTW_R2C ? (size_t)(2 * batch * rows * (n / 2 + 1)) : nin;
	double *in = malloc(nin * sizeof *in), *got = malloc(nout * sizeof *got), *want = malloc(nout * sizeof *want);
	for (size_t i = 0; i < nin; i++)
		in[i] = f64 ? urand() : (double)(float)urand();
	char err[512] = "";
	double plan_ns = -1, ns = -1;
	pb_fftw_plan *p = NULL;
	pb_status st = pb_fftw_plan_new(f, kind, rank, dims, batch, flags, threads, 5, in, nin, nout, 2, &p,
	                                &plan_ns, err, sizeof err);
	CHECK(st == PB_OK, "f64=%d kind %d rank %d flags %u threads %d: %s", f64, kind, rank, flags, threads, err);
	if (st == PB_OK) {
		CHECK(plan_ns >= 0, "plan_ns %g", plan_ns);
		st = pb_fftw_run(p, 3, &ns, err, sizeof err);
		CHECK(st == PB_OK && ns > 0, "run: %s (ns %g)", err, ns);
		pb_fftw_output(p, got);
		ref(kind, rank, dims, batch, in, want);
		double diff = 0, norm = 0;
		for (size_t i = 0; i < nout; i++)
			diff += (got[i] - want[i]) * (got[i] - want[i]), norm += want[i] * want[i];
		double rel = sqrt(diff / norm), tol = f64 ? 1e-13 : 1e-5;
		CHECK(rel <= tol, "f64=%d kind %d rank %d n %d flags %u: relative L2 error %g > %g", f64, kind, rank,
		      n, flags, rel, tol);
		pb_fftw_plan_free(p);
	}
	free(in);
	free(got);
	free(want);
}

/* refused: calls that must fail, with the status each must give. */
static void refused(pb_fftw *f)
{
	double in[64] = {0}, plan_ns;
	char err[512];
	pb_fftw_plan *p = NULL;
	int zero[1] = {0}, eight[1] = {8}, three[3] = {2, 2, 2};
	pb_status st = pb_fftw_plan_new(f, PB_FFTW_FORWARD, 1, zero, 1, FLAG_ESTIMATE, 1, -1, in, 0, 0, 1, &p,
	                                &plan_ns, err, sizeof err);
	CHECK(st == PB_ERR_INVALID && p == NULL, "length 0: %s (%s)", pb_status_name(st), err);
	st = pb_fftw_plan_new(f, PB_FFTW_FORWARD, 3, three, 1, FLAG_ESTIMATE, 1, -1, in, 16, 16, 1, &p, &plan_ns,
	                      err, sizeof err);
	CHECK(st == PB_ERR_INVALID && p == NULL, "rank 3: %s (%s)", pb_status_name(st), err);
	/* 8 complex points are 16 reals: 8 would be read past. */
	st = pb_fftw_plan_new(f, PB_FFTW_FORWARD, 1, eight, 1, FLAG_ESTIMATE, 1, -1, in, 8, 16, 1, &p, &plan_ns,
	                      err, sizeof err);
	CHECK(st == PB_ERR_INVALID && p == NULL, "short input: %s (%s)", pb_status_name(st), err);
	st = pb_fftw_plan_new(f, PB_FFTW_R2C, 1, eight, 1, FLAG_ESTIMATE, 1, -1, in, 8, 16, 1, &p, &plan_ns, err,
	                      sizeof err);
	CHECK(st == PB_ERR_INVALID && p == NULL, "r2c of 8 writes 10 reals, not 16: %s (%s)", pb_status_name(st),
	      err);
	st = pb_fftw_plan_new(f, PB_FFTW_FORWARD, 1, eight, 0, FLAG_ESTIMATE, 1, -1, in, 0, 0, 1, &p, &plan_ns,
	                      err, sizeof err);
	CHECK(st == PB_ERR_INVALID && p == NULL, "batch 0: %s (%s)", pb_status_name(st), err);
	/* FFTW_WISDOM_ONLY with no wisdom for a prime length: FFTW makes no plan. */
	int prime[1] = {31};
	st = pb_fftw_plan_new(f, PB_FFTW_FORWARD, 1, prime, 1, FLAG_WISDOM_ONLY, 1, -1, in, 62, 62, 1, &p,
	                      &plan_ns, err, sizeof err);
	CHECK(st == PB_ERR_UNSUPPORTED && p == NULL && strstr(err, "no plan") != NULL, "wisdom only: %s (%s)",
	      pb_status_name(st), err);
}

/* wisdom writes the plans found to a file and reads them back. */
static void wisdom(pb_fftw *f)
{
	char path[] = "/tmp/pb_test_fftw_wisdom_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	close(fd);
	CHECK(pb_fftw_export_wisdom(f, path) == 1, "export wisdom to %s", path);
	CHECK(pb_fftw_import_wisdom(f, path) == 1, "import wisdom from %s", path);
	unlink(path);
}

/* missing: a library that is not there is PB_ERR_NOT_FOUND naming the file and the fix. */
static void missing(void)
{
	const char *vars[2] = {"PEAKBENCH_FFTW3F", "PEAKBENCH_FFTW3"};
	for (int f64 = 0; f64 < 2; f64++) {
		setenv(vars[f64], "/nonexistent/libfftw3-missing.so.3", 1);
		pb_fftw *f = NULL;
		char err[2048] = "";
		pb_status st = pb_fftw_open(f64, &f, err, sizeof err);
		CHECK(st == PB_ERR_NOT_FOUND && f == NULL, "f64=%d: %s (%s)", f64, pb_status_name(st), err);
		CHECK(strstr(err, "/nonexistent/libfftw3-missing.so.3") != NULL && strstr(err, vars[f64]) != NULL,
		      "the error names neither the file nor %s: %s", vars[f64], err);
		if (f != NULL)
			pb_fftw_close(f);
		unsetenv(vars[f64]);
	}
}

int main(void)
{
	int ran = 0;
	for (int f64 = 0; f64 < 2; f64++) {
		pb_fftw *f = NULL;
		char err[2048] = "";
		if (pb_fftw_open(f64, &f, err, sizeof err) != PB_OK) {
			if (required("fftw")) {
				fprintf(stderr, "FAIL: fftw required: %s\n", err);
				return 1;
			}
			fprintf(stderr, "skip f64=%d: %s\n", f64, err);
			continue;
		}
		ran++;
		printf("fftw %s (%s), threads %d\n", pb_fftw_version(f), pb_fftw_path(f), pb_fftw_has_threads(f));
		const unsigned flags[3] = {FLAG_ESTIMATE, FLAG_MEASURE, FLAG_PATIENT};
		int n12[1] = {12}, n10[1] = {10}, n7[1] = {7}, d2[2] = {4, 6}, d2r[2] = {3, 5};
		for (int i = 0; i < 3; i++) {
			check(f, f64, PB_FFTW_FORWARD, 1, n12, 2, flags[i], 1);
			check(f, f64, PB_FFTW_BACKWARD, 1, n7, 3, flags[i], 1);
			check(f, f64, PB_FFTW_R2C, 1, n10, 2, flags[i], 1);
			check(f, f64, PB_FFTW_FORWARD, 2, d2, 1, flags[i], 1);
			check(f, f64, PB_FFTW_R2C, 2, d2r, 2, flags[i], 1);
		}
		if (pb_fftw_has_threads(f)) {
			int n1k[1] = {1024};
			check(f, f64, PB_FFTW_FORWARD, 1, n1k, 1, FLAG_ESTIMATE, 2);
		}
		refused(f);
		wisdom(f);
		pb_fftw_close(f);
	}
	missing();
	if (ran == 0 && pb_failures == 0)
		return 77;
	if (pb_failures > 0)
		fprintf(stderr, "%d failure(s)\n", pb_failures);
	return pb_failures > 0;
}
