/*
 * test_jobs — the job buffers' placement: buffer b of a job starts
 * (b × 576) mod 4096 bytes into a page, reads zero, and one of 2 MiB or
 * more sits in a mapping of its own that carries the huge-page advice
 * (the "hg" flag in /proc/self/smaps) where transparent huge pages are
 * "madvise" or "always", unless PEAKBENCH_HUGE_PAGES=off.
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

int main(void)
{
	const char *mode = thp_mode();
	int honoured = strcmp(mode, "madvise") == 0 || strcmp(mode, "always") == 0;
	unsetenv("PEAKBENCH_HUGE_PAGES");
	check_job(honoured ? 1 : -1);
	setenv("PEAKBENCH_HUGE_PAGES", "off", 1);
	check_job(honoured ? 0 : -1);
	if (pb_failures > 0) {
		fprintf(stderr, "%d failures\n", pb_failures);
		return 1;
	}
	printf("ok (transparent huge pages: %s)\n", mode[0] ? mode : "unknown");
	return 0;
}
