/*
 * test_jobs — the job buffers' placement: buffer b of a job starts
 * (b × 576) mod 4096 bytes into a page, reads zero, and one of 2 MiB or
 * more sits in a mapping of its own that carries the huge-page advice
 * (the "hg" flag in /proc/self/smaps) where transparent huge pages are
 * "madvise" or "always", unless PEAKBENCH_HUGE_PAGES=off; and typed jobs:
 * each element type's buffers sized by its element, its values set and read
 * back exactly (floats rounded to nearest even), integers out of range or
 * not integers refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pb_internal.h"
#include "pb_test.h"

/* thp_mode returns the selected mode of transparent huge pages, or "". */
static const char *thp_mode(void)
{
	static char mode[32];
	char line[256] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f == NULL)
		return "";
	if (fgets(line, sizeof line, f) == NULL)
		line[0] = '\0';
	fclose(f);
	char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
	if (open == NULL || close == NULL || (size_t)(close - open) > sizeof mode)
		return "";
	memcpy(mode, open + 1, (size_t)(close - open - 1));
	mode[close - open - 1] = '\0';
	return mode;
}

/* advised reports whether the mapping holding p has the hg flag: 1, 0, or -1 unknown. */
static int advised(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (f == NULL)
		return -1;
	char line[1024];
	int in = 0, found = -1;
	while (fgets(line, sizeof line, f) != NULL) {
		unsigned long lo, hi;
		char dash;
		if (sscanf(line, "%lx%c%lx", &lo, &dash, &hi) == 3 && dash == '-') {
			in = lo <= (uintptr_t)p && (uintptr_t)p < hi;
			continue;
		}
		if (in && strncmp(line, "VmFlags:", 8) == 0) {
			found = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return found;
}

/* check_job allocates a job and checks its buffers; hg: whether large ones must carry the advice. */
static void check_job(int hg)
{
	char err[512];
	/* Two copies of a 2 MiB + 8 argument (mapped) and a 100-element one. */
	size_t lens[] = {(2u << 20) / 8 + 1, 100};
	pb_job_opts o = {2, 1};
	pb_job *j = NULL;
	CHECK(pb_job_alloc(PB_F64, 2, lens, 1, &o, &j, err, sizeof err) == PB_OK, "alloc: %s", err);
	if (j == NULL)
		return;
	for (int c = 0; c < 2; c++)
		for (int a = 0; a < 2; a++) {
			size_t b = (size_t)c * 2 + (size_t)a;
			double *buf = pb_job_buf(j, c, a);
			CHECK((uintptr_t)buf % 4096 == b * 576 % 4096, "buffer %zu starts %lu into a page", b,
			      (unsigned long)((uintptr_t)buf % 4096));
			for (size_t i = 0; i < lens[a]; i++)
				if (buf[i] != 0) {
					CHECK(buf[i] == 0, "buffer %zu [%zu] = %g", b, i, buf[i]);
					break;
				}
			buf[0] = buf[lens[a] - 1] = 1; /* writable to both ends */
			CHECK((j->mapped[b] > 0) == (a == 0), "buffer %zu: mapping %zu bytes", b, j->mapped[b]);
			if (a == 0 && hg >= 0)
				CHECK(advised(buf + lens[a] / 2) == hg, "buffer %zu: huge-page advice %d, want %d", b,
				      advised(buf + lens[a] / 2), hg);
		}
	pb_job_free(j);
}

/* copy_iter makes the output argument (1) a byte copy of argument 0. */
static pb_status copy_iter(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	memcpy(pb_job_buf(j, c, 1), pb_job_buf(j, c, 0), j->len[0] * pb_host_dtype_size(j->type[0]));
	return PB_OK;
}

/*
 * round_trip sets in (n values) into a job of two arguments of type t,
 * copies it to the output and checks it reads back as want.
 */
static void round_trip(pb_host_dtype t, int32_t zero_point, const double *in, const double *want,
                       size_t n)
{
	char err[512];
	size_t lens[2] = {n, n};
	pb_host_dtype types[2] = {t, t};
	pb_job_opts o = {3, 0};
	pb_job *j = NULL;
	CHECK(pb_job_alloc_typed(2, lens, types, 1, &o, &j, err, sizeof err) == PB_OK, "%s: %s",
	      pb_host_dtype_name(t), err);
	if (j == NULL)
		return;
	j->zero_point[0] = j->zero_point[1] = zero_point;
	j->iter = copy_iter;
	double out[8];
	int64_t ns;
	CHECK(pb_job_set_input(j, 0, in, n, err, sizeof err) == PB_OK, "%s set: %s",
	      pb_host_dtype_name(t), err);
	for (int c = 0; c < 3; c++) /* every copy holds the input */
		CHECK(memcmp(pb_job_buf(j, c, 0), pb_job_buf(j, 0, 0), n * pb_host_dtype_size(t)) == 0,
		      "%s: copy %d differs", pb_host_dtype_name(t), c);
	CHECK(pb_job_run(j, 2, &ns, err, sizeof err) == PB_OK, "%s run: %s", pb_host_dtype_name(t),
	      err);
	CHECK(pb_job_output(j, out, n, err, sizeof err) == PB_OK, "%s output: %s",
	      pb_host_dtype_name(t), err);
	for (size_t i = 0; i < n; i++)
		CHECK(out[i] == want[i], "%s zero point %d: [%zu] %g reads %g, want %g",
		      pb_host_dtype_name(t), (int)zero_point, i, in[i], out[i], want[i]);
	pb_job_free(j);
}

/* refused checks that v, set into argument 0 of type t, fails naming range. */
static void refused(pb_host_dtype t, pb_host_dtype values, int32_t zero_point, double v,
                    const char *range)
{
	char err[512] = "";
	size_t lens[2] = {2, 2};
	pb_host_dtype types[2] = {t, PB_HOST_S32};
	pb_job *j = NULL;
	CHECK(pb_job_alloc_typed(2, lens, types, 1, NULL, &j, err, sizeof err) == PB_OK, "%s", err);
	if (j == NULL)
		return;
	j->values[0] = values;
	j->zero_point[0] = zero_point;
	double in[2] = {0, v};
	CHECK(pb_job_set_input(j, 0, in, 2, err, sizeof err) == PB_ERR_INVALID &&
	          strstr(err, range) != NULL && strstr(err, "element 1") != NULL,
	      "%s (values %s, zero point %d) = %g: %s", pb_host_dtype_name(t),
	      pb_host_dtype_name(values), (int)zero_point, v, err);
	pb_job_free(j);
}

static void check_typed(void)
{
	static const struct {
		pb_host_dtype t;
		size_t size;
	} sizes[] = {{PB_HOST_F64, 8}, {PB_HOST_F32, 4}, {PB_HOST_BF16, 2}, {PB_HOST_F16, 2},
	             {PB_HOST_S8, 1},  {PB_HOST_U8, 1},  {PB_HOST_S16, 2},  {PB_HOST_S32, 4}};
	char err[512];
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		pb_host_dtype t = sizes[i].t;
		CHECK(pb_host_dtype_size(t) == sizes[i].size, "%s: size %zu", pb_host_dtype_name(t),
		      pb_host_dtype_size(t));
		/* Two copies of 4097 elements: a buffer is as long as its elements, staggered. */
		size_t lens[2] = {4097, 1};
		pb_host_dtype types[2] = {t, PB_HOST_F64};
		pb_job_opts o = {2, 0};
		pb_job *j = NULL;
		CHECK(pb_job_alloc_typed(2, lens, types, 1, &o, &j, err, sizeof err) == PB_OK, "%s", err);
		if (j == NULL)
			continue;
		for (int c = 0; c < 2; c++) {
			unsigned char *b = pb_job_buf(j, c, 0);
			CHECK((uintptr_t)b % 4096 == (size_t)c * 2 * 576 % 4096, "%s copy %d offset",
			      pb_host_dtype_name(t), c);
			b[4097 * sizes[i].size - 1] = 1; /* within the allocation (ASan) */
		}
		pb_job_free(j);
	}
	CHECK(pb_host_dtype_size((pb_host_dtype)0) == 0 && pb_host_dtype_size((pb_host_dtype)9) == 0,
	      "an unknown type has a size");

	double f[] = {1.5, -0.0, 1e-3, 65504, 3.0e38, 1.0 / 3};
	double f32[6], f16[] = {1.5, -0.0, 0x1.064p-10, 65504, 1.0 / 0.0, 0x1.554p-2};
	double bf16[] = {1.5, -0.0, 0x1.06p-10, 65536, 0 /* below */, 0x1.56p-2};
	for (int i = 0; i < 6; i++)
		f32[i] = (float)f[i];
	bf16[4] = pb_bf16_to_f64(pb_f64_to_bf16(3.0e38));
	round_trip(PB_HOST_F64, 0, f, f, 6);
	round_trip(PB_HOST_F32, 0, f, f32, 6);
	round_trip(PB_HOST_F16, 0, f, f16, 6);
	round_trip(PB_HOST_BF16, 0, f, bf16, 6);
	/* ties to even: 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7 */
	double tie[] = {1 + 0x1p-8, 1 + 3 * 0x1p-8}, tie_want[] = {1, 1 + 0x1p-6};
	round_trip(PB_HOST_BF16, 0, tie, tie_want, 2);

	double s8[] = {-128, 127, 0, -1}, u8[] = {0, 255, 128, 1};
	double s16[] = {-32768, 32767, -129, 256}, s32[] = {-2147483648.0, 2147483647.0, -1, 65536};
	round_trip(PB_HOST_S8, 0, s8, s8, 4);
	round_trip(PB_HOST_U8, 0, u8, u8, 4);
	round_trip(PB_HOST_S16, 0, s16, s16, 4);
	round_trip(PB_HOST_S32, 0, s32, s32, 4);
	round_trip(PB_HOST_U8, 128, s8, s8, 4); /* s8 values stored +128 in u8 */

	refused(PB_HOST_S8, 0, 0, 128, "[-128, 127]");
	refused(PB_HOST_S8, 0, 0, -129, "[-128, 127]");
	refused(PB_HOST_U8, 0, 0, -1, "[0, 255]");
	refused(PB_HOST_U8, 0, 0, 256, "[0, 255]");
	refused(PB_HOST_S16, 0, 0, 32768, "[-32768, 32767]");
	refused(PB_HOST_S32, 0, 0, 2147483648.0, "[-2147483648, 2147483647]");
	refused(PB_HOST_S8, 0, 0, 0.5, "not an integer");
	refused(PB_HOST_S8, 0, 0, 0.0 / 0.0, "not an integer");
	refused(PB_HOST_U8, 0, 128, 128, "[-128, 127]");         /* the zero point shifts the range */
	refused(PB_HOST_S16, PB_HOST_U8, 0, 256, "[0, 255]");    /* u8 values held in s16 */
	refused(PB_HOST_S16, PB_HOST_S8, 0, -129, "[-128, 127]"); /* s8 values held in s16 */

	/* Bad types and the f32/f64 wrapper's refusal. */
	size_t lens[2] = {4, 4};
	pb_host_dtype bad[2] = {PB_HOST_F32, (pb_host_dtype)42};
	pb_job *j = NULL;
	CHECK(pb_job_alloc_typed(2, lens, bad, 1, NULL, &j, err, sizeof err) == PB_ERR_INVALID &&
	          j == NULL && strstr(err, "argument 1 has bad type 42") != NULL,
	      "type 42: %s", err);
	CHECK(pb_job_alloc((pb_dtype)2, 2, lens, 1, NULL, &j, err, sizeof err) == PB_ERR_INVALID &&
	          strstr(err, "accepted: 4 f32, 8 f64") != NULL,
	      "dtype 2: %s", err);
	CHECK(pb_job_alloc(PB_F32, 2, lens, 1, NULL, &j, err, sizeof err) == PB_OK && j != NULL &&
	          j->dt == PB_F32 && j->type[0] == PB_HOST_F32 && j->type[1] == PB_HOST_F32,
	      "f32 job: %s", err);
	pb_job_free(j);
}

int main(void)
{
	const char *mode = thp_mode();
	int honoured = strcmp(mode, "madvise") == 0 || strcmp(mode, "always") == 0;
	unsetenv("PEAKBENCH_HUGE_PAGES");
	check_job(honoured ? 1 : -1);
	setenv("PEAKBENCH_HUGE_PAGES", "off", 1);
	check_job(honoured ? 0 : -1);
	check_typed();
	if (pb_failures > 0) {
		fprintf(stderr, "%d failures\n", pb_failures);
		return 1;
	}
	printf("ok (transparent huge pages: %s)\n", mode[0] ? mode : "unknown");
	return 0;
}
