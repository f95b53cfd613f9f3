/*
 * test_gpu.c — the GPU layer's parts that need no GPU: the f16 and bf16
 * conversions, exhaustively, and the loader's errors where no CUDA runtime
 * or HIP is installed (or, with one installed, that it loads). The Go tests
 * (cgo/gpurt, bench/backend/nvidia, bench/backend/rocblas) drive the call
 * sequences against fake runtimes and libraries. The registry of GPU
 * libraries by name is checked with a library of this file's own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu_registry.h"
#include "pb_test.h"

static int is_nan(double v) { return v != v; }

/* check_format: every value round-trips, midpoints round to even, overflow goes to Inf. */
static void check_format(const char *name, double (*widen)(uint16_t), uint16_t (*narrow)(double),
                         uint16_t max_finite, uint16_t inf)
{
	for (uint32_t h = 0; h <= 0xffff; h++) {
		double v = widen((uint16_t)h);
		uint16_t back = narrow(v);
		if (is_nan(v)) {
			CHECK(is_nan(widen(back)), "%s: NaN 0x%04x -> 0x%04x", name, h, back);
			continue;
		}
		CHECK(back == h, "%s: 0x%04x (%g) -> 0x%04x", name, h, v, back);
	}
	for (uint32_t h = 0; h < max_finite; h++) {
		double a = widen((uint16_t)h), b = widen((uint16_t)(h + 1));
		uint16_t want = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
		uint16_t got = narrow((a + b) / 2);
		CHECK(got == want, "%s: midpoint of 0x%04x and 0x%04x -> 0x%04x", name, h, h + 1, got);
		got = narrow(-(a + b) / 2);
		CHECK(got == (uint16_t)(want | 0x8000), "%s: negative midpoint of 0x%04x -> 0x%04x", name,
		      h, got);
	}
	double top = widen(max_finite), below = widen((uint16_t)(max_finite - 1));
	CHECK(narrow(top + (top - below) / 2) == inf, "%s: half an ulp above the largest finite", name);
	CHECK(narrow(top + (top - below) / 4) == max_finite, "%s: a quarter ulp above the largest", name);
	CHECK(narrow(1e300) == inf && narrow(-1e300) == (uint16_t)(inf | 0x8000), "%s: huge", name);
	CHECK(narrow(1e-300) == 0 && narrow(-1e-300) == 0x8000, "%s: tiny", name);
}

/* check_nearest: random values in range round to a nearest representable value. */
static void check_nearest(const char *name, double (*widen)(uint16_t), uint16_t (*narrow)(double),
                          double range)
{
	for (int i = 0; i < 200000; i++) {
		double v = urand() * range;
		uint16_t h = narrow(v);
		double w = widen(h), d = w > v ? w - v : v - w;
		double up = widen((uint16_t)(h + 1)), down = h & 0x7fff ? widen((uint16_t)(h - 1)) : w;
		double du = up > v ? up - v : v - up, dd = down > v ? down - v : v - down;
		CHECK(d <= du && d <= dd, "%s: %.17g -> 0x%04x (%g), a neighbour is nearer", name, v, h, w);
		if (pb_failures > 20)
			return;
	}
}

/*
 * check_fp8: every code widens and narrows back to itself (NaN to a NaN),
 * and the midpoint of two neighbouring finite codes narrows to the even one.
 */
static void check_fp8(const char *name, double (*widen)(uint8_t), uint8_t (*narrow)(double),
                      uint8_t max_finite)
{
	for (uint32_t b = 0; b <= 0xff; b++) {
		double v = widen((uint8_t)b);
		uint8_t back = narrow(v);
		if (is_nan(v)) {
			CHECK(is_nan(widen(back)), "%s: NaN 0x%02x -> 0x%02x", name, b, back);
			continue;
		}
		CHECK(back == b, "%s: 0x%02x (%g) -> 0x%02x", name, b, v, back);
	}
	for (uint32_t b = 0; b < max_finite; b++) {
		double mid = (widen((uint8_t)b) + widen((uint8_t)(b + 1))) / 2;
		uint8_t want = (b & 1) ? (uint8_t)(b + 1) : (uint8_t)b;
		CHECK(narrow(mid) == want && narrow(-mid) == (uint8_t)(want | 0x80),
		      "%s: midpoint of 0x%02x and 0x%02x -> 0x%02x", name, b, b + 1, narrow(mid));
	}
}

static void test_conversions(void)
{
	check_fp8("e4m3", pb_e4m3_to_f64, pb_f64_to_e4m3, 0x7e);
	check_fp8("e5m2", pb_e5m2_to_f64, pb_f64_to_e5m2, 0x7b);
	CHECK(pb_e4m3_to_f64(0x7e) == 448 && pb_e4m3_to_f64(0x01) == 0x1p-9 &&
	          pb_e4m3_to_f64(0x38) == 1,
	      "e4m3 values");
	/* e4m3 has no infinities: beyond 448 saturates, as CUDA's SATFINITE conversion */
	CHECK(pb_f64_to_e4m3(464) == 0x7e && pb_f64_to_e4m3(1e9) == 0x7e &&
	          pb_f64_to_e4m3(-1.0 / 0.0) == 0xfe,
	      "e4m3 saturation");
	CHECK(pb_e5m2_to_f64(0x7b) == 57344 && pb_f64_to_e5m2(61440) == 0x7c &&
	          pb_f64_to_e5m2(0x1p-16) == 0x01 && pb_f64_to_e5m2(0x1p-18) == 0,
	      "e5m2 range");
	CHECK(pb_gpu_dtype_size(PB_GPU_I8) == 1 && pb_gpu_dtype_size(PB_GPU_E4M3) == 1 &&
	          pb_gpu_dtype_size(PB_GPU_I32) == 4,
	      "8-bit dtype sizes");
	check_nearest("f16", pb_f16_to_f64, pb_f64_to_f16, 60000);
	check_nearest("f16 small", pb_f16_to_f64, pb_f64_to_f16, 1e-3);
	check_nearest("bf16", pb_bf16_to_f64, pb_f64_to_bf16, 1e30);
	check_format("f16", pb_f16_to_f64, pb_f64_to_f16, 0x7bff, 0x7c00);
	check_format("bf16", pb_bf16_to_f64, pb_f64_to_bf16, 0x7f7f, 0x7f80);
	CHECK(pb_f64_to_f16(65504) == 0x7bff && pb_f64_to_f16(65520) == 0x7c00, "f16 overflow edge");
	CHECK(pb_f64_to_f16(0x1p-24) == 0x0001 && pb_f64_to_f16(0x1p-25) == 0 &&
	          pb_f64_to_f16(3 * 0x1p-25) == 0x0002,
	      "f16 subnormals");
	CHECK(pb_f64_to_bf16(1.0) == 0x3f80 && pb_f64_to_bf16(-2.0) == 0xc000, "bf16 basics");
	CHECK(pb_gpu_dtype_size(PB_GPU_BF16) == 2 && pb_gpu_dtype_size(PB_GPU_TF32) == 4 &&
	          pb_gpu_dtype_size(PB_GPU_F64) == 8,
	      "dtype sizes");
}

static void test_loader(void)
{
	char err[4096], tried[4096];
	pb_gpu_rt *rt = NULL;
	int code = -1;
	CHECK(pb_gpu_rt_open(PB_GPU_CUDA, NULL, NULL, &code, NULL, 0, err, sizeof err) == PB_ERR_INVALID,
	      "NULL out");
	CHECK(pb_gpu_rt_open(7, NULL, &rt, &code, NULL, 0, err, sizeof err) == PB_ERR_INVALID,
	      "bad vendor");

	setenv("PEAKBENCH_CUDART", "/nonexistent/libcudart.so.12", 1);
	pb_status st = pb_gpu_rt_open(PB_GPU_CUDA, NULL, &rt, &code, tried, sizeof tried, err, sizeof err);
	CHECK(st == PB_ERR_NOT_FOUND && rt == NULL, "override to a missing file: %s", pb_status_name(st));
	CHECK(strstr(err, "cuda: libcudart not found (tried: "
	                  "PEAKBENCH_CUDART=/nonexistent/libcudart.so.12: ") == err,
	      "message: %s", err);
	CHECK(strncmp(tried, "PEAKBENCH_CUDART=/nonexistent/", 30) == 0 && strchr(tried, '\n') == NULL,
	      "tried: %s", tried);
	unsetenv("PEAKBENCH_CUDART");

	/* The search: a runtime, or the sonames tried. */
	st = pb_gpu_rt_open(PB_GPU_CUDA, NULL, &rt, &code, tried, sizeof tried, err, sizeof err);
	if (st == PB_OK) {
		int n = -1;
		st = pb_gpu_device_count(rt, &n, &code, err, sizeof err);
		printf("CUDA runtime found: %s devices=%d (%s)\n", pb_status_name(st), n, st == PB_OK ? "" : err);
	} else {
		/* not PEAKBENCH_REQUIRE_LIBS=all: CPU-only CI sets that */
		(void)required;
		CHECK(getenv("PEAKBENCH_REQUIRE_GPU") == NULL, "PEAKBENCH_REQUIRE_GPU is set: %s", err);
		CHECK(st == PB_ERR_NOT_FOUND && strstr(err, "libcudart.so.13: ") != NULL &&
		          strstr(err, "libcudart.so.11.0: ") != NULL,
		      "search message: %s", err);
	}
	setenv("PEAKBENCH_HIP", "/nonexistent/libamdhip64.so.6", 1);
	st = pb_gpu_rt_open(PB_GPU_HIP, NULL, &rt, &code, tried, sizeof tried, err, sizeof err);
	CHECK(st == PB_ERR_NOT_FOUND &&
	          strstr(err, "rocm: libamdhip64 not found (tried: PEAKBENCH_HIP=") == err,
	      "HIP message: %s", err);
	unsetenv("PEAKBENCH_HIP");

	pb_gpu_job *job = NULL;
	CHECK(pb_cublas_job_gemm(NULL, PB_GPU_F32, PB_NO_TRANS, PB_NO_TRANS, 1, 1, 1, NULL, &job, err,
	                         sizeof err) == PB_ERR_INVALID,
	      "gemm on a NULL library");
	CHECK(pb_gpu_job_run(NULL, 1, NULL, err, sizeof err) == PB_ERR_INVALID, "run a NULL job");
	const int32_t ptr[2] = {0, 1}, idx[1] = {0};
	CHECK(pb_cusparse_convert_job(NULL, PB_CSR2CSC, PB_GPU_F32, 1, 1, 1, ptr, idx, NULL, &job,
	                              err, sizeof err) == PB_ERR_INVALID,
	      "a conversion on a NULL library");
	CHECK(pb_cusparse_convert_has(NULL, PB_CSR2COO) == 0, "conversions of a NULL library");
	pb_gpu_job_free(NULL);
	pb_gpu_close(NULL);
	pb_nvml_close(NULL);
}

/* testlib: a CUDA library registered by this file, to check the registry's calls. */
static int testlib_closed;
static int64_t testlib_params[4];
static int testlib_nparams;

static const pb_gpu_lib testlib_search = {.name = "libtestlib", .env = "PEAKBENCH_TESTLIB"};

static pb_status testlib_open(pb_gpu *gpu, const char *path, void **lib, char *tried,
                              size_t triedlen, char *err, size_t errlen)
{
	if (path != NULL && strcmp(path, "missing") == 0) {
		snprintf(tried, triedlen, "missing: No such file");
		return pb_fail(PB_ERR_NOT_FOUND, err, errlen, "testlib: libtestlib not found");
	}
	*lib = &testlib_closed;
	return PB_OK;
}

static pb_status testlib_info(const void *lib, char *buf, size_t buflen, char *err, size_t errlen)
{
	snprintf(buf, buflen, "version=1.2.3\npath=/x/libtestlib.so\n");
	return PB_OK;
}

static void testlib_close(void *lib) { (*(int *)lib)++; }

static pb_status testlib_job(void *lib, pb_gpu_dtype dt, const int64_t *params, int nparams,
                             const pb_gpu_job_opts *opts, pb_gpu_job **out, int64_t *reported,
                             int nreported, char *err, size_t errlen)
{
	testlib_nparams = nparams;
	for (int i = 0; i < nparams && i < 4; i++)
		testlib_params[i] = params[i];
	if (nreported > 1 && reported[1] == 0)
		reported[1] = 42;
	return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "testlib: no jobs without a device");
}

static pb_gpu_libdef testlib_def = {
	.name = "testlib",
	.vendor = PB_GPU_CUDA,
	.search = &testlib_search,
	.open = testlib_open,
	.info = testlib_info,
	.close = testlib_close,
	.job = testlib_job,
};
PB_GPU_REGISTER(testlib_def)

/* Two rows of one name: neither opens. */
static pb_gpu_libdef twice_a = {.name = "twice", .vendor = PB_GPU_CUDA, .open = testlib_open};
static pb_gpu_libdef twice_b = {.name = "twice", .vendor = PB_GPU_CUDA, .open = testlib_open};
PB_GPU_REGISTER(twice_a)
PB_GPU_REGISTER(twice_b)

static void test_registry(void)
{
	char err[4096], tried[4096], file[64], buf[256];
	pb_gpu_rt cuda = {.vendor = PB_GPU_CUDA}, hip = {.vendor = PB_GPU_HIP};
	pb_gpu gpu = {.rt = &cuda, .label = "cuda:0"}, amd = {.rt = &hip, .label = "rocm:0"};
	pb_gpu_vlib *lib = NULL;

	pb_gpu_vlib_names(buf, sizeof buf);
	CHECK(strstr(buf, "testlib\n") != NULL, "names: %s", buf);
	pb_status st = pb_gpu_vlib_open("nosuch", &gpu, NULL, &lib, file, sizeof file, tried,
	                                sizeof tried, err, sizeof err);
	CHECK(st == PB_ERR_INVALID && lib == NULL &&
	          strstr(err, "nosuch: no GPU library registered by that name (") == err &&
	          strstr(err, "testlib") != NULL && strchr(err, '\n') == NULL,
	      "unknown name: %s %s", pb_status_name(st), err);
	st = pb_gpu_vlib_open("twice", &gpu, NULL, &lib, NULL, 0, NULL, 0, err, sizeof err);
	CHECK(st == PB_ERR_INVALID && strcmp(err, "twice: 2 GPU libraries registered by that name") == 0,
	      "a name registered twice: %s", err);
	st = pb_gpu_vlib_open("testlib", &amd, NULL, &lib, file, sizeof file, NULL, 0, err, sizeof err);
	CHECK(st == PB_ERR_INVALID && strcmp(err, "testlib: rocm:0 is not a CUDA device") == 0,
	      "another vendor's device: %s", err);
	st = pb_gpu_vlib_open("testlib", &gpu, "missing", &lib, file, sizeof file, tried, sizeof tried,
	                      err, sizeof err);
	CHECK(st == PB_ERR_NOT_FOUND && lib == NULL && strcmp(file, "libtestlib") == 0 &&
	          strcmp(tried, "missing: No such file") == 0,
	      "not found: %s file %s tried %s", pb_status_name(st), file, tried);

	st = pb_gpu_vlib_open("testlib", &gpu, NULL, &lib, file, sizeof file, tried, sizeof tried, err,
	                      sizeof err);
	CHECK(st == PB_OK && lib != NULL, "open: %s", err);
	if (lib == NULL)
		return;
	st = pb_gpu_vlib_info(lib, buf, sizeof buf, err, sizeof err);
	CHECK(st == PB_OK && strcmp(buf, "version=1.2.3\npath=/x/libtestlib.so\n") == 0, "info: %s", buf);
	const int64_t params[3] = {7, -1, 1LL << 40};
	int64_t reported[3] = {5, 5, 5};
	pb_gpu_job *job = (pb_gpu_job *)&job;
	st = pb_gpu_vlib_job(lib, PB_GPU_F32, params, 3, NULL, &job, reported, 3, err, sizeof err);
	CHECK(st == PB_ERR_UNSUPPORTED && job == NULL && testlib_nparams == 3 && testlib_params[0] == 7 &&
	          testlib_params[1] == -1 && testlib_params[2] == 1LL << 40,
	      "job: %s, %d parameters", err, testlib_nparams);
	CHECK(reported[0] == 0 && reported[1] == 42 && reported[2] == 0,
	      "reported: zeroed, then the library's: %lld %lld %lld", (long long)reported[0],
	      (long long)reported[1], (long long)reported[2]);
	CHECK(pb_gpu_vlib_job(lib, PB_GPU_F32, NULL, 2, NULL, &job, NULL, 0, err, sizeof err) ==
	          PB_ERR_INVALID,
	      "parameters NULL");
	CHECK(pb_gpu_vlib_job(lib, PB_GPU_F32, params, 1, NULL, &job, NULL, 1, err, sizeof err) ==
	          PB_ERR_INVALID,
	      "reported NULL");
	pb_gpu_vlib_close(lib);
	CHECK(testlib_closed == 1, "close: %d", testlib_closed);
	pb_gpu_vlib_close(NULL);
}

int main(void)
{
	test_conversions();
	test_loader();
	test_registry();
	if (pb_failures > 0) {
		fprintf(stderr, "%d failure(s)\n", pb_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
