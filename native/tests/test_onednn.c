/*
 * test_onednn — oneDNN's primitives from C against a naive reference, and
 * its failures: f64, bad shapes, bad thread counts, a missing file, a file
 * that is not oneDNN. The matmul in each type the library has, every
 * transpose, compared exactly. Skipped when oneDNN is not installed, unless
 * PEAKBENCH_REQUIRE_LIBS names onednn.
 */
#include "peakbench.h"
#include "pb_test.h"

static char err[4096];

static double ref(pb_dnnl_op op, double x, double y)
{
	switch (op) {
	case PB_DNNL_RELU:
		return x > 0 ? x : 0;
	case PB_DNNL_SIGMOID:
		return 1 / (1 + exp(-x));
	case PB_DNNL_TANH:
		return tanh(x);
	case PB_DNNL_EXP:
		return exp(x);
	case PB_DNNL_ADD:
		return x + y;
	case PB_DNNL_MUL:
		return x * y;
	default:
		return NAN;
	}
}

static void test_op(pb_dnnl *lib, pb_dnnl_op op, int64_t rows, int64_t cols, int threads)
{
	int64_t n = rows * cols;
	double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
	double *out = malloc((size_t)n * sizeof *out);
	for (int64_t i = 0; i < n; i++) {
		x[i] = (float)(8 * urand());
		y[i] = (float)urand();
	}
	pb_job_opts o = {3, threads};
	pb_job *j = NULL;
	pb_status st = pb_dnnl_job(lib, op, PB_F32, rows, cols, &o, &j, err, sizeof err);
	CHECK(st == PB_OK, "op %d %lldx%lld: %s", (int)op, (long long)rows, (long long)cols, err);
	if (j != NULL) {
		int nargs = 0, output = 0;
		pb_job_args(j, &nargs, &output, NULL, 0);
		pb_job_set_input(j, 0, x, (size_t)n, NULL, 0);
		if (nargs == 3)
			pb_job_set_input(j, 1, y, (size_t)n, NULL, 0);
		int64_t ns;
		CHECK(pb_job_run(j, 4, &ns, err, sizeof err) == PB_OK, "run: %s", err);
		size_t len = 0;
		pb_job_arg_len(j, output, &len, NULL, 0);
		CHECK(pb_job_output(j, out, len, err, sizeof err) == PB_OK, "output: %s", err);
		if (op == PB_DNNL_SUM || op == PB_DNNL_MAX) {
			double r = op == PB_DNNL_SUM ? 0 : x[0];
			for (int64_t i = 0; i < n; i++)
				r = op == PB_DNNL_SUM ? r + x[i] : fmax(r, x[i]);
			CHECK(fabs(out[0] - r) <= 1e-6 * 8 * (double)n, "op %d n %lld: %g want %g", (int)op,
			      (long long)n, out[0], r);
		} else if (op == PB_DNNL_SOFTMAX) {
			for (int64_t r = 0; r < rows; r++) {
				double m = -INFINITY, s = 0;
				for (int64_t c = 0; c < cols; c++)
					m = fmax(m, x[r * cols + c]);
				for (int64_t c = 0; c < cols; c++)
					s += exp(x[r * cols + c] - m);
				for (int64_t c = 0; c < cols; c++) {
					double want = exp(x[r * cols + c] - m) / s;
					CHECK(fabs(out[r * cols + c] - want) <= 1e-5 * want + 1e-7,
					      "softmax (%lld,%lld) %g want %g", (long long)r, (long long)c,
					      out[r * cols + c], want);
				}
			}
		} else {
			for (int64_t i = 0; i < n; i++) {
				double want = ref(op, x[i], y[i]);
				CHECK(fabs(out[i] - want) <= 1e-5 * fabs(want) + 1e-30, "op %d [%lld] %g want %g",
				      (int)op, (long long)i, out[i], want);
			}
		}
		pb_job_free(j);
	}
	free(x);
	free(y);
	free(out);
}

/*
 * test_gemm runs pb_dnnl_gemm_job of type t on m×n×k with transposes ta,
 * tb and compares exactly: the inputs are quarters in [-2, 2] (floats) or
 * integers in s8 -64..63 and u8 0..127, whose products and their pairs fit
 * 16 bits (oneDNN's int8 code without VNNI saturates beyond).
 */
static void test_gemm(pb_dnnl *lib, pb_dnnl_gemm_type t, int ta, int tb, int64_t m, int64_t n,
                      int64_t k)
{
	size_t la = (size_t)(m * k), lb = (size_t)(k * n), lc = (size_t)(m * n);
	double *a = malloc(la * sizeof *a), *b = malloc(lb * sizeof *b);
	double *c = malloc(lc * sizeof *c);
	int integer = t == PB_DNNL_GEMM_S8S8 || t == PB_DNNL_GEMM_U8S8;
	for (size_t i = 0; i < la; i++)
		a[i] = integer ? floor(64 * urand()) + (t == PB_DNNL_GEMM_U8S8 ? 64 : 0)
		               : floor(8 * urand()) / 4;
	for (size_t i = 0; i < lb; i++)
		b[i] = integer ? floor(64 * urand()) : floor(8 * urand()) / 4;
	pb_job_opts o = {2, 1};
	pb_job *j = NULL;
	pb_status st = pb_dnnl_gemm_job(lib, t, ta ? PB_TRANS : PB_NO_TRANS, tb ? PB_TRANS : PB_NO_TRANS,
	                                m, n, k, &o, &j, err, sizeof err);
	CHECK(st == PB_OK, "gemm type %d %dx%dx%d: %s", (int)t, (int)m, (int)n, (int)k, err);
	if (j != NULL) {
		char desc[256];
		pb_job_describe(j, desc, sizeof desc, NULL, 0);
		CHECK(strstr(desc, "impl=") != NULL && strstr(desc, "impl=unknown") == NULL, "desc %s",
		      desc);
		CHECK(pb_job_set_input(j, 0, a, la, err, sizeof err) == PB_OK, "A: %s", err);
		CHECK(pb_job_set_input(j, 1, b, lb, err, sizeof err) == PB_OK, "B: %s", err);
		int64_t ns;
		CHECK(pb_job_run(j, 3, &ns, err, sizeof err) == PB_OK, "run: %s", err);
		CHECK(pb_job_output(j, c, lc, err, sizeof err) == PB_OK, "output: %s", err);
		for (int64_t i = 0; i < m; i++)
			for (int64_t jj = 0; jj < n; jj++) {
				double want = 0;
				for (int64_t p = 0; p < k; p++)
					want += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[jj * k + p] : b[p * n + jj]);
				if (c[i * n + jj] != want) {
					CHECK(0, "%s: C[%lld,%lld] = %g, want %g", desc, (long long)i, (long long)jj,
					      c[i * n + jj], want);
					i = m;
					break;
				}
			}
		pb_job_free(j);
	}
	free(a);
	free(b);
	free(c);
}

/*
 * test_quant quantizes rows×cols values (a quarter on rounding ties) with
 * pb_dnnl_quant_job and dequantizes them back, each compared exactly with
 * what the job is documented to compute: rne(fl32(fl32(x·fl32(1/s)) + zp))
 * saturated, then fl32(s·(q − zp)).
 */
static void test_quant(pb_dnnl *lib, int is_unsigned, int64_t rows, int64_t cols,
                       int per_channel, int threads)
{
	int64_t n = rows * cols, ns = per_channel ? rows : 1;
	double *x = malloc((size_t)n * sizeof *x), *q = malloc((size_t)n * sizeof *q);
	double *back = malloc((size_t)n * sizeof *back);
	float scales[8];
	int32_t zps[8];
	for (int64_t r = 0; r < ns; r++) {
		scales[r] = 0.01f + 0.03f * (float)r;
		zps[r] = is_unsigned ? 117 : 0;
	}
	for (int64_t i = 0; i < n; i++) {
		float s = scales[per_channel ? i / cols : 0];
		double v = 200 * (urand() - 0.5) * s;
		if (i % 4 == 0)
			v = (floor(v / s) + 0.5) * s;
		x[i] = (float)v;
	}
	pb_job_opts o = {2, threads};
	for (int op = PB_DNNL_QUANTIZE; op <= PB_DNNL_DEQUANTIZE; op++) {
		pb_job *j = NULL;
		pb_status st = pb_dnnl_quant_job(lib, (pb_dnnl_quant_op)op, is_unsigned, rows, cols,
		                                 per_channel, scales, zps, &o, &j, err, sizeof err);
		CHECK(st == PB_OK, "quant op %d u8=%d %lldx%lld: %s", op, is_unsigned, (long long)rows,
		      (long long)cols, err);
		if (j == NULL)
			break;
		char desc[256];
		pb_job_describe(j, desc, sizeof desc, NULL, 0);
		CHECK(strstr(desc, "impl=") != NULL, "description %s", desc);
		pb_job_set_input(j, 0, op == PB_DNNL_QUANTIZE ? x : q, (size_t)n, NULL, 0);
		int64_t t;
		CHECK(pb_job_run(j, 3, &t, err, sizeof err) == PB_OK, "run: %s", err);
		double *out = op == PB_DNNL_QUANTIZE ? q : back;
		CHECK(pb_job_output(j, out, (size_t)n, err, sizeof err) == PB_OK, "output: %s", err);
		int bad = 0;
		for (int64_t i = 0; i < n && bad < 3; i++) {
			int64_t r = per_channel ? i / cols : 0;
			double want;
			if (op == PB_DNNL_QUANTIZE) {
				float p = (float)x[i] * (1.0f / scales[r]);
				want = nearbyint((double)(p + (float)zps[r]));
				want = fmin(fmax(want, is_unsigned ? 0 : -128), is_unsigned ? 255 : 127);
			} else {
				want = (double)(scales[r] * (float)(q[i] - zps[r]));
			}
			if (out[i] != want) {
				bad++;
				CHECK(0, "quant op %d element %lld: %g, want %g", op, (long long)i, out[i], want);
			}
		}
		pb_job_free(j);
	}
	free(x);
	free(q);
	free(back);
}

int main(void)
{
	pb_dnnl *lib = NULL;
	char tried[8192];
	pb_status st = pb_dnnl_open("/nonexistent/libdnnl.so.2", &lib, tried, sizeof tried, err,
	                            sizeof err);
	CHECK(st == PB_ERR_NOT_FOUND && lib == NULL, "missing file: %d", st);
	CHECK(strstr(err, "/nonexistent/libdnnl.so.2") != NULL && strstr(err, "install") != NULL,
	      "message %s", err);
	st = pb_dnnl_open("/lib/x86_64-linux-gnu/libm.so.6", &lib, NULL, 0, err, sizeof err);
	CHECK(st == PB_ERR_SYMBOL && strstr(err, "dnnl_version") != NULL, "libm: %s", err);

	st = pb_dnnl_open(NULL, &lib, tried, sizeof tried, err, sizeof err);
	if (st != PB_OK) {
		CHECK(!required("onednn"), "PEAKBENCH_REQUIRE_LIBS names onednn: %s", err);
		printf("SKIP onednn: %s\n", err);
		return pb_failures > 0;
	}
	char info[4096];
	CHECK(pb_dnnl_info(lib, info, sizeof info, err, sizeof err) == PB_OK, "info");
	printf("== onednn\n%s", info);

	CHECK(pb_dnnl_set_threads(lib, 0, err, sizeof err) == PB_ERR_INVALID, "0 threads");
	CHECK(pb_dnnl_set_threads(lib, 10000, err, sizeof err) == PB_ERR_INVALID, "10000 threads");
	CHECK(strstr(err, "accepted: 1 to 1024") != NULL, "message %s", err);
	CHECK(pb_dnnl_set_threads(lib, 2, err, sizeof err) == PB_OK, "2 threads: %s", err);

	for (int op = PB_DNNL_RELU; op <= PB_DNNL_MAX; op++)
		for (int t = 1; t <= 2; t++) {
			test_op(lib, (pb_dnnl_op)op, 1, 1, t);
			test_op(lib, (pb_dnnl_op)op, 1, 1031, t);
		}
	test_op(lib, PB_DNNL_SOFTMAX, 3, 17, 1);
	test_op(lib, PB_DNNL_SOFTMAX, 64, 130, 2);

	pb_job *j = NULL;
	st = pb_dnnl_job(lib, PB_DNNL_EXP, PB_F64, 1, 8, NULL, &j, err, sizeof err);
	CHECK(st == PB_ERR_UNSUPPORTED && j == NULL && strstr(err, "f64") != NULL, "f64: %s", err);
	st = pb_dnnl_job(lib, PB_DNNL_RELU, PB_F32, 2, 8, NULL, &j, err, sizeof err);
	CHECK(st == PB_ERR_INVALID, "relu with 2 rows: %d", st);
	st = pb_dnnl_job(lib, PB_DNNL_RELU, PB_F32, 1, 0, NULL, &j, err, sizeof err);
	CHECK(st == PB_ERR_INVALID, "relu of 0 elements: %d", st);
	st = pb_dnnl_job(lib, (pb_dnnl_op)42, PB_F32, 1, 8, NULL, &j, err, sizeof err);
	CHECK(st == PB_ERR_INVALID, "op 42: %d", st);
	pb_job_opts bad = {1, 10000};
	st = pb_dnnl_job(lib, PB_DNNL_RELU, PB_F32, 1, 8, &bad, &j, err, sizeof err);
	CHECK(st == PB_ERR_INVALID, "job with 10000 threads: %d", st);

	for (int t = PB_DNNL_GEMM_F32; t <= PB_DNNL_GEMM_U8S8; t++) {
		char impl[256];
		if (!pb_dnnl_gemm_has(lib, (pb_dnnl_gemm_type)t, impl, sizeof impl)) {
			st = pb_dnnl_gemm_job(lib, (pb_dnnl_gemm_type)t, PB_NO_TRANS, PB_NO_TRANS, 4, 4, 4,
			                      NULL, &j, err, sizeof err);
			CHECK(st == PB_ERR_UNSUPPORTED && j == NULL &&
			          strstr(err, "no matmul implementation") != NULL,
			      "gemm type %d without an implementation: %d %s", t, st, err);
			printf("gemm type %d: none\n", t);
			continue;
		}
		printf("gemm type %d: %s\n", t, impl);
		CHECK(t != PB_DNNL_GEMM_F32 || impl[0] != '\0', "f32 impl");
		for (int tr = 0; tr < 4; tr++) {
			test_gemm(lib, (pb_dnnl_gemm_type)t, tr & 1, tr >> 1, 1, 1, 1);
			test_gemm(lib, (pb_dnnl_gemm_type)t, tr & 1, tr >> 1, 17, 33, 65);
		}
	}
	CHECK(pb_dnnl_gemm_has(lib, (pb_dnnl_gemm_type)9, NULL, 0) == 0, "type 9");
	st = pb_dnnl_gemm_job(lib, (pb_dnnl_gemm_type)9, PB_NO_TRANS, PB_NO_TRANS, 4, 4, 4, NULL, &j,
	                      err, sizeof err);
	CHECK(st == PB_ERR_INVALID, "gemm type 9: %d", st);
	st = pb_dnnl_gemm_job(lib, PB_DNNL_GEMM_F32, PB_NO_TRANS, PB_NO_TRANS, 4, 0, 4, NULL, &j, err,
	                      sizeof err);
	CHECK(st == PB_ERR_INVALID && strstr(err, "bad shape") != NULL, "gemm n=0: %d %s", st, err);
	st = pb_dnnl_gemm_job(lib, PB_DNNL_GEMM_F32, (pb_trans)7, PB_NO_TRANS, 4, 4, 4, NULL, &j, err,
	                      sizeof err);
	CHECK(st == PB_ERR_INVALID, "gemm transpose 7: %d", st);

	for (int u = 0; u < 2; u++)
		for (int t = 1; t <= 2; t++) {
			test_quant(lib, u, 1, 1, 0, t);
			test_quant(lib, u, 1, 4099, 0, t);
			test_quant(lib, u, 3, 65, 1, t); /* one zero point shared by the rows */
		}
	float sc[2] = {0.1f, 0.2f};
	int32_t zp[2] = {3, 5};
	st = pb_dnnl_quant_job(lib, PB_DNNL_QUANTIZE, 1, 2, 8, 1, sc, zp, NULL, &j, err, sizeof err);
	CHECK((st == PB_ERR_UNSUPPORTED && strstr(err, "zero point") != NULL) || st == PB_OK,
	      "per-channel zero points: %d %s", st, err);
	if (j != NULL)
		pb_job_free(j);
	j = NULL;
	sc[0] = 0;
	st = pb_dnnl_quant_job(lib, PB_DNNL_DEQUANTIZE, 0, 1, 8, 0, sc, zp, NULL, &j, err, sizeof err);
	CHECK(st == PB_ERR_INVALID && j == NULL, "scale 0: %d", st);
	st = pb_dnnl_quant_job(lib, (pb_dnnl_quant_op)5, 0, 1, 8, 0, sc, zp, NULL, &j, err, sizeof err);
	CHECK(st == PB_ERR_INVALID, "quant op 5: %d", st);

	CHECK(pb_dnnl_close(lib, err, sizeof err) == PB_OK, "close");
	if (pb_failures > 0) {
		fprintf(stderr, "%d failures\n", pb_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
