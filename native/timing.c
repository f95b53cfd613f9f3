/*
 * timing.c — the host place of jobs (job.c): buffers in host memory, each
 * argument of its own element type (converted by host_dtype.c), placed to
 * avoid 4K aliasing and on huge pages when large, and runs timed
 * in C with clock_gettime(CLOCK_MONOTONIC), so that no cgo transition, Go
 * scheduler or garbage collector sits inside the measured interval.
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

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

static pb_status host_start(pb_job *j, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	j->t0 = now_ns();
	return PB_OK;
}

static pb_status host_stop(pb_job *j, pb_status st, int64_t *ns, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	*ns = now_ns() - j->t0;
	return st;
}

/* host_set_input converts src into the argument's type once, then copies it to every copy. */
static pb_status host_set_input(pb_job *j, int arg, const double *src, size_t len, char *err,
                                size_t errlen)
{
	void *first = pb_job_buf(j, 0, arg);
	pb_status st = pb_host_store(j->type[arg], j->values[arg], j->zero_point[arg], src, len, first,
	                             arg, err, errlen);
	if (st != PB_OK)
		return st;
	for (int c = 1; c < j->copies; c++)
		memcpy(pb_job_buf(j, c, arg), first, len * pb_host_dtype_size(j->type[arg]));
	return PB_OK;
}

static pb_status host_output(const pb_job *j, double *dst, size_t len, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	pb_host_load(j->type[j->output], j->zero_point[j->output], pb_job_buf(j, j->last, j->output),
	             len, dst);
	return PB_OK;
}

static void host_release(pb_job *j)
{
	if (j->base != NULL && j->mapped != NULL)
		for (size_t b = 0; b < (size_t)j->copies * (size_t)j->nargs; b++)
			buf_free(j->base[b], j->mapped[b]);
	free(j->base);
	free(j->mapped);
}

/* Host memory, CLOCK_MONOTONIC around the loop. */
static const pb_job_place host_place = {
	.name = "job",
	.set_input = host_set_input,
	.output = host_output,
	.start = host_start,
	.stop = host_stop,
	.release = host_release,
};

pb_status pb_job_alloc_typed(int nargs, const size_t *lens, const pb_host_dtype *types, int output,
                             const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	if (out == NULL || lens == NULL || types == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: NULL argument");
	*out = NULL;
	for (int a = 0; a < nargs && a < PB_JOB_MAX_ARGS; a++)
		if (pb_host_dtype_size(types[a]) == 0)
			return pb_fail(PB_ERR_INVALID, err, errlen, "job: argument %d has bad type %d", a,
			               (int)types[a]);
	int threads = opts != NULL ? opts->threads : 0;
	if (threads != 0) {
		pb_status st = pb_check_threads("job", threads, err, errlen);
		if (st != PB_OK)
			return st;
	}
	for (int a = 0; a < nargs && a < PB_JOB_MAX_ARGS; a++)
		if (lens[a] > ((size_t)1 << 40) / pb_host_dtype_size(types[a]))
			return pb_fail(PB_ERR_INVALID, err, errlen, "job: argument %d has %zu elements, too many",
			               a, lens[a]);
	pb_job *j = NULL;
	pb_status st = pb_job_new(&host_place, nargs, lens, output, opts != NULL ? opts->copies : 1,
	                          &j, err, errlen);
	if (st != PB_OK)
		return st;
	size_t nbuf = (size_t)j->copies * (size_t)nargs;
	j->base = calloc(nbuf, sizeof *j->base);
	j->mapped = calloc(nbuf, sizeof *j->mapped);
	if (j->base == NULL || j->mapped == NULL) {
		pb_job_free(j);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "job: out of memory");
	}
	for (int a = 0; a < nargs; a++)
		j->type[a] = types[a];
	j->threads = threads;
	for (size_t b = 0; b < nbuf; b++) {
		int a = (int)(b % (size_t)nargs);
		size_t bytes = lens[a] * pb_host_dtype_size(types[a]);
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

pb_status pb_job_alloc(pb_dtype dt, int nargs, const size_t *lens, int output,
                       const pb_job_opts *opts, pb_job **out, char *err, size_t errlen)
{
	if (out == NULL || lens == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: NULL argument");
	*out = NULL;
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	pb_host_dtype types[PB_JOB_MAX_ARGS];
	for (int a = 0; a < PB_JOB_MAX_ARGS; a++)
		types[a] = pb_host_dtype_of(dt);
	pb_status st = pb_job_alloc_typed(nargs, lens, types, output, opts, out, err, errlen);
	if (st == PB_OK)
		(*out)->dt = dt;
	return st;
}
