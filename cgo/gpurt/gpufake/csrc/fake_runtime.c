/*
 * fake_runtime.c — a stand-in for the CUDA runtime (libcudart.so.12) or,
 * built with -DPB_FAKE_HIP, for HIP (libamdhip64.so.6), for tests on
 * machines without a GPU. "Device memory" is host memory behind a header
 * that records its device, so the fake BLAS libraries can compute on it
 * and check that every pointer they get is a device allocation.
 *
 * Streams are modelled as a real GPU runs them: work enqueued on a stream
 * (an async copy or memset, a fake library's call on the stream bound to
 * its handle, NULL meaning the device's default stream) waits in that
 * stream's queue and is carried out only when the stream is synchronized,
 * an event recorded on it after the work is synchronized, or a
 * device-wide synchronization (cudaDeviceSynchronize, cudaFree) comes.
 * An event's time is taken when the queue reaches it, so it times only the
 * work of its own stream. Work a library put on another stream than the
 * one whose events a job records is therefore neither timed nor done when
 * the job reads its output: the output is zeros and verification fails.
 *
 * Environment (read at each call, so tests can change it):
 *   PB_FAKE_<RT>_DEVICES  device count (default 1; 0: the no-device error)
 *   PB_FAKE_<RT>_ERROR    error code every device query returns (e.g. 35)
 *   PB_FAKE_<RT>_MEM      device memory in bytes (default 1 GiB)
 *   PB_FAKE_CUDA_NO_CLOCKS  set to 1: no clock attributes (13, 36)
 *   PB_FAKE_CUDA_CC       compute capability as major·10 + minor (default 90:
 *                         an H100; 80 makes an A100 of it, without fp8)
 * with <RT> CUDA or HIP.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PB_FAKE_HIP
#define P(x) hip##x
#define ENV(x) "PB_FAKE_HIP_" x
#define ERR_PREFIX "hipError"
#else
#define P(x) cuda##x
#define ENV(x) "PB_FAKE_CUDA_" x
#define ERR_PREFIX "cudaError"
#endif

#define EXPORT __attribute__((visibility("default")))
#define MAGIC 0x70626661u /* "pbfa" */
#define MAXDEV 8

static __thread int cur; /* the calling thread's current device */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static size_t used[MAXDEV];

typedef struct hdr {
	uint32_t magic;
	int dev;
	size_t size;
	char pad[48];
} hdr; /* 64 bytes: allocations stay 64-byte aligned */

static long envl(const char *name, long def)
{
	const char *v = getenv(name);
	return v != NULL && *v != '\0' ? strtol(v, NULL, 0) : def;
}

static int ndev(void)
{
	long n = envl(ENV("DEVICES"), 1);
	return n < 0 ? 0 : n > MAXDEV ? MAXDEV : (int)n;
}

/*
 * The live allocations, sorted by address, so that any pointer can be
 * asked about (interior ones included) without reading memory that is not
 * ours. live_* run with mu held.
 */
typedef struct span {
	const char *p;
	size_t n;
	int dev;
} span;
static span *live;
static size_t nlive, caplive;

/* live_index returns the index of the last span starting at or below p, or -1. */
static long live_index(const void *p)
{
	long lo = 0, hi = (long)nlive - 1, at = -1;
	while (lo <= hi) {
		long mid = (lo + hi) / 2;
		if (live[mid].p <= (const char *)p) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return at;
}

static int live_add(void *p, size_t n, int dev)
{
	if (nlive == caplive) {
		size_t cap = caplive ? 2 * caplive : 256;
		span *v = realloc(live, cap * sizeof *v);
		if (v == NULL)
			return -1;
		live = v;
		caplive = cap;
	}
	size_t at = (size_t)(live_index(p) + 1);
	memmove(&live[at + 1], &live[at], (nlive - at) * sizeof *live);
	live[at] = (span){p, n, dev};
	nlive++;
	return 0;
}

/* live_find returns the index of the span p starts (exact) or lies in, or -1. */
static long live_find(const void *p, int exact)
{
	long i = live_index(p);
	if (i < 0)
		return -1;
	if (exact)
		return live[i].p == (const char *)p ? i : -1;
	return (const char *)p < live[i].p + (live[i].n > 0 ? live[i].n : 1) ? i : -1;
}

static void live_del(long i)
{
	memmove(&live[i], &live[i + 1], (nlive - (size_t)i - 1) * sizeof *live);
	nlive--;
}

static void drain_all(void);

/* For the fake BLAS libraries, which link against this one. */
EXPORT int pbfake_current_device(void) { return cur; }

/* pbfake_device_of returns the device of the allocation p lies in, or -1. */
EXPORT int pbfake_device_of(const void *p)
{
	if (p == NULL)
		return -1;
	pthread_mutex_lock(&mu);
	long i = live_find(p, 0);
	int dev = i >= 0 ? live[i].dev : -1;
	pthread_mutex_unlock(&mu);
	return dev;
}

EXPORT int P(GetDeviceCount)(int *n)
{
	long e = envl(ENV("ERROR"), 0);
	*n = 0;
	if (e != 0)
		return (int)e;
	*n = ndev();
	return *n == 0 ? 100 : 0;
}

EXPORT int P(SetDevice)(int d)
{
	long e = envl(ENV("ERROR"), 0);
	if (e != 0)
		return (int)e;
	if (d < 0 || d >= ndev())
		return 101;
	cur = d;
	return 0;
}

EXPORT int P(GetDevice)(int *d)
{
	*d = cur;
	return 0;
}

EXPORT int P(DeviceGetAttribute)(int *v, int attr, int dev)
{
	if (dev < 0 || dev >= ndev())
		return 101;
#ifdef PB_FAKE_HIP
	switch (attr) { /* ROCm 5+ numbering; an MI300X */
	case 5:
		*v = 2100000;
		return 0;
	case 19:
		*v = 4 << 20;
		return 0;
	case 23:
		*v = 9;
		return 0;
	case 59:
		*v = 8192;
		return 0;
	case 60:
		*v = 1300000;
		return 0;
	case 61:
		*v = 4;
		return 0;
	case 63:
		*v = 304;
		return 0;
	}
#else
	if ((attr == 13 || attr == 36) && envl(ENV("NO_CLOCKS"), 0) != 0)
		return 1; /* as a runtime without the clock attributes would */
	switch (attr) { /* an H100 SXM5 */
	case 13:
		*v = 1980000;
		return 0;
	case 16:
		*v = 132;
		return 0;
	case 36:
		*v = 2619000;
		return 0;
	case 37:
		*v = 5120;
		return 0;
	case 38:
		*v = 50 << 20;
		return 0;
	case 75: /* compute capability: 9.0, or PB_FAKE_CUDA_CC as major·10 + minor */
		*v = (int)envl(ENV("CC"), 90) / 10;
		return 0;
	case 76:
		*v = (int)envl(ENV("CC"), 90) % 10;
		return 0;
	}
#endif
	return 1; /* invalid value */
}

#ifdef PB_FAKE_HIP
EXPORT int hipDeviceGetName(char *name, int len, int dev)
{
	if (dev < 0 || dev >= ndev())
		return 101;
	snprintf(name, (size_t)len, "AMD Instinct MI300X (fake %d)", dev);
	return 0;
}
#else
EXPORT int cudaGetDeviceProperties_v2(void *prop, int dev)
{
	if (dev < 0 || dev >= ndev())
		return 101;
	memset(prop, 0, 1032);
	snprintf(prop, 256, "NVIDIA H100 80GB HBM3 (fake %d)", dev);
	return 0;
}
#endif

EXPORT int P(DeviceGetPCIBusId)(char *id, int len, int dev)
{
	if (dev < 0 || dev >= ndev())
		return 101;
	snprintf(id, (size_t)len, "0000:%02x:00.0", dev + 1);
	return 0;
}

EXPORT int P(RuntimeGetVersion)(int *v)
{
#ifdef PB_FAKE_HIP
	*v = 60241134; /* 6.2.41134 */
#else
	*v = 12040;
#endif
	return 0;
}

EXPORT int P(DriverGetVersion)(int *v)
{
#ifdef PB_FAKE_HIP
	*v = (int)envl(ENV("DRIVER"), 60241134);
#else
	*v = (int)envl(ENV("DRIVER"), 12040);
#endif
	return 0;
}

EXPORT const char *P(GetErrorName)(int e)
{
	switch (e) {
	case 0:
		return ERR_PREFIX "Success";
	case 1:
		return ERR_PREFIX "InvalidValue";
	case 2:
		return ERR_PREFIX "MemoryAllocation";
	case 21:
		return ERR_PREFIX "InvalidMemcpyDirection";
	case 35:
		return ERR_PREFIX "InsufficientDriver";
	case 100:
		return ERR_PREFIX "NoDevice";
	case 101:
		return ERR_PREFIX "InvalidDevice";
	case 400:
		return ERR_PREFIX "InvalidResourceHandle";
	case 600:
		return ERR_PREFIX "NotReady";
	}
	return ERR_PREFIX "Unknown";
}

EXPORT const char *P(GetErrorString)(int e)
{
	switch (e) {
	case 0:
		return "no error";
	case 1:
		return "invalid argument";
	case 2:
		return "out of memory";
	case 21:
		return "invalid copy direction for memcpy";
	case 35:
		return "CUDA driver version is insufficient for CUDA runtime version";
	case 100:
		return "no CUDA-capable device is detected";
	case 101:
		return "invalid device ordinal";
	case 400:
		return "invalid resource handle";
	case 600:
		return "device not ready";
	}
	return "unknown error";
}

EXPORT int P(GetLastError)(void) { return 0; }

EXPORT int P(Malloc)(void **p, size_t n)
{
	*p = NULL;
	size_t total = (size_t)envl(ENV("MEM"), 1L << 30);
	pthread_mutex_lock(&mu);
	if (used[cur] + n > total) {
		pthread_mutex_unlock(&mu);
		return 2;
	}
	void *b = NULL;
	if (posix_memalign(&b, 64, sizeof(hdr) + n) != 0) {
		pthread_mutex_unlock(&mu);
		return 2;
	}
	hdr *h = b;
	h->magic = MAGIC;
	h->dev = cur;
	h->size = n;
	if (live_add(h + 1, n, cur) != 0) {
		pthread_mutex_unlock(&mu);
		free(b);
		return 2;
	}
	used[cur] += n;
	pthread_mutex_unlock(&mu);
	memset(h + 1, 0xA5, n); /* device memory is not zeroed */
	*p = h + 1;
	return 0;
}

/* cudaFree waits for the device: no queued work outlives the memory it uses. */
EXPORT int P(Free)(void *p)
{
	if (p == NULL)
		return 0;
	drain_all();
	pthread_mutex_lock(&mu);
	long i = live_find(p, 1);
	if (i < 0) {
		pthread_mutex_unlock(&mu);
		return 1; /* not an allocation's start: cudaErrorInvalidValue */
	}
	live_del(i);
	hdr *h = (hdr *)p - 1;
	used[h->dev] -= h->size;
	pthread_mutex_unlock(&mu);
	h->magic = 0;
	free(h);
	return 0;
}

EXPORT int P(MemGetInfo)(size_t *fr, size_t *tot)
{
	size_t total = (size_t)envl(ENV("MEM"), 1L << 30);
	pthread_mutex_lock(&mu);
	*fr = total - used[cur];
	pthread_mutex_unlock(&mu);
	*tot = total;
	return 0;
}

/* ---- streams and events ---- */

/* A unit of queued work: a call to run (arg freed after), or an event's mark. */
typedef struct work {
	struct work *next;
	void (*fn)(void *arg);
	void *arg;
	struct event *ev; /* a mark: the event completes when the queue reaches it */
	unsigned long seq;
} work;

typedef struct stream {
	uint32_t magic;
	int dev;
	work *head, *tail;
	struct stream *next_live;
} stream;

typedef struct event {
	uint32_t magic;
	int recorded, done;
	unsigned long seq; /* of the latest record */
	stream *on;        /* the stream of the latest record */
	struct timespec t;
} event;

/* qmu guards every queue and the list of streams; work runs without it. */
static pthread_mutex_t qmu = PTHREAD_MUTEX_INITIALIZER;
static stream defaults[MAXDEV]; /* each device's default stream (NULL) */
static stream *streams;         /* the created ones */

/* resolve maps a stream argument to its queue (NULL: the current device's default). */
static stream *resolve(void *s)
{
	stream *st = s;
	if (st == NULL) {
		defaults[cur].magic = MAGIC;
		defaults[cur].dev = cur;
		return &defaults[cur];
	}
	return st->magic == MAGIC ? st : NULL;
}

static void push(stream *st, work *w)
{
	pthread_mutex_lock(&qmu);
	if (st->tail != NULL)
		st->tail->next = w;
	else
		st->head = w;
	st->tail = w;
	pthread_mutex_unlock(&qmu);
}

/*
 * drain carries out st's queue in order, up to and including the mark of
 * (until, seq) when until is not NULL, else all of it.
 */
static void drain(stream *st, const event *until, unsigned long seq)
{
	for (;;) {
		pthread_mutex_lock(&qmu);
		work *w = st->head;
		if (w != NULL) {
			st->head = w->next;
			if (st->head == NULL)
				st->tail = NULL;
		}
		pthread_mutex_unlock(&qmu);
		if (w == NULL)
			return;
		int last = 0;
		if (w->ev != NULL) {
			if (w->ev->seq == w->seq) { /* not re-recorded since */
				clock_gettime(CLOCK_MONOTONIC, &w->ev->t);
				w->ev->done = 1;
			}
			last = w->ev == until && w->seq == seq;
		} else {
			w->fn(w->arg);
			free(w->arg);
		}
		free(w);
		if (last)
			return;
	}
}

/* drain_all carries out every stream's queue: a device-wide synchronization. */
static void drain_all(void)
{
	for (int d = 0; d < MAXDEV; d++)
		drain(&defaults[d], NULL, 0);
	pthread_mutex_lock(&qmu);
	stream *list = streams;
	pthread_mutex_unlock(&qmu);
	for (stream *st = list; st != NULL; st = st->next_live)
		drain(st, NULL, 0);
}

/*
 * pbfake_enqueue puts fn(arg) on stream s (NULL: the default stream), for
 * the fake libraries: it runs when the stream is synchronized, and arg (from
 * malloc) is freed after. Returns 0, or 400 for a bad stream, 2 for no memory.
 */
EXPORT int pbfake_enqueue(void *s, void (*fn)(void *arg), void *arg)
{
	stream *st = resolve(s);
	work *w = st != NULL ? calloc(1, sizeof *w) : NULL;
	if (w == NULL) {
		free(arg);
		return st == NULL ? 400 : 2;
	}
	w->fn = fn;
	w->arg = arg;
	push(st, w);
	return 0;
}

/* Device sides of a copy must be device allocations; host sides must not be. */
static int check_side(const void *p, int device)
{
	return (pbfake_device_of(p) >= 0) == device;
}

typedef struct copy_args {
	void *dst;
	const void *src;
	size_t n;
	int value; /* memset: the byte; -1 for a copy */
} copy_args;

static void run_copy(void *p)
{
	copy_args *a = p;
	if (a->value >= 0)
		memset(a->dst, a->value, a->n);
	else
		memmove(a->dst, a->src, a->n);
}

static int check_copy(void *dst, const void *src, int kind)
{
	switch (kind) {
	case 1: /* host to device */
		return check_side(src, 0) && check_side(dst, 1) ? 0 : 1;
	case 2: /* device to host */
		return check_side(src, 1) && check_side(dst, 0) ? 0 : 1;
	case 3:
		return check_side(src, 1) && check_side(dst, 1) ? 0 : 1;
	}
	return 21;
}

static int enqueue_copy(void *dst, const void *src, size_t n, int value, void *stream)
{
	copy_args *a = malloc(sizeof *a);
	if (a == NULL)
		return 2;
	*a = (copy_args){dst, src, n, value};
	return pbfake_enqueue(stream, run_copy, a);
}

EXPORT int P(MemcpyAsync)(void *dst, const void *src, size_t n, int kind, void *stream)
{
	int e = check_copy(dst, src, kind);
	return e != 0 ? e : enqueue_copy(dst, src, n, -1, stream);
}

/* A synchronous copy waits for the default stream's work first (legacy default stream). */
EXPORT int P(Memcpy)(void *dst, const void *src, size_t n, int kind)
{
	int e = check_copy(dst, src, kind);
	if (e != 0)
		return e;
	drain(resolve(NULL), NULL, 0);
	memmove(dst, src, n);
	return 0;
}

EXPORT int P(MemsetAsync)(void *p, int v, size_t n, void *stream)
{
	if (pbfake_device_of(p) < 0)
		return 1;
	return enqueue_copy(p, NULL, n, v & 0xff, stream);
}

EXPORT int P(DeviceSynchronize)(void)
{
	drain_all();
	return 0;
}

EXPORT int P(StreamCreateWithFlags)(void **s, unsigned flags)
{
	(void)flags;
	stream *st = calloc(1, sizeof *st);
	if (st == NULL)
		return 2;
	st->magic = MAGIC;
	st->dev = cur;
	pthread_mutex_lock(&qmu);
	st->next_live = streams;
	streams = st;
	pthread_mutex_unlock(&qmu);
	*s = st;
	return 0;
}

/* Destroying a stream lets its work finish first, as the runtime does. */
EXPORT int P(StreamDestroy)(void *s)
{
	stream *st = s;
	if (st == NULL || st->magic != MAGIC)
		return 400;
	drain(st, NULL, 0);
	pthread_mutex_lock(&qmu);
	for (stream **pp = &streams; *pp != NULL; pp = &(*pp)->next_live)
		if (*pp == st) {
			*pp = st->next_live;
			break;
		}
	pthread_mutex_unlock(&qmu);
	st->magic = 0;
	free(st);
	return 0;
}

EXPORT int P(StreamSynchronize)(void *s)
{
	stream *st = resolve(s);
	if (st == NULL)
		return 400;
	drain(st, NULL, 0);
	return 0;
}

EXPORT int P(EventCreate)(void **e)
{
	event *ev = calloc(1, sizeof *ev);
	if (ev == NULL)
		return 2;
	ev->magic = MAGIC;
	*e = ev;
	return 0;
}

EXPORT int P(EventRecord)(void *e, void *s)
{
	event *ev = e;
	stream *st = resolve(s);
	if (ev == NULL || ev->magic != MAGIC || st == NULL)
		return 400;
	/* a stream of another device than the current one: the runtime refuses */
	if (st->dev != cur)
		return 400;
	work *w = calloc(1, sizeof *w);
	if (w == NULL)
		return 2;
	pthread_mutex_lock(&qmu);
	ev->seq++;
	w->seq = ev->seq;
	pthread_mutex_unlock(&qmu);
	w->ev = ev;
	ev->recorded = 1;
	ev->done = 0;
	ev->on = st;
	push(st, w);
	return 0;
}

EXPORT int P(EventSynchronize)(void *e)
{
	event *ev = e;
	if (ev == NULL || ev->magic != MAGIC)
		return 400;
	if (ev->recorded && !ev->done)
		drain(ev->on, ev, ev->seq);
	return 0;
}

/* Both events must have completed: cudaErrorNotReady (600) otherwise. */
EXPORT int P(EventElapsedTime)(float *ms, void *a, void *b)
{
	event *x = a, *y = b;
	if (x == NULL || y == NULL || x->magic != MAGIC || y->magic != MAGIC || !x->recorded ||
	    !y->recorded)
		return 400;
	if (!x->done || !y->done)
		return 600;
	double d = (double)(y->t.tv_sec - x->t.tv_sec) * 1e3 +
	           (double)(y->t.tv_nsec - x->t.tv_nsec) * 1e-6;
	*ms = (float)d;
	return 0;
}

/* A pending mark of the event is reached first, so that none outlives it. */
EXPORT int P(EventDestroy)(void *e)
{
	event *ev = e;
	if (ev == NULL || ev->magic != MAGIC)
		return 400;
	if (ev->recorded && !ev->done)
		drain(ev->on, ev, ev->seq);
	ev->magic = 0;
	free(ev);
	return 0;
}
