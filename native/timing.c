/*
 * timing.c — jobs: an operation prepared on C-allocated buffers, run N
 * times back to back and timed in C with clock_gettime(CLOCK_MONOTONIC), so
 * that no cgo transition, Go scheduler or garbage collector sits inside the
 * measured interval.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "pb_internal.h"

/*
 * Buffer placement: each buffer starts at a page boundary plus
 * (index × 576) mod 4096 bytes. 576 = 9 × 64 keeps 64-byte alignment, and
 * since 9 is odd, the 64 buffers of any run of consecutive indexes start at
 * 64 distinct offsets within a page: no input and output alias modulo 4 KiB
 * (which stalls loads behind stores to the same page offset, and makes
 * glibc's memcpy crawl when the difference is 8 or 16 mod 4 KiB).
 */
#define PB_STAGGER 576
#define PB_PAGE 4096

/*
 * A buffer of PB_HUGE bytes or more gets a mapping of its own, advised for
 * transparent huge pages (as the Go backends' do, bench/internal/hostmem):
 * at DRAM sizes a stream's speed depends on the physical pages behind it,
 * and memory reused from earlier buffers is scattered over 4 KiB pages.
 */
#define PB_HUGE ((size_t)2 << 20)

/* PEAKBENCH_HUGE_PAGES=off drops the advice (4 KiB pages), as in hostmem. */
static int huge_advice(void)
{
	const char *e = getenv("PEAKBENCH_HUGE_PAGES");
	return e == NULL || strcmp(e, "off") != 0;
}

/*
 * buf_alloc returns off + bytes zeroed bytes from a page boundary, or NULL;
 * *base is what buf_free releases, *mapped the length of the buffer's own
 * mapping (0 when it came from malloc). The bytes are written here, so that
 * no buffer is left on the shared zero page, and the huge pages are taken.
 */
static char *buf_alloc(size_t bytes, size_t off, void **base, size_t *mapped)
{
	size_t need = off + bytes;
	char *start = NULL;
	*base = NULL;
	*mapped = 0;
	if (bytes >= PB_HUGE) {
		size_t len = (need + PB_HUGE - 1) / PB_HUGE * PB_HUGE + PB_HUGE;
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			/* The huge-page-aligned part holds the buffer; the head
			 * and tail around it are never touched. */
			start = m + (PB_HUGE - (uintptr_t)m % PB_HUGE) % PB_HUGE;
#ifdef MADV_HUGEPAGE
			if (huge_advice())
				(void)madvise(start, len - PB_HUGE, MADV_HUGEPAGE); /* advice only */
#endif
			*base = m;
			*mapped = len;
		}
	}
	if (start == NULL) {
		if (posix_memalign(base, PB_PAGE, need) != 0)
			return NULL;
		start = *base;
	}
	memset(start, 0, need);
	return start;
}

static void buf_free(void *base, size_t mapped)
{
	if (mapped > 0)
		munmap(base, mapped);
	else
		free(base);
}

pb_status pb_job_alloc(pb_dtype dt, int nargs, const size_t *lens, int output,
                       const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	if (out == NULL || lens == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: NULL argument");
	*out = NULL;
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	if (nargs < 1 || nargs > PB_JOB_MAX_ARGS || output < 0 || output >= nargs)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: bad argument layout");
	int copies = opts != NULL ? opts->copies : 1;
	if (copies == 0)
		copies = 1;
	if (copies < 1 || copies > PB_MAX_COPIES)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: copies %d out of range (accepted: 1 to %d)",
		               copies, PB_MAX_COPIES);
	int threads = opts != NULL ? opts->threads : 0;
	if (threads != 0) {
		pb_status st = pb_check_threads("job", threads, err, errlen);
		if (st != PB_OK)
			return st;
	}
	size_t esize = (size_t)dt;
	for (int a = 0; a < nargs; a++)
		if (lens[a] > ((size_t)1 << 40) / esize)
			return pb_fail(PB_ERR_INVALID, err, errlen, "job: argument %d has %zu elements, too many",
			               a, lens[a]);

	pb_job *j = calloc(1, sizeof *j);
	if (j == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "job: out of memory");
	size_t nbuf = (size_t)copies * (size_t)nargs;
	j->buf = calloc(nbuf, sizeof *j->buf);
	j->base = calloc(nbuf, sizeof *j->base);
	j->mapped = calloc(nbuf, sizeof *j->mapped);
	if (j->buf == NULL || j->base == NULL || j->mapped == NULL) {
		pb_job_free(j);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "job: out of memory");
	}
	j->dt = dt;
	j->nargs = nargs;
	j->output = output;
	j->copies = copies;
	j->last = -1;
	j->threads = threads;
	for (int a = 0; a < nargs; a++)
		j->len[a] = lens[a];
	for (size_t b = 0; b < nbuf; b++) {
		int a = (int)(b % (size_t)nargs);
		size_t bytes = lens[a] * esize;
		if (bytes < 64)
			bytes = 64;
		size_t off = (b * PB_STAGGER) % PB_PAGE;
		char *start = buf_alloc(bytes, off, &j->base[b], &j->mapped[b]);
		if (start == NULL) {
			pb_job_free(j);
			return pb_fail(PB_ERR_NOMEM, err, errlen,
			               "job: cannot allocate %zu bytes for copy %zu of argument %d", bytes,
			               b / (size_t)nargs, a);
		}
		j->buf[b] = start + off;
	}
	*out = j;
	return PB_OK;
}

void pb_job_free(pb_job *j)
{
	if (j == NULL)
		return;
	if (j->destroy != NULL)
		j->destroy(j);
	if (j->base != NULL && j->mapped != NULL)
		for (size_t b = 0; b < (size_t)j->copies * (size_t)j->nargs; b++)
			buf_free(j->base[b], j->mapped[b]);
	free(j->base);
	free(j->mapped);
	free(j->buf);
	free(j);
}

pb_status pb_job_args(const pb_job *j, int *nargs, int *output, char *err, size_t errlen)
{
	if (j == NULL || nargs == NULL || output == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_args: NULL argument");
	*nargs = j->nargs;
	*output = j->output;
	return PB_OK;
}

pb_status pb_job_arg_len(const pb_job *j, int arg, size_t *len, char *err, size_t errlen)
{
	if (j == NULL || len == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_arg_len: NULL argument");
	if (arg < 0 || arg >= j->nargs)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: argument %d out of range (0 to %d)",
		               arg, j->nargs - 1);
	*len = j->len[arg];
	return PB_OK;
}

pb_status pb_job_set_input(pb_job *j, int arg, const double *src, size_t len, char *err,
                           size_t errlen)
{
	if (j == NULL || (src == NULL && len > 0))
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_set_input: NULL argument");
	if (arg < 0 || arg >= j->nargs)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: argument %d out of range (0 to %d)",
		               arg, j->nargs - 1);
	if (len != j->len[arg])
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "job: argument %d holds %zu elements, got %zu", arg, j->len[arg], len);
	void *first = pb_job_buf(j, 0, arg);
	if (j->dt == PB_F32) {
		float *d = first;
		for (size_t i = 0; i < len; i++)
			d[i] = (float)src[i];
	} else {
		memcpy(first, src, len * sizeof(double));
	}
	for (int c = 1; c < j->copies; c++)
		memcpy(pb_job_buf(j, c, arg), first, len * (size_t)j->dt);
	return PB_OK;
}

static int64_t ns_between(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 + (int64_t)(b->tv_nsec - a->tv_nsec);
}

pb_status pb_job_run(pb_job *j, int64_t iters, int64_t *ns, char *err, size_t errlen)
{
	if (j == NULL || ns == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_run: NULL argument");
	*ns = 0;
	if (iters < 0)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: iterations %lld < 0", (long long)iters);
	pb_status st = PB_OK;
	if (j->before != NULL) {
		st = j->before(j, err, errlen);
		if (st != PB_OK)
			return st;
	}
	int c = j->next, last = j->last;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int64_t i = 0; i < iters; i++) {
		st = j->iter(j, c, err, errlen);
		if (st != PB_OK)
			break;
		last = c;
		if (++c == j->copies)
			c = 0;
	}
	if (st == PB_OK && j->after != NULL && iters > 0)
		st = j->after(j, err, errlen);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	j->next = c;
	j->last = last;
	*ns = ns_between(&t0, &t1);
	return st;
}

pb_status pb_job_output(const pb_job *j, double *dst, size_t len, char *err, size_t errlen)
{
	if (j == NULL || (dst == NULL && len > 0))
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_output: NULL argument");
	if (len != j->len[j->output])
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: output holds %zu elements, got %zu",
		               j->len[j->output], len);
	if (j->last < 0)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: no output yet (run it first)");
	const void *src = pb_job_buf(j, j->last, j->output);
	if (j->dt == PB_F32) {
		const float *s = src;
		for (size_t i = 0; i < len; i++)
			dst[i] = (double)s[i];
	} else {
		memcpy(dst, src, len * sizeof(double));
	}
	return PB_OK;
}

pb_status pb_job_describe(const pb_job *j, char *buf, size_t buflen, char *err, size_t errlen)
{
	if (j == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_describe: NULL argument");
	snprintf(buf, buflen, "%s", j->desc);
	return PB_OK;
}
