/*
 * test_cblas — the CBLAS layer from C: every installed library against a
 * naive reference (gemm in all transposes, gemv with strides, axpy, dot,
 * timed jobs, MKL's VML), and the loader's failures: a missing file, a file
 * that is not a BLAS, a library missing cblas_sgemm, bad thread counts,
 * bad arguments (which must never reach the library: the reference CBLAS
 * exits on them). A library that is not installed is skipped, unless
 * PEAKBENCH_REQUIRE_LIBS names it.
 */
#include <dlfcn.h>

#include "peakbench.h"
#include "pb_test.h"
#include "../pb_internal.h" /* the rows, checked whole by test_rows */

#ifndef PB_FAKE_CBLAS
#error "build with -DPB_FAKE_CBLAS=\"path of the fake library\""
#endif

static char err[4096];
static char tried[16384];

static void naive_gemm(int ta, int tb, int m, int n, int k, const double *a, const double *b,
                       double *c, double *scale)
{
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double s = 0, abs = 0;
			for (int p = 0; p < k; p++) {
				double x = ta ? a[p * m + i] : a[i * k + p];
				double y = tb ? b[j * k + p] : b[p * n + j];
				s += x * y;
				abs += fabs(x * y);
			}
			c[i * n + j] = s;
			scale[i * n + j] = abs;
		}
}

static void test_gemm(pb_cblas *lib, const char *name)
{
	enum { M = 5, N = 7, K = 9 };
	double a[M * K], b[K * N], want[M * N], scale[M * N], cd[M * N];
	float as[M * K], bs[K * N], cs[M * N];
	for (int i = 0; i < M * K; i++)
		as[i] = (float)(a[i] = (float)urand());
	for (int i = 0; i < K * N; i++)
		bs[i] = (float)(b[i] = (float)urand());
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++) {
			naive_gemm(ta, tb, M, N, K, a, b, want, scale);
			for (int i = 0; i < M * N; i++)
				cd[i] = cs[i] = NAN; /* beta = 0: C must not be read */
			pb_status st = pb_cblas_dgemm(lib, ta, tb, M, N, K, 1.0, a, ta ? M : K, b, tb ? K : N,
			                              0.0, cd, N, err, sizeof err);
			CHECK(st == PB_OK, "%s dgemm: %s", name, err);
			st = pb_cblas_sgemm(lib, ta, tb, M, N, K, 1.0f, as, ta ? M : K, bs, tb ? K : N, 0.0f,
			                    cs, N, err, sizeof err);
			CHECK(st == PB_OK, "%s sgemm: %s", name, err);
			for (int i = 0; i < M * N; i++) {
				CHECK(fabs(cd[i] - want[i]) <= 1e-14 * scale[i] + 1e-300, "%s dgemm %d%d [%d] %g want %g",
				      name, ta, tb, i, cd[i], want[i]);
				CHECK(fabs(cs[i] - want[i]) <= 1e-6 * scale[i] + 1e-30, "%s sgemm %d%d [%d] %g want %g",
				      name, ta, tb, i, cs[i], want[i]);
			}
		}
	/* Bad arguments are refused before the library sees them. */
	CHECK(pb_cblas_dgemm(lib, 0, 0, M, N, K, 1, a, K - 1, b, N, 0, cd, N, err, sizeof err) ==
	          PB_ERR_INVALID,
	      "%s: lda < k accepted", name);
	CHECK(strstr(err, "lda") != NULL, "message %s", err);
	CHECK(pb_cblas_sgemm(lib, 2, 0, M, N, K, 1, as, K, bs, N, 0, cs, N, err, sizeof err) ==
	          PB_ERR_INVALID,
	      "%s: transpose 2 accepted", name);
	CHECK(pb_cblas_sgemm(lib, 0, 0, -1, N, K, 1, as, K, bs, N, 0, cs, N, NULL, 0) == PB_ERR_INVALID,
	      "%s: m < 0 accepted", name);
	CHECK(pb_cblas_sgemm(NULL, 0, 0, M, N, K, 1, as, K, bs, N, 0, cs, N, err, sizeof err) ==
	          PB_ERR_INVALID,
	      "NULL library accepted");
}

static void test_level12(pb_cblas *lib, const char *name)
{
	enum { M = 6, N = 11 };
	double a[M * N], x[2 * N], y[2 * M];
	float as[M * N], xs[2 * N], ys[2 * M];
	for (int i = 0; i < M * N; i++)
		as[i] = (float)(a[i] = (float)urand());
	for (int i = 0; i < 2 * N; i++)
		xs[i] = (float)(x[i] = (float)urand());
	/* y = A·x with incx = 2, incy = -1 (y reversed in memory) */
	for (int i = 0; i < M; i++)
		y[i] = ys[i] = NAN;
	CHECK(pb_cblas_dgemv(lib, PB_NO_TRANS, M, N, 1, a, N, x, 2, 0, y, -1, err, sizeof err) == PB_OK,
	      "%s dgemv: %s", name, err);
	CHECK(pb_cblas_sgemv(lib, PB_NO_TRANS, M, N, 1, as, N, xs, 2, 0, ys, -1, err, sizeof err) ==
	          PB_OK,
	      "%s sgemv: %s", name, err);
	for (int i = 0; i < M; i++) {
		double s = 0;
		for (int j = 0; j < N; j++)
			s += a[i * N + j] * x[2 * j];
		CHECK(fabs(y[M - 1 - i] - s) < 1e-13, "%s dgemv y[%d] %g want %g", name, i, y[M - 1 - i], s);
		CHECK(fabs(ys[M - 1 - i] - s) < 1e-5, "%s sgemv y[%d] %g want %g", name, i, ys[M - 1 - i], s);
	}
	/* y = Aᵀ·x */
	double yt[N];
	CHECK(pb_cblas_dgemv(lib, PB_TRANS, M, N, 1, a, N, x, 1, 0, yt, 1, err, sizeof err) == PB_OK,
	      "%s dgemv T: %s", name, err);
	for (int j = 0; j < N; j++) {
		double s = 0;
		for (int i = 0; i < M; i++)
			s += a[i * N + j] * x[i];
		CHECK(fabs(yt[j] - s) < 1e-13, "%s dgemv T y[%d] %g want %g", name, j, yt[j], s);
	}
	CHECK(pb_cblas_dgemv(lib, PB_NO_TRANS, M, N, 1, a, N, x, 0, 0, y, 1, err, sizeof err) ==
	          PB_ERR_INVALID,
	      "%s: incx 0 accepted", name);

	double d, dy[N];
	float s;
	for (int i = 0; i < N; i++)
		dy[i] = 1;
	CHECK(pb_cblas_daxpy(lib, N, 0.75, x, 1, dy, 1, err, sizeof err) == PB_OK, "%s daxpy", name);
	for (int i = 0; i < N; i++)
		CHECK(fabs(dy[i] - (0.75 * x[i] + 1)) <= 1e-15, "%s daxpy [%d] %g", name, i, dy[i]);
	float sy[N];
	for (int i = 0; i < N; i++)
		sy[i] = 1;
	CHECK(pb_cblas_saxpy(lib, N, 0.75f, xs, 1, sy, 1, err, sizeof err) == PB_OK, "%s saxpy", name);
	for (int i = 0; i < N; i++)
		CHECK(fabsf(sy[i] - (0.75f * xs[i] + 1)) <= 4e-7f, "%s saxpy [%d] %g", name, i, sy[i]);
	double want = 0;
	for (int i = 0; i < N; i++)
		want += x[i] * x[2 * i];
	CHECK(pb_cblas_ddot(lib, N, x, 1, x, 2, &d, err, sizeof err) == PB_OK, "%s ddot", name);
	CHECK(fabs(d - want) < 1e-13, "%s ddot %g want %g", name, d, want);
	CHECK(pb_cblas_sdot(lib, N, xs, 1, xs, 2, &s, err, sizeof err) == PB_OK, "%s sdot", name);
	CHECK(fabs(s - want) < 1e-5, "%s sdot %g want %g", name, s, want);
	CHECK(pb_cblas_ddot(lib, -1, x, 1, x, 1, &d, err, sizeof err) == PB_ERR_INVALID,
	      "%s: n < 0 accepted", name);
}

/* one_thread reports whether the row of name has no thread control. */
static int one_thread(const char *name)
{
	pb_cblas_family_info f;
	for (int i = 0; pb_cblas_family(i, &f); i++)
		if (strcmp(f.name, name) == 0)
			return f.one_thread;
	return 0;
}

static void test_threads(pb_cblas *lib, const char *name)
{
	CHECK(pb_cblas_set_threads(lib, 0, err, sizeof err) == PB_ERR_INVALID, "%s: 0 threads", name);
	CHECK(strstr(err, "accepted: 1 to 1024") != NULL, "message %s", err);
	CHECK(pb_cblas_set_threads(lib, 10000, err, sizeof err) == PB_ERR_INVALID, "%s: 10000", name);
	CHECK(pb_cblas_set_threads(lib, -3, err, sizeof err) == PB_ERR_INVALID, "%s: -3", name);
	int n = 0;
	CHECK(pb_cblas_set_threads(lib, 1, err, sizeof err) == PB_OK, "%s: 1 thread: %s", name, err);
	CHECK(pb_cblas_get_threads(lib, &n, err, sizeof err) == PB_OK && n == 1, "%s: %d", name, n);
	pb_status st = pb_cblas_set_threads(lib, 2, err, sizeof err);
	if (one_thread(name))
		CHECK(st == PB_ERR_UNSUPPORTED && strstr(err, "1 thread only") != NULL,
		      "%s: 2 threads: %d %s", name, st, err);
	else
		CHECK(st == PB_OK, "%s: 2 threads: %s", name, err);
}

static void test_jobs(pb_cblas *lib, const char *name)
{
	pb_job_opts o = {3, 1};
	pb_job *j = NULL;
	/* gemm NT, 2×3×2 */
	CHECK(pb_cblas_job_gemm(lib, PB_F32, PB_NO_TRANS, PB_TRANS, 2, 3, 2, &o, &j, err, sizeof err) ==
	          PB_OK,
	      "%s gemm job: %s", name, err);
	if (j != NULL) {
		double a[] = {1, 2, 3, 4}, b[] = {1, 2, 3, 4, 5, 6}, c[6];
		double want[] = {5, 11, 17, 11, 25, 39};
		CHECK(pb_job_output(j, c, 6, err, sizeof err) == PB_ERR_INVALID, "output before run");
		CHECK(pb_job_set_input(j, 0, a, 4, err, sizeof err) == PB_OK, "set A: %s", err);
		CHECK(pb_job_set_input(j, 1, b, 6, err, sizeof err) == PB_OK, "set B: %s", err);
		CHECK(pb_job_set_input(j, 1, b, 5, err, sizeof err) == PB_ERR_INVALID, "short B");
		CHECK(pb_job_set_input(j, 7, b, 6, err, sizeof err) == PB_ERR_INVALID, "arg 7");
		int64_t ns = -1;
		CHECK(pb_job_run(j, 7, &ns, err, sizeof err) == PB_OK && ns > 0, "run: %s", err);
		CHECK(pb_job_run(j, -1, &ns, err, sizeof err) == PB_ERR_INVALID, "run -1");
		CHECK(pb_job_output(j, c, 6, err, sizeof err) == PB_OK, "output: %s", err);
		for (int i = 0; i < 6; i++)
			CHECK(c[i] == want[i], "%s gemm job [%d] %g want %g", name, i, c[i], want[i]);
		pb_job_free(j);
	}
	/* axpy accumulates: Output after Run(1) is alpha·x + y. */
	j = NULL;
	CHECK(pb_cblas_job_axpy(lib, PB_F64, 3, 0.5, &o, &j, err, sizeof err) == PB_OK, "axpy job: %s",
	      err);
	if (j != NULL) {
		double x[] = {2, 4, 6}, y[] = {1, 1, 1}, out[3];
		int64_t ns;
		pb_job_set_input(j, 0, x, 3, NULL, 0);
		pb_job_set_input(j, 1, y, 3, NULL, 0);
		CHECK(pb_job_run(j, 1, &ns, err, sizeof err) == PB_OK, "axpy run");
		CHECK(pb_job_output(j, out, 3, err, sizeof err) == PB_OK, "axpy output");
		CHECK(out[0] == 2 && out[1] == 3 && out[2] == 4, "%s axpy %g %g %g", name, out[0], out[1],
		      out[2]);
		pb_job_free(j);
	}
	j = NULL;
	CHECK(pb_cblas_job_dot(lib, PB_F64, 3, &o, &j, err, sizeof err) == PB_OK, "dot job: %s", err);
	if (j != NULL) {
		double x[] = {2, 4, 6}, y[] = {1, -1, 2}, r;
		int64_t ns;
		pb_job_set_input(j, 0, x, 3, NULL, 0);
		pb_job_set_input(j, 1, y, 3, NULL, 0);
		CHECK(pb_job_run(j, 5, &ns, err, sizeof err) == PB_OK, "dot run");
		CHECK(pb_job_output(j, &r, 1, err, sizeof err) == PB_OK && r == 10, "%s dot %g", name, r);
		pb_job_free(j);
	}
	j = NULL;
	pb_job_opts bad = {0, 10000};
	CHECK(pb_cblas_job_dot(lib, PB_F64, 3, &bad, &j, err, sizeof err) == PB_ERR_INVALID && j == NULL,
	      "%s: job with 10000 threads", name);
	bad.threads = 1;
	bad.copies = -2;
	CHECK(pb_cblas_job_dot(lib, PB_F64, 3, &bad, &j, err, sizeof err) == PB_ERR_INVALID && j == NULL,
	      "%s: job with -2 copies", name);
	CHECK(pb_cblas_job_gemm(lib, PB_F64, 0, 0, 0, 3, 3, &o, &j, err, sizeof err) == PB_ERR_INVALID,
	      "%s: gemm job m=0", name);
}

/*
 * test_lowp runs every low-precision gemm lib exports, in every transpose,
 * on odd sizes, against the exact result: the inputs are small integers
 * (bf16 and f16 hold them exactly, and their f32 sums are exact), so every
 * element must match. A type the library lacks must be refused as
 * unsupported; mkl must have bf16, i8 and u8s8 (MKL 2018 and later).
 */
static double urand01(void) { return (urand() + 1) / 2; }

static void test_lowp(pb_cblas *lib, const char *name)
{
	static const struct {
		pb_lowp dt;
		int alo, ahi, blo, bhi; /* the operands' ranges */
	} types[] = {
		{PB_LOWP_BF16, -8, 8, -8, 8},
		{PB_LOWP_F16, -8, 8, -8, 8},
		{PB_LOWP_I8, -128, 127, -128, 127},
		{PB_LOWP_U8S8, 0, 255, -128, 127},
	};
	enum { M = 13, N = 7, K = 67 };
	double a[M * K], b[K * N], want[M * N], scale[M * N], c[M * N];
	int is_mkl = strcmp(name, "mkl") == 0;
	/* A cap lowers MKL's path only where it picks one by the CPU's features:
	 * on a non-Intel CPU it runs its generic path (processor without AVX),
	 * whose s8u8s32 is exact whatever MKL_ENABLE_INSTRUCTIONS says. */
	int mkl_by_features = 0;
	static char info[8192];
	if (is_mkl && pb_cblas_info(lib, info, sizeof info, err, sizeof err) == PB_OK) {
		const char *p = strstr(info, "processor=");
		const char *end = p != NULL ? strchr(p, '\n') : NULL;
		for (const char *q = p; q != NULL && (end == NULL || q < end) && *q != '\0'; q++)
			if (strncmp(q, "AVX", 3) == 0) {
				mkl_by_features = 1;
				break;
			}
	}
	for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
		pb_lowp dt = types[t].dt;
		pb_job *j = NULL;
		pb_job_opts o = {2, 1};
		if (!pb_cblas_lowp_has(lib, dt)) {
			CHECK(!is_mkl || dt == PB_LOWP_F16, "mkl lacks low-precision type %d", (int)dt);
			CHECK(pb_cblas_job_gemm_lowp(lib, dt, 0, 0, M, N, K, &o, &j, err, sizeof err) ==
			              PB_ERR_UNSUPPORTED &&
			          j == NULL,
			      "%s: type %d without its routine accepted", name, (int)dt);
			CHECK(strcmp(pb_cblas_lowp_routine(lib, dt), "") == 0, "%s: routine of absent type",
			      name);
			continue;
		}
		printf("%s: low-precision type %d by %s\n", name, (int)dt, pb_cblas_lowp_routine(lib, dt));
		/* MKL capped to AVX2 has no VNNI: its s8u8s32 saturates, s16s16s32 runs instead. */
		const char *cap = getenv("MKL_ENABLE_INSTRUCTIONS");
		if (is_mkl && mkl_by_features && cap != NULL && strcmp(cap, "AVX2") == 0 &&
		    (dt == PB_LOWP_I8 || dt == PB_LOWP_U8S8))
			CHECK(strcmp(pb_cblas_lowp_routine(lib, dt), "cblas_gemm_s16s16s32") == 0,
			      "mkl on AVX2: type %d by %s", (int)dt, pb_cblas_lowp_routine(lib, dt));
		for (int i = 0; i < M * K; i++)
			a[i] = types[t].alo + (int)(urand01() * (types[t].ahi - types[t].alo + 1));
		for (int i = 0; i < K * N; i++)
			b[i] = types[t].blo + (int)(urand01() * (types[t].bhi - types[t].blo + 1));
		a[0] = types[t].alo; /* the extremes, where a wrong signedness or offset shows */
		a[1] = types[t].ahi;
		b[0] = types[t].blo;
		b[1] = types[t].bhi;
		for (int ta = 0; ta < 2; ta++)
			for (int tb = 0; tb < 2; tb++) {
				naive_gemm(ta, tb, M, N, K, a, b, want, scale);
				j = NULL;
				CHECK(pb_cblas_job_gemm_lowp(lib, dt, ta, tb, M, N, K, &o, &j, err, sizeof err) ==
				          PB_OK,
				      "%s lowp %d job: %s", name, (int)dt, err);
				if (j == NULL)
					continue;
				CHECK(pb_job_set_input(j, 0, a, M * K, err, sizeof err) == PB_OK, "set A: %s", err);
				CHECK(pb_job_set_input(j, 1, b, K * N, err, sizeof err) == PB_OK, "set B: %s", err);
				int64_t ns;
				CHECK(pb_job_run(j, 3, &ns, err, sizeof err) == PB_OK, "run: %s", err);
				CHECK(pb_job_output(j, c, M * N, err, sizeof err) == PB_OK, "output: %s", err);
				for (int i = 0; i < M * N; i++)
					CHECK(c[i] == want[i], "%s lowp %d %d%d [%d] %g want %g", name, (int)dt, ta, tb, i,
					      c[i], want[i]);
				char desc[256];
				pb_job_describe(j, desc, sizeof desc, NULL, 0);
				CHECK(strstr(desc, pb_cblas_lowp_routine(lib, dt)) != NULL, "desc %s", desc);
				if (dt == PB_LOWP_I8 && strstr(desc, "cblas_gemm_s8u8s32") != NULL)
					CHECK(strstr(desc, "oa=-128") != NULL, "i8 desc %s", desc);
				pb_job_free(j);
			}
		/* An integer operand out of its range, or not an integer, is refused. */
		if (dt == PB_LOWP_I8 || dt == PB_LOWP_U8S8) {
			j = NULL;
			pb_cblas_job_gemm_lowp(lib, dt, 0, 0, 1, 1, 2, &o, &j, err, sizeof err);
			if (j != NULL) {
				double bad[] = {dt == PB_LOWP_I8 ? 128 : 256, 0}, half[] = {0.5, 0};
				CHECK(pb_job_set_input(j, 0, bad, 2, err, sizeof err) == PB_ERR_INVALID,
				      "%s: %g accepted as type %d", name, bad[0], (int)dt);
				CHECK(pb_job_set_input(j, 1, half, 2, err, sizeof err) == PB_ERR_INVALID,
				      "%s: 0.5 accepted as s8", name);
				pb_job_free(j);
			}
		}
	}
	pb_job *j = NULL;
	CHECK(pb_cblas_job_gemm_lowp(lib, (pb_lowp)9, 0, 0, 2, 2, 2, NULL, &j, err, sizeof err) ==
	          PB_ERR_INVALID,
	      "%s: low-precision type 9", name);
	CHECK(pb_cblas_job_gemm_lowp(lib, PB_LOWP_BF16, 0, 0, 0, 2, 2, NULL, &j, err, sizeof err) !=
	          PB_OK,
	      "%s: lowp m=0", name);
}

static void test_vml(pb_cblas *lib)
{
	static const pb_vml_op ops[] = {PB_VML_ADD, PB_VML_MUL, PB_VML_EXP, PB_VML_TANH};
	enum { N = 37 };
	double x[N], y[N], out[N];
	for (int i = 0; i < N; i++) {
		x[i] = (float)(8 * urand());
		y[i] = (float)urand();
	}
	for (int d = 0; d < 2; d++)
		for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
			pb_dtype dt = d ? PB_F64 : PB_F32;
			pb_job_opts o = {2, 2};
			pb_job *j = NULL;
			CHECK(pb_mkl_job_vml(lib, ops[k], dt, N, &o, &j, err, sizeof err) == PB_OK, "vml %d: %s",
			      (int)ops[k], err);
			if (j == NULL)
				continue;
			int64_t ns;
			pb_job_set_input(j, 0, x, N, NULL, 0);
			if (ops[k] == PB_VML_ADD || ops[k] == PB_VML_MUL)
				pb_job_set_input(j, 1, y, N, NULL, 0);
			CHECK(pb_job_run(j, 3, &ns, err, sizeof err) == PB_OK, "vml run: %s", err);
			CHECK(pb_job_output(j, out, N, err, sizeof err) == PB_OK, "vml output: %s", err);
			double tol = d ? 1e-14 : 1e-6;
			for (int i = 0; i < N; i++) {
				double want = ops[k] == PB_VML_ADD   ? x[i] + y[i]
				              : ops[k] == PB_VML_MUL ? x[i] * y[i]
				              : ops[k] == PB_VML_EXP ? exp(x[i])
				                                     : tanh(x[i]);
				CHECK(fabs(out[i] - want) <= tol * fabs(want) + 1e-300, "vml op %d dt %d [%d] %g want %g",
				      (int)ops[k], (int)dt, i, out[i], want);
			}
			pb_job_free(j);
		}
	pb_job *j = NULL;
	CHECK(pb_mkl_job_vml(lib, PB_VML_SIGMOID, PB_F32, N, NULL, &j, err, sizeof err) ==
	          PB_ERR_UNSUPPORTED,
	      "vml sigmoid");
	CHECK(strstr(err, "sigmoid") != NULL, "message %s", err);
}

static void test_library(const char *name)
{
	pb_cblas *lib = NULL;
	pb_status st = pb_cblas_open(name, NULL, &lib, tried, sizeof tried, err, sizeof err);
	if (st != PB_OK) {
		if (required(name)) {
			CHECK(st == PB_OK, "PEAKBENCH_REQUIRE_LIBS names %s: %s", name, err);
		} else {
			printf("SKIP %s: %s\n", name, err);
		}
		return;
	}
	char info[4096];
	CHECK(pb_cblas_info(lib, info, sizeof info, err, sizeof err) == PB_OK, "info");
	printf("== %s\n%s", name, info);
	CHECK(strstr(info, "version=") != NULL && strstr(info, "path=/") != NULL, "info %s", info);
	test_threads(lib, name);
	test_gemm(lib, name);
	test_level12(lib, name);
	test_jobs(lib, name);
	test_lowp(lib, name);
	if (strcmp(name, "mkl") == 0)
		test_vml(lib);
	else
		CHECK(pb_mkl_vml_has(lib, PB_VML_ADD, PB_F32) == 0, "%s has VML?", name);
	CHECK(pb_cblas_close(lib, err, sizeof err) == PB_OK, "close");
}

static void test_load_errors(void)
{
	pb_cblas *lib = NULL;
	pb_status st = pb_cblas_open("openblas", "/nonexistent/libopenblas.so.0", &lib, tried,
	                             sizeof tried, err, sizeof err);
	CHECK(st == PB_ERR_NOT_FOUND && lib == NULL, "missing file: %d", st);
	CHECK(strstr(err, "/nonexistent/libopenblas.so.0") != NULL && strstr(err, "No such file") != NULL,
	      "message %s", err);
	CHECK(strstr(err, "install libopenblas-dev") != NULL, "hint %s", err);
	CHECK(strncmp(tried, "/nonexistent/libopenblas.so.0: ", 31) == 0, "tried %s", tried);

	st = pb_cblas_open("openblas", "/lib/x86_64-linux-gnu/libm.so.6", &lib, NULL, 0, err,
	                   sizeof err);
	CHECK(st == PB_ERR_SYMBOL && lib == NULL, "libm: %d %s", st, err);
	CHECK(strstr(err, "cblas_sgemm") != NULL, "message %s", err);

	st = pb_cblas_open("openblas", PB_FAKE_CBLAS, &lib, NULL, 0, err, sizeof err);
	CHECK(st == PB_ERR_SYMBOL && lib == NULL, "fake: %d %s", st, err);
	CHECK(strstr(err, "missing symbol cblas_sgemm") != NULL && strstr(err, "cblas_dgemm") == NULL,
	      "message %s", err);

	st = pb_cblas_open("nosuchblas", NULL, &lib, NULL, 0, err, sizeof err);
	CHECK(st == PB_ERR_INVALID && strstr(err, "accepted: openblas, blis") != NULL, "unknown: %s",
	      err);
	CHECK(pb_cblas_open("openblas", NULL, NULL, NULL, 0, err, sizeof err) == PB_ERR_INVALID,
	      "NULL out");

	/* A tiny error buffer truncates, never overflows. */
	char small[8];
	st = pb_cblas_open("openblas", "/nonexistent/x.so", &lib, NULL, 0, small, sizeof small);
	CHECK(st == PB_ERR_NOT_FOUND && strlen(small) == sizeof small - 1, "small buffer '%s'", small);

	/* PEAKBENCH_NETLIB naming OpenBLAS is refused. */
	pb_cblas *ob = NULL;
	if (pb_cblas_open("openblas", NULL, &ob, NULL, 0, err, sizeof err) == PB_OK) {
		char info[4096], path[4096] = "";
		pb_cblas_info(ob, info, sizeof info, NULL, 0);
		const char *p = strstr(info, "\npath=");
		if (p != NULL)
			sscanf(p + 6, "%4095[^\n]", path);
		setenv("PEAKBENCH_NETLIB", path, 1);
		st = pb_cblas_open("netlib", NULL, &lib, NULL, 0, err, sizeof err);
		CHECK(st != PB_OK && strstr(err, "is OpenBLAS") != NULL, "netlib impostor: %s", err);
		unsetenv("PEAKBENCH_NETLIB");
		pb_cblas_close(ob, NULL, 0);
	}

	/* NULL handles everywhere. */
	int64_t ns;
	CHECK(pb_job_run(NULL, 1, &ns, err, sizeof err) == PB_ERR_INVALID, "run NULL");
	CHECK(pb_job_output(NULL, NULL, 0, err, sizeof err) == PB_ERR_INVALID, "output NULL");
	CHECK(pb_cblas_set_threads(NULL, 1, err, sizeof err) == PB_ERR_INVALID, "threads NULL");
	pb_job_free(NULL);
	CHECK(strcmp(pb_status_name(PB_ERR_VERSION), "PB_ERR_VERSION") == 0, "status name");
}

/*
 * test_after_mkl: MKL has put its Fortran BLAS and libiomp5 in the global
 * scope. Without RTLD_DEEPBIND (sanitizer builds) a library loaded now would
 * call them instead of its own, so the loader must refuse it; with
 * DEEPBIND it loads and runs its own code.
 */
static void test_after_mkl(void)
{
	pb_cblas *lib = NULL;
	pb_status st = pb_cblas_open("netlib", NULL, &lib, NULL, 0, err, sizeof err);
	if (st == PB_ERR_NOT_FOUND)
		return;
#if defined(__SANITIZE_ADDRESS__)
	CHECK(st == PB_ERR_LIBRARY && strstr(err, "would call sgemm_") != NULL,
	      "netlib after MKL without DEEPBIND: %d %s", st, err);
#else
	CHECK(st == PB_OK, "netlib after MKL: %s", err);
#endif
	if (lib != NULL) {
		test_gemm(lib, "netlib after mkl");
		pb_cblas_close(lib, NULL, 0);
	}
}

/*
 * test_rows checks the table every CBLAS is a row of: what the Go packages
 * show and the loader needs is there, the hooks come in the pairs cblas.c
 * calls, and each family symbol has a slot of its own.
 */
static void test_rows(void)
{
	CHECK(pb_cblas_family_count() == pb_cblas_nrows && pb_cblas_nrows >= 4, "%d rows",
	      pb_cblas_nrows);
	pb_cblas_family_info f;
	CHECK(!pb_cblas_family(-1, &f) && !pb_cblas_family(pb_cblas_nrows, &f), "out of range");
	for (int i = 0; i < pb_cblas_nrows; i++) {
		const pb_cblas_row *r = &pb_cblas_rows[i];
		CHECK(pb_cblas_family(i, &f) && f.name == r->name, "row %d", i);
		const char *n = r->name;
		CHECK(n != NULL && n[0] != '\0' && strlen(n) < sizeof(((pb_cblas *)0)->name), "row %d name", i);
		if (n == NULL)
			continue;
		for (int j = 0; j < i; j++)
			CHECK(strcmp(pb_cblas_rows[j].name, n) != 0, "%s: two rows", n);
		char env[64] = "PEAKBENCH_";
		for (size_t k = 0; n[k] != '\0' && k + 11 < sizeof env; k++)
			env[10 + k] = (char)(n[k] >= 'a' && n[k] <= 'z' ? n[k] - 'a' + 'A' : n[k]);
		CHECK(r->env != NULL && strcmp(r->env, env) == 0, "%s: env %s", n, r->env);
		CHECK(r->display != NULL && r->hint != NULL && r->description != NULL &&
		          strstr(r->hint, r->env) != NULL,
		      "%s: display, hint (naming %s) and description", n, r->env);
		CHECK((r->candidates != NULL) != (r->load != NULL), "%s: candidates or load, one", n);
		CHECK(r->version != NULL && r->describe != NULL, "%s: version and describe", n);
		CHECK((r->set_threads == NULL) == (r->get_threads == NULL), "%s: thread hooks", n);
		CHECK((r->set_threads == NULL) == (r->one_thread != NULL), "%s: one_thread says why", n);
		CHECK(f.one_thread == (r->set_threads == NULL), "%s: info.one_thread", n);
		int used[PB_CBLAS_FX_MAX] = {0};
		CHECK(r->nsyms <= PB_CBLAS_FX_MAX, "%s: %zu symbols", n, r->nsyms);
		for (size_t k = 0; k < r->nsyms; k++) {
			int slot = r->syms[k].slot;
			CHECK(slot >= 0 && slot < PB_CBLAS_FX_MAX && !used[slot], "%s: %s slot %d", n,
			      r->syms[k].name, slot);
			if (slot >= 0 && slot < PB_CBLAS_FX_MAX)
				used[slot] = 1;
		}
	}
}

int main(void)
{
	test_rows();
	test_load_errors();
	/* Every row; MKL last: it fills the global scope (see test_after_mkl). */
	pb_cblas_family_info f;
	for (int i = 0; pb_cblas_family(i, &f); i++)
		if (strcmp(f.name, "mkl") != 0)
			test_library(f.name);
	test_library("mkl");
	pb_cblas *mkl = NULL;
	if (pb_cblas_open("mkl", NULL, &mkl, NULL, 0, err, sizeof err) == PB_OK) {
		test_after_mkl();
		pb_cblas_close(mkl, NULL, 0);
	}
	if (pb_failures > 0) {
		fprintf(stderr, "%d failures\n", pb_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
