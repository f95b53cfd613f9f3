/*
 * gpu.c — what CUDA and HIP share: the runtime registry, devices, jobs on
 * device buffers timed with device events, the search for GPU libraries,
 * and f16/bf16 conversions. cuda.c and rocblas.c fill in the runtime
 * tables; cublas.c, cudnn.c and rocblas.c make jobs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pb_gpu.h"

/* ---- errors and small helpers ---- */

pb_status pb_gpu_fail(const pb_gpu_rt *rt, const char *label, int code, const char *call,
                      char *err, size_t errlen)
{
	const char *name = rt->c.error_name != NULL ? rt->c.error_name(code) : NULL;
	const char *text = rt->c.error_string != NULL ? rt->c.error_string(code) : NULL;
	pb_status st = PB_ERR_LIBRARY;
	if (code == PB_GPU_CODE_OUT_OF_MEMORY)
		st = PB_ERR_NOMEM;
	return pb_fail(st, err, errlen, "%s: %s failed: %s (%d): %s", label, call,
	               name != NULL ? name : "error", code, text != NULL ? text : "no description");
}

pb_status pb_gpu_enter(const pb_gpu *gpu, char *err, size_t errlen)
{
	int e = gpu->rt->c.set_device(gpu->device);
	if (e != 0)
		return pb_gpu_fail(gpu->rt, gpu->label, e, PB_GPU_CALL(gpu->rt, "SetDevice"), err, errlen);
	return PB_OK;
}

const char *pb_gpu_bytes(double n, char *buf, size_t len)
{
	if (n >= (double)(1ULL << 30))
		snprintf(buf, len, "%.1f GiB", n / (double)(1ULL << 30));
	else if (n >= (double)(1 << 20))
		snprintf(buf, len, "%.1f MiB", n / (double)(1 << 20));
	else if (n >= 1024)
		snprintf(buf, len, "%.1f KiB", n / 1024);
	else
		snprintf(buf, len, "%.0f B", n);
	return buf;
}

/* ---- the runtime registry ---- */

#define PB_MAX_RUNTIMES 8

static pthread_mutex_t rt_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	pb_gpu_vendor vendor;
	char key[PATH_MAX];
	pb_gpu_rt *rt;
} runtimes[PB_MAX_RUNTIMES];
static int nruntimes;

pb_status pb_gpu_rt_open(pb_gpu_vendor vendor, const char *path, pb_gpu_rt **out, int *code,
                         char *tried, size_t triedlen, char *err, size_t errlen)
{
	if (out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_rt_open: out is NULL");
	*out = NULL;
	if (code != NULL)
		*code = 0;
	if (tried != NULL && triedlen > 0)
		tried[0] = '\0';
	if (vendor != PB_GPU_CUDA && vendor != PB_GPU_HIP)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_rt_open: bad vendor %d", (int)vendor);
	/*
	 * The key is what decides the file: the path asked for, else the
	 * override variable's value, else the search ("").
	 */
	char key[PATH_MAX];
	const char *env = getenv(vendor == PB_GPU_CUDA ? "PEAKBENCH_CUDART" : "PEAKBENCH_HIP");
	snprintf(key, sizeof key, "%s", path != NULL && path[0] != '\0' ? path
	                                : env != NULL                  ? env
	                                                               : "");
	pthread_mutex_lock(&rt_mu);
	for (int i = 0; i < nruntimes; i++)
		if (runtimes[i].vendor == vendor && strcmp(runtimes[i].key, key) == 0) {
			*out = runtimes[i].rt;
			pthread_mutex_unlock(&rt_mu);
			return PB_OK;
		}
	pb_status st = PB_OK;
	pb_gpu_rt *rt = calloc(1, sizeof *rt);
	if (rt == NULL) {
		pthread_mutex_unlock(&rt_mu);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "gpu: out of memory");
	}
	rt->vendor = vendor;
	int c = 0;
	if (vendor == PB_GPU_CUDA)
		st = pb_cuda_load(rt, path, &c, tried, triedlen, err, errlen);
	else
		st = pb_hip_load(rt, path, &c, tried, triedlen, err, errlen);
	if (code != NULL)
		*code = c;
	if (st != PB_OK) {
		free(rt);
		pthread_mutex_unlock(&rt_mu);
		return st;
	}
	if (nruntimes < PB_MAX_RUNTIMES) {
		runtimes[nruntimes].vendor = vendor;
		snprintf(runtimes[nruntimes].key, sizeof runtimes[nruntimes].key, "%s", key);
		runtimes[nruntimes].rt = rt;
		nruntimes++;
	}
	/* else: not cached; the runtime (and rt) stay loaded for good anyway */
	pthread_mutex_unlock(&rt_mu);
	*out = rt;
	return PB_OK;
}

static void version_string(pb_gpu_vendor v, int ver, char *buf, size_t len)
{
	if (ver <= 0)
		snprintf(buf, len, "none");
	else if (v == PB_GPU_CUDA) /* 1000·major + 10·minor */
		snprintf(buf, len, "%d.%d", ver / 1000, (ver % 1000) / 10);
	else /* HIP_VERSION: 10000000·major + 100000·minor + patch */
		snprintf(buf, len, "%d.%d.%d", ver / 10000000, (ver / 100000) % 100, ver % 100000);
}

pb_status pb_gpu_rt_info(const pb_gpu_rt *rt, char *buf, size_t buflen, char *err, size_t errlen)
{
	if (rt == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_rt_info: NULL argument");
	char v[32], d[32];
	version_string(rt->vendor, rt->version, v, sizeof v);
	if (rt->vendor == PB_GPU_CUDA)
		version_string(rt->vendor, rt->driver_version, d, sizeof d);
	else
		snprintf(d, sizeof d, "%d", rt->driver_version);
	pb_sb sb;
	pb_sb_init(&sb, buf, buflen);
	pb_sb_printf(&sb, "vendor=%s\npath=%s\nversion=%s\ndriver_version=%s\n",
	             rt->vendor == PB_GPU_CUDA ? "cuda" : "hip", rt->path, v, d);
	return PB_OK;
}

pb_status pb_gpu_device_count(pb_gpu_rt *rt, int *count, int *code, char *err, size_t errlen)
{
	if (rt == NULL || count == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_device_count: NULL argument");
	*count = 0;
	if (code != NULL)
		*code = 0;
	int n = 0;
	int e = rt->c.get_device_count(&n);
	if (e != 0) {
		if (code != NULL)
			*code = e;
		const char *call = PB_GPU_CALL(rt, "GetDeviceCount");
		pb_status st = pb_gpu_fail(rt, rt->prefix, e, call, err, errlen);
		if (e == PB_GPU_CODE_INSUFFICIENT_DRIVER && err != NULL && errlen > 0) {
			size_t l = strlen(err);
			if (rt->driver_version == 0)
				snprintf(err + l, errlen - l, " (no %s driver is installed: %s)",
				         rt->vendor == PB_GPU_CUDA ? "NVIDIA" : "AMD ROCm",
				         rt->vendor == PB_GPU_CUDA ? "libcuda.so.1 is missing" : "no /dev/kfd");
			else {
				char v[32], d[32];
				version_string(rt->vendor, rt->version, v, sizeof v);
				version_string(rt->vendor, rt->driver_version, d, sizeof d);
				snprintf(err + l, errlen - l, " (runtime %s, driver supports %s)", v, d);
			}
		}
		if (rt->c.get_last_error != NULL)
			rt->c.get_last_error();
		return st;
	}
	*count = n;
	return PB_OK;
}

pb_status pb_gpu_device_props(pb_gpu_rt *rt, int device, pb_gpu_props *p, int *code, char *err,
                              size_t errlen)
{
	if (rt == NULL || p == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_device_props: NULL argument");
	memset(p, 0, sizeof *p);
	if (code != NULL)
		*code = 0;
	char label[32];
	snprintf(label, sizeof label, "%s:%d", rt->prefix, device);
	int n = 0;
	pb_status st = pb_gpu_device_count(rt, &n, code, err, errlen);
	if (st != PB_OK)
		return st;
	if (device < 0 || device >= n) {
		if (code != NULL)
			*code = PB_GPU_CODE_INVALID_DEVICE;
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: no such device (%d device%s: 0 to %d)",
		               label, n, n == 1 ? "" : "s", n - 1);
	}
	int e = rt->device_name(rt, device, p->name, sizeof p->name);
	if (e != 0) {
		if (code != NULL)
			*code = e;
		return pb_gpu_fail(rt, label, e,
		                   rt->vendor == PB_GPU_CUDA ? "cudaGetDeviceProperties" : "hipDeviceGetName",
		                   err, errlen);
	}
	if (rt->c.pci_bus_id != NULL &&
	    rt->c.pci_bus_id(p->pci_bus_id, (int)sizeof p->pci_bus_id, device) != 0)
		p->pci_bus_id[0] = '\0';
	struct {
		int attr;
		int *dst;
	} want[] = {
		{rt->attr.major, &p->major},         {rt->attr.minor, &p->minor},
		{rt->attr.sms, &p->sms},             {rt->attr.clock, &p->clock_khz},
		{rt->attr.mem_clock, &p->mem_clock_khz}, {rt->attr.bus_width, &p->bus_width_bits},
		{rt->attr.l2, &p->l2_bytes},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int v = 0;
		if (want[i].attr >= 0 && rt->c.get_attribute(&v, want[i].attr, device) == 0)
			*want[i].dst = v;
	}
	if (rt->c.get_last_error != NULL)
		rt->c.get_last_error();
	/* Memory: needs the device current (this creates its context). */
	e = rt->c.set_device(device);
	if (e == 0) {
		size_t fr = 0, tot = 0;
		if (rt->c.mem_get_info(&fr, &tot) == 0) {
			p->free_mem = fr;
			p->total_mem = tot;
		}
	}
	if (rt->c.get_last_error != NULL)
		rt->c.get_last_error();
	return PB_OK;
}

/* ---- devices ---- */

pb_status pb_gpu_open(pb_gpu_rt *rt, int device, pb_gpu **out, int *code, char *err, size_t errlen)
{
	if (rt == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_open: NULL argument");
	*out = NULL;
	if (code != NULL)
		*code = 0;
	int n = 0;
	pb_status st = pb_gpu_device_count(rt, &n, code, err, errlen);
	if (st != PB_OK)
		return st;
	if (device < 0 || device >= n) {
		if (code != NULL)
			*code = PB_GPU_CODE_INVALID_DEVICE;
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s:%d: no such device (%d device%s: 0 to %d)",
		               rt->prefix, device, n, n == 1 ? "" : "s", n - 1);
	}
	pb_gpu *g = calloc(1, sizeof *g);
	if (g == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "gpu: out of memory");
	g->rt = rt;
	g->device = device;
	snprintf(g->label, sizeof g->label, "%s:%d", rt->prefix, device);
	int e = rt->c.set_device(device);
	if (e == 0)
		e = rt->c.stream_create(&g->stream, 0x01 /* NonBlocking */);
	if (e != 0) {
		if (code != NULL)
			*code = e;
		st = pb_gpu_fail(rt, g->label, e, PB_GPU_CALL(rt, "StreamCreateWithFlags"), err, errlen);
		rt->c.get_last_error();
		free(g);
		return st;
	}
	*out = g;
	return PB_OK;
}

void pb_gpu_close(pb_gpu *g)
{
	if (g == NULL)
		return;
	if (g->rt->c.set_device(g->device) == 0 && g->stream != NULL) {
		g->rt->c.stream_sync(g->stream);
		g->rt->c.stream_destroy(g->stream);
	}
	g->rt->c.get_last_error();
	free(g);
}

pb_status pb_gpu_mem_info(pb_gpu *g, unsigned long long *free_bytes,
                          unsigned long long *total_bytes, char *err, size_t errlen)
{
	if (g == NULL || free_bytes == NULL || total_bytes == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_mem_info: NULL argument");
	pb_status st = pb_gpu_enter(g, err, errlen);
	if (st != PB_OK)
		return st;
	size_t fr = 0, tot = 0;
	int e = g->rt->c.mem_get_info(&fr, &tot);
	if (e != 0)
		return pb_gpu_fail(g->rt, g->label, e, PB_GPU_CALL(g->rt, "MemGetInfo"), err, errlen);
	*free_bytes = fr;
	*total_bytes = tot;
	return PB_OK;
}

pb_status pb_gpu_copy_bandwidth(pb_gpu *g, size_t bytes, int iters, int64_t *ns, char *err,
                                size_t errlen)
{
	if (g == NULL || ns == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_copy_bandwidth: NULL argument");
	*ns = 0;
	if (bytes == 0 || iters < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "%s: copy bandwidth: %zu bytes × %d iterations: both must be positive",
		               g->label, bytes, iters);
	pb_status st = pb_gpu_enter(g, err, errlen);
	if (st != PB_OK)
		return st;
	const pb_gpu_calls *c = &g->rt->c;
	void *src = NULL, *dst = NULL, *e0 = NULL, *e1 = NULL;
	const char *call = NULL;
	int e = c->malloc(&src, bytes);
	call = PB_GPU_CALL(g->rt, "Malloc");
	if (e == 0)
		e = c->malloc(&dst, bytes);
	if (e == 0) {
		call = PB_GPU_CALL(g->rt, "MemsetAsync");
		e = c->memset_async(src, 1, bytes, g->stream);
		if (e == 0)
			e = c->memset_async(dst, 0, bytes, g->stream);
	}
	if (e == 0) {
		call = PB_GPU_CALL(g->rt, "EventCreate");
		e = c->event_create(&e0);
		if (e == 0)
			e = c->event_create(&e1);
	}
	for (int i = 0; e == 0 && i < 2; i++) { /* untimed */
		call = PB_GPU_CALL(g->rt, "MemcpyAsync");
		e = c->memcpy_async(dst, src, bytes, PB_GPU_D2D, g->stream);
	}
	if (e == 0)
		e = c->event_record(e0, g->stream);
	for (int i = 0; e == 0 && i < iters; i++)
		e = c->memcpy_async(dst, src, bytes, PB_GPU_D2D, g->stream);
	if (e == 0) {
		call = PB_GPU_CALL(g->rt, "EventRecord");
		e = c->event_record(e1, g->stream);
	}
	if (e == 0) {
		call = PB_GPU_CALL(g->rt, "EventSynchronize");
		e = c->event_sync(e1);
	}
	float ms = 0;
	if (e == 0) {
		call = PB_GPU_CALL(g->rt, "EventElapsedTime");
		e = c->event_elapsed(&ms, e0, e1);
	}
	if (e != 0) {
		char b[32];
		st = pb_gpu_fail(g->rt, g->label, e, call, err, errlen);
		if (e == PB_GPU_CODE_OUT_OF_MEMORY)
			st = pb_fail(PB_ERR_NOMEM, err, errlen,
			             "%s: out of memory allocating %s for the copy-bandwidth measurement",
			             g->label, pb_gpu_bytes(2.0 * (double)bytes, b, sizeof b));
	} else {
		*ns = (int64_t)((double)ms * 1e6);
	}
	c->stream_sync(g->stream);
	if (e0 != NULL)
		c->event_destroy(e0);
	if (e1 != NULL)
		c->event_destroy(e1);
	if (src != NULL)
		c->free(src);
	if (dst != NULL)
		c->free(dst);
	c->get_last_error();
	return st;
}

/* ---- element types ---- */

size_t pb_gpu_dtype_size(pb_gpu_dtype dt)
{
	switch (dt) {
	case PB_GPU_F16:
	case PB_GPU_BF16:
		return 2;
	case PB_GPU_F32:
	case PB_GPU_TF32:
		return 4;
	case PB_GPU_F64:
		return 8;
	}
	return 0;
}

const char *pb_gpu_dtype_name(pb_gpu_dtype dt)
{
	switch (dt) {
	case PB_GPU_F16:
		return "f16";
	case PB_GPU_BF16:
		return "bf16";
	case PB_GPU_F32:
		return "f32";
	case PB_GPU_TF32:
		return "tf32";
	case PB_GPU_F64:
		return "f64";
	}
	return "?";
}

/*
 * round_bits rounds v to the binary format with ebits exponent and mbits
 * fraction bits (IEEE layout, subnormals, bias 2^(ebits-1)-1), to nearest,
 * ties to even, with integer arithmetic only (no libm), and returns the
 * encoding without the sign; *sign receives v's sign bit.
 */
static uint32_t round_bits(double v, int mbits, int ebits, int *sign)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	*sign = (int)(u >> 63);
	int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias, emax = bias;
	uint32_t inf = ((1u << ebits) - 1u) << mbits;
	int e = (int)((u >> 52) & 0x7ff);
	uint64_t m = u & ((1ULL << 52) - 1);
	if (e == 0x7ff)
		return m != 0 ? inf | (1u << (mbits - 1)) : inf; /* quiet NaN or infinity */
	if (e == 0)
		return 0; /* zero, or a double subnormal: far below half the least subnormal */
	int x = e - 1023; /* v = m·2^(x-52), m with its leading one at bit 52 */
	m |= 1ULL << 52;
	int q = (x < emin ? emin : x) - mbits; /* exponent of the target's last place */
	int shift = q - (x - 52);              /* bits of m below it: at least 52-mbits */
	if (shift >= 54)
		return 0; /* below half the least subnormal */
	uint64_t r = m >> shift, rem = m & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
	if (rem > half || (rem == half && (r & 1)))
		r++;
	if (x < emin) /* subnormal; r == 2^mbits is the least normal, whose encoding is r */
		return (uint32_t)r;
	if (r == (1ULL << (mbits + 1))) {
		r >>= 1;
		x++;
	}
	if (x > emax)
		return inf;
	return ((uint32_t)(x + bias) << mbits) | (uint32_t)(r - (1ULL << mbits));
}

uint16_t pb_f64_to_f16(double v)
{
	int s;
	uint32_t b = round_bits(v, 10, 5, &s);
	return (uint16_t)((s ? 0x8000u : 0u) | b);
}

uint16_t pb_f64_to_bf16(double v)
{
	int s;
	uint32_t b = round_bits(v, 7, 8, &s);
	return (uint16_t)((s ? 0x8000u : 0u) | b);
}

double pb_f16_to_f64(uint16_t h)
{
	uint64_t s = (uint64_t)(h >> 15) << 63;
	int e = (h >> 10) & 0x1f;
	uint64_t m = h & 0x3ff;
	uint64_t u;
	double d;
	if (e == 0) {
		d = (double)m * 0x1p-24;
		return (h >> 15) ? -d : d;
	}
	if (e == 31)
		u = s | (0x7ffULL << 52) | (m << 42);
	else
		u = s | ((uint64_t)(e - 15 + 1023) << 52) | (m << 42);
	memcpy(&d, &u, sizeof d);
	return d;
}

double pb_bf16_to_f64(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return (double)f;
}

/* ---- jobs ---- */

pb_status pb_gpu_job_alloc(pb_gpu *gpu, int nargs, const size_t *lens, const pb_gpu_dtype *dts,
                           int output, const pb_gpu_job_opts *opts, const char *what,
                           pb_gpu_job **out, char *err, size_t errlen)
{
	if (gpu == NULL || lens == NULL || dts == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: NULL argument");
	*out = NULL;
	if (nargs < 1 || nargs > PB_JOB_MAX_ARGS || output < 0 || output >= nargs)
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: bad argument layout");
	int copies = opts != NULL ? opts->copies : 1;
	if (copies == 0)
		copies = 1;
	if (copies < 1 || copies > PB_MAX_COPIES)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "gpu job: copies %d out of range (accepted: 1 to %d)", copies,
		               PB_MAX_COPIES);
	double total = 0;
	size_t set = 0; /* bytes of one copy's buffers, each rounded up to 256 */
	for (int a = 0; a < nargs; a++) {
		size_t es = pb_gpu_dtype_size(dts[a]);
		if (es == 0)
			return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: bad dtype %d", (int)dts[a]);
		if (lens[a] > ((size_t)1 << 40) / es)
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "gpu job: argument %d has %zu elements, too many", a, lens[a]);
		size_t bytes = lens[a] * es;
		set += bytes == 0 ? 256 : (bytes + 255) & ~(size_t)255;
	}
	total = (double)set * copies;
	if (total > (double)((size_t)1 << 46))
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: %d copies of %zu bytes, too many",
		               copies, set);
	pb_status st = pb_gpu_enter(gpu, err, errlen);
	if (st != PB_OK)
		return st;
	const pb_gpu_calls *c = &gpu->rt->c;
	char need[32], fb[32], tb[32];
	size_t fr = 0, tot = 0;
	if (c->mem_get_info(&fr, &tot) == 0 && total > (double)fr)
		return pb_fail(PB_ERR_NOMEM, err, errlen,
		               "%s: out of memory allocating %s for %s (%d cop%s; %s free of %s)",
		               gpu->label, pb_gpu_bytes(total, need, sizeof need), what, copies,
		               copies == 1 ? "y" : "ies", pb_gpu_bytes((double)fr, fb, sizeof fb),
		               pb_gpu_bytes((double)tot, tb, sizeof tb));
	c->get_last_error();

	pb_gpu_job *j = calloc(1, sizeof *j);
	if (j == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "gpu job: out of host memory");
	size_t nbuf = (size_t)copies * (size_t)nargs;
	j->dbuf = calloc(nbuf, sizeof *j->dbuf);
	if (j->dbuf == NULL) {
		free(j);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "gpu job: out of host memory");
	}
	j->gpu = gpu;
	j->nargs = nargs;
	j->output = output;
	j->copies = copies;
	j->last = -1;
	for (int a = 0; a < nargs; a++) {
		j->len[a] = lens[a];
		j->dt[a] = dts[a];
	}
	const char *call = PB_GPU_CALL(gpu->rt, "Malloc");
	size_t bytes_total = set * (size_t)copies;
	int e = c->malloc(&j->block, bytes_total);
	if (e != 0) {
		j->block = NULL;
	} else {
		size_t off = 0;
		for (size_t b = 0; b < nbuf; b++) {
			int a = (int)(b % (size_t)nargs);
			size_t bytes = lens[a] * pb_gpu_dtype_size(dts[a]);
			j->dbuf[b] = (char *)j->block + off;
			off += bytes == 0 ? 256 : (bytes + 255) & ~(size_t)255;
		}
		e = c->memset_async(j->block, 0, bytes_total, gpu->stream);
		if (e != 0)
			call = PB_GPU_CALL(gpu->rt, "MemsetAsync");
	}
	if (e == 0) {
		call = PB_GPU_CALL(gpu->rt, "EventCreate");
		e = c->event_create(&j->ev[0]);
		if (e == 0)
			e = c->event_create(&j->ev[1]);
	}
	if (e == 0) {
		call = PB_GPU_CALL(gpu->rt, "StreamSynchronize");
		e = c->stream_sync(gpu->stream);
	}
	if (e != 0) {
		if (e == PB_GPU_CODE_OUT_OF_MEMORY) {
			fr = tot = 0;
			c->get_last_error();
			c->mem_get_info(&fr, &tot);
			st = pb_fail(PB_ERR_NOMEM, err, errlen,
			             "%s: out of memory allocating %s for %s (%d cop%s; %s free of %s "
			             "before)",
			             gpu->label, pb_gpu_bytes(total, need, sizeof need), what, copies,
			             copies == 1 ? "y" : "ies", pb_gpu_bytes((double)fr, fb, sizeof fb),
			             pb_gpu_bytes((double)tot, tb, sizeof tb));
		} else {
			st = pb_gpu_fail(gpu->rt, gpu->label, e, call, err, errlen);
		}
		pb_gpu_job_free(j);
		return st;
	}
	*out = j;
	return PB_OK;
}

pb_status pb_gpu_job_scratch(pb_gpu_job *j, int i, size_t bytes, char *err, size_t errlen)
{
	if (i < 0 || i > 1)
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: bad scratch %d", i);
	if (bytes == 0)
		return PB_OK;
	int e = j->gpu->rt->c.malloc(&j->scratch[i], bytes);
	if (e != 0) {
		j->scratch[i] = NULL;
		j->gpu->rt->c.get_last_error();
		char b[32];
		if (e == PB_GPU_CODE_OUT_OF_MEMORY)
			return pb_fail(PB_ERR_NOMEM, err, errlen,
			               "%s: out of memory allocating a %s workspace for %s", j->gpu->label,
			               pb_gpu_bytes((double)bytes, b, sizeof b), j->desc);
		return pb_gpu_fail(j->gpu->rt, j->gpu->label, e, PB_GPU_CALL(j->gpu->rt, "Malloc"), err, errlen);
	}
	j->scratch_bytes[i] = bytes;
	return PB_OK;
}

void pb_gpu_job_free(pb_gpu_job *j)
{
	if (j == NULL)
		return;
	const pb_gpu_calls *c = &j->gpu->rt->c;
	int ok = c->set_device(j->gpu->device) == 0;
	if (ok)
		c->stream_sync(j->gpu->stream);
	if (j->destroy != NULL)
		j->destroy(j);
	if (ok) {
		if (j->block != NULL)
			c->free(j->block);
		for (int i = 0; i < 2; i++) {
			if (j->scratch[i] != NULL)
				c->free(j->scratch[i]);
			if (j->ev[i] != NULL)
				c->event_destroy(j->ev[i]);
		}
	}
	c->get_last_error();
	free(j->dbuf);
	free(j);
}

pb_status pb_gpu_job_args(const pb_gpu_job *j, int *nargs, int *output, char *err, size_t errlen)
{
	if (j == NULL || nargs == NULL || output == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_job_args: NULL argument");
	*nargs = j->nargs;
	*output = j->output;
	return PB_OK;
}

pb_status pb_gpu_job_arg_len(const pb_gpu_job *j, int arg, size_t *len, char *err, size_t errlen)
{
	if (j == NULL || len == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_job_arg_len: NULL argument");
	if (arg < 0 || arg >= j->nargs)
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: argument %d out of range (0 to %d)",
		               arg, j->nargs - 1);
	*len = j->len[arg];
	return PB_OK;
}

/* pack converts n doubles to dt's storage in dst. */
static void pack(pb_gpu_dtype dt, const double *src, size_t n, void *dst)
{
	switch (dt) {
	case PB_GPU_F16:
		for (size_t i = 0; i < n; i++)
			((uint16_t *)dst)[i] = pb_f64_to_f16(src[i]);
		break;
	case PB_GPU_BF16:
		for (size_t i = 0; i < n; i++)
			((uint16_t *)dst)[i] = pb_f64_to_bf16(src[i]);
		break;
	case PB_GPU_F32:
	case PB_GPU_TF32:
		for (size_t i = 0; i < n; i++)
			((float *)dst)[i] = (float)src[i];
		break;
	case PB_GPU_F64:
		memcpy(dst, src, n * sizeof(double));
		break;
	}
}

static void unpack(pb_gpu_dtype dt, const void *src, size_t n, double *dst)
{
	switch (dt) {
	case PB_GPU_F16:
		for (size_t i = 0; i < n; i++)
			dst[i] = pb_f16_to_f64(((const uint16_t *)src)[i]);
		break;
	case PB_GPU_BF16:
		for (size_t i = 0; i < n; i++)
			dst[i] = pb_bf16_to_f64(((const uint16_t *)src)[i]);
		break;
	case PB_GPU_F32:
	case PB_GPU_TF32:
		for (size_t i = 0; i < n; i++)
			dst[i] = (double)((const float *)src)[i];
		break;
	case PB_GPU_F64:
		memcpy(dst, src, n * sizeof(double));
		break;
	}
}

pb_status pb_gpu_job_set_input(pb_gpu_job *j, int arg, const double *src, size_t len, char *err,
                               size_t errlen)
{
	if (j == NULL || (src == NULL && len > 0))
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_job_set_input: NULL argument");
	if (arg < 0 || arg >= j->nargs)
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: argument %d out of range (0 to %d)",
		               arg, j->nargs - 1);
	if (len != j->len[arg])
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "gpu job: argument %d holds %zu elements, got %zu", arg, j->len[arg], len);
	if (len == 0)
		return PB_OK;
	pb_status st = pb_gpu_enter(j->gpu, err, errlen);
	if (st != PB_OK)
		return st;
	size_t bytes = len * pb_gpu_dtype_size(j->dt[arg]);
	void *host = malloc(bytes);
	if (host == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "gpu job: out of host memory");
	pack(j->dt[arg], src, len, host);
	const pb_gpu_calls *c = &j->gpu->rt->c;
	void *s = j->gpu->stream;
	int e = c->memcpy_async(pb_gpu_job_buf(j, 0, arg), host, bytes, PB_GPU_H2D, s);
	for (int k = 1; e == 0 && k < j->copies; k++)
		e = c->memcpy_async(pb_gpu_job_buf(j, k, arg), pb_gpu_job_buf(j, 0, arg), bytes,
		                    PB_GPU_D2D, s);
	int e2 = c->stream_sync(s);
	free(host);
	if (e == 0)
		e = e2;
	if (e != 0)
		return pb_gpu_fail(j->gpu->rt, j->gpu->label, e, PB_GPU_CALL(j->gpu->rt, "MemcpyAsync"), err,
		                   errlen);
	return PB_OK;
}

pb_status pb_gpu_job_run(pb_gpu_job *j, int64_t iters, int64_t *ns, char *err, size_t errlen)
{
	if (j == NULL || ns == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_job_run: NULL argument");
	*ns = 0;
	if (iters < 0)
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: iterations %lld < 0",
		               (long long)iters);
	pb_status st = pb_gpu_enter(j->gpu, err, errlen);
	if (st != PB_OK || iters == 0)
		return st;
	if (j->before != NULL && (st = j->before(j, err, errlen)) != PB_OK)
		return st;
	const pb_gpu_calls *c = &j->gpu->rt->c;
	void *s = j->gpu->stream;
	int cp = j->next, last = j->last;
	int e = c->event_record(j->ev[0], s);
	if (e != 0)
		return pb_gpu_fail(j->gpu->rt, j->gpu->label, e, PB_GPU_CALL(j->gpu->rt, "EventRecord"), err,
		                   errlen);
	for (int64_t i = 0; i < iters; i++) {
		st = j->iter(j, cp, err, errlen);
		if (st != PB_OK)
			break;
		last = cp;
		if (++cp == j->copies)
			cp = 0;
	}
	j->next = cp;
	j->last = last;
	if (st != PB_OK) {
		c->stream_sync(s);
		c->get_last_error();
		return st;
	}
	const char *call = PB_GPU_CALL(j->gpu->rt, "EventRecord");
	e = c->event_record(j->ev[1], s);
	if (e == 0) {
		call = PB_GPU_CALL(j->gpu->rt, "EventSynchronize");
		e = c->event_sync(j->ev[1]);
	}
	float ms = 0;
	if (e == 0) {
		call = PB_GPU_CALL(j->gpu->rt, "EventElapsedTime");
		e = c->event_elapsed(&ms, j->ev[0], j->ev[1]);
	}
	if (e != 0)
		return pb_gpu_fail(j->gpu->rt, j->gpu->label, e, call, err, errlen);
	*ns = (int64_t)((double)ms * 1e6 + 0.5);
	if (*ns < 1)
		*ns = 1; /* below the events' resolution (about 0.5 µs) */
	return PB_OK;
}

pb_status pb_gpu_job_output(pb_gpu_job *j, double *dst, size_t len, char *err, size_t errlen)
{
	if (j == NULL || (dst == NULL && len > 0))
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_job_output: NULL argument");
	if (len != j->len[j->output])
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: output holds %zu elements, got %zu",
		               j->len[j->output], len);
	if (j->last < 0)
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: no output yet (run it first)");
	if (len == 0)
		return PB_OK;
	pb_status st = pb_gpu_enter(j->gpu, err, errlen);
	if (st != PB_OK)
		return st;
	pb_gpu_dtype dt = j->dt[j->output];
	size_t bytes = len * pb_gpu_dtype_size(dt);
	void *host = malloc(bytes);
	if (host == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "gpu job: out of host memory");
	const pb_gpu_calls *c = &j->gpu->rt->c;
	void *s = j->gpu->stream;
	int e = c->stream_sync(s);
	if (e == 0)
		e = c->memcpy_async(host, pb_gpu_job_buf(j, j->last, j->output), bytes, PB_GPU_D2H, s);
	if (e == 0)
		e = c->stream_sync(s);
	if (e != 0) {
		free(host);
		return pb_gpu_fail(j->gpu->rt, j->gpu->label, e, PB_GPU_CALL(j->gpu->rt, "MemcpyAsync"), err,
		                   errlen);
	}
	unpack(dt, host, len, dst);
	free(host);
	return PB_OK;
}

pb_status pb_gpu_job_describe(const pb_gpu_job *j, char *buf, size_t buflen, char *err,
                              size_t errlen)
{
	if (j == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_job_describe: NULL argument");
	snprintf(buf, buflen, "%s", j->desc);
	return PB_OK;
}

/* ---- the library search ---- */

/* A growable list of strings. */
typedef struct strlist {
	char **v;
	int n, cap;
} strlist;

static int sl_add(strlist *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return 0;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, (size_t)cap * sizeof *v);
		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(s);
	if (l->v[l->n] == NULL)
		return -1;
	l->n++;
	return 0;
}

static void sl_free(strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_version_desc(const void *a, const void *b)
{
	return strverscmp(*(char *const *)b, *(char *const *)a);
}

/* add_glob adds the folders matching pattern, newest version first. */
static void add_glob(strlist *dirs, const char *pattern)
{
	glob_t g;
	memset(&g, 0, sizeof g);
	if (glob(pattern, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g) == 0) {
		qsort(g.gl_pathv, g.gl_pathc, sizeof *g.gl_pathv, by_version_desc);
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (is_dir(g.gl_pathv[i]))
				sl_add(dirs, g.gl_pathv[i]);
	}
	globfree(&g);
}

static void add_env_dir(strlist *dirs, const char *env, const char *sub)
{
	const char *v = getenv(env);
	if (v == NULL || v[0] == '\0')
		return;
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", v, sub);
	if (strchr(p, '*') != NULL)
		add_glob(dirs, p);
	else if (is_dir(p))
		sl_add(dirs, p);
}

static const char *const cuda_where =
	"$CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda*/lib64, and nvidia/*/lib of Python "
	"site-packages ($VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, ~/.pyenv, /usr/local/lib/python3*, "
	"/usr/lib/python3*)";
static const char *const rocm_where = "$ROCM_PATH/lib, $HIP_PATH/lib, /opt/rocm*/lib";

/* search_dirs lists the folders to look in, in order. */
static void search_dirs(int search, strlist *dirs)
{
	if (search & PB_SEARCH_CUDA) {
		add_env_dir(dirs, "CUDA_HOME", "lib64");
		add_env_dir(dirs, "CUDA_HOME", "lib");
		add_env_dir(dirs, "CUDA_PATH", "lib64");
		add_env_dir(dirs, "CUDA_PATH", "lib");
		if (is_dir("/usr/local/cuda/lib64"))
			sl_add(dirs, "/usr/local/cuda/lib64");
		add_glob(dirs, "/usr/local/cuda-*/lib64");
		add_env_dir(dirs, "VIRTUAL_ENV", "lib/python3*/site-packages/nvidia/*/lib");
		add_env_dir(dirs, "CONDA_PREFIX", "lib/python3*/site-packages/nvidia/*/lib");
		add_env_dir(dirs, "CONDA_PREFIX", "lib");
		add_env_dir(dirs, "HOME", ".local/lib/python3*/site-packages/nvidia/*/lib");
		add_env_dir(dirs, "HOME", ".pyenv/versions/*/lib/python3*/site-packages/nvidia/*/lib");
		add_glob(dirs, "/usr/local/lib/python3*/site-packages/nvidia/*/lib");
		add_glob(dirs, "/usr/local/lib/python3*/dist-packages/nvidia/*/lib");
		add_glob(dirs, "/usr/lib/python3*/site-packages/nvidia/*/lib");
		add_glob(dirs, "/usr/lib/python3*/dist-packages/nvidia/*/lib");
		add_glob(dirs, "/opt/conda/lib/python3*/site-packages/nvidia/*/lib");
		if (is_dir("/usr/local/nvidia/lib64"))
			sl_add(dirs, "/usr/local/nvidia/lib64");
	}
	if (search & PB_SEARCH_ROCM) {
		add_env_dir(dirs, "ROCM_PATH", "lib");
		add_env_dir(dirs, "HIP_PATH", "lib");
		if (is_dir("/opt/rocm/lib"))
			sl_add(dirs, "/opt/rocm/lib");
		add_glob(dirs, "/opt/rocm-*/lib");
	}
}

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* why strips dlerror's leading "CAND: " (the candidate is printed already). */
static const char *why_of(const char *cand, const char *e)
{
	if (e == NULL)
		return "unknown dlopen error";
	size_t n = strlen(cand);
	if (strncmp(e, cand, n) == 0 && e[n] == ':' && e[n + 1] == ' ')
		return e + n + 2;
	return e;
}

/* preload_companions dlopens the companions present in path's folder by full path. */
static void preload_companions(const char *path, const char *const *companions)
{
	if (companions == NULL || strchr(path, '/') == NULL)
		return;
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	for (int i = 0; companions[i] != NULL; i++) {
		char full[PATH_MAX + 128];
		snprintf(full, sizeof full, "%s/%s", dir, companions[i]);
		if (file_exists(full))
			dlopen(full, RTLD_NOW | RTLD_LOCAL); /* best effort: its own failure shows later */
	}
}

pb_status pb_gpu_dlopen(const char *library, const char *env, const char *const *sonames,
                        int search, const char *const *companions, pb_gpu_accept_fn accept,
                        void *accept_arg, void **handle, int *index, char *path, size_t pathlen,
                        char *tried, size_t triedlen, char *err, size_t errlen)
{
	*handle = NULL;
	if (index != NULL)
		*index = -1;
	strlist cands = {0}, dirs = {0};
	int *idx = NULL;
	const char *override = env != NULL ? getenv(env) : NULL;
	if (override != NULL && override[0] == '\0')
		override = NULL;
	if (override != NULL) {
		sl_add(&cands, override);
	} else {
		search_dirs(search, &dirs);
		for (int s = 0; sonames[s] != NULL; s++) {
			sl_add(&cands, sonames[s]);
			for (int d = 0; d < dirs.n; d++) {
				char full[PATH_MAX + 128];
				snprintf(full, sizeof full, "%s/%s", dirs.v[d], sonames[s]);
				if (file_exists(full))
					sl_add(&cands, full);
			}
		}
	}
	idx = calloc((size_t)cands.n + 1, sizeof *idx);
	if (override == NULL && idx != NULL) /* soname index of each candidate */
		for (int i = 0; i < cands.n; i++)
			for (int s = 0; sonames[s] != NULL; s++) {
				const char *base = strrchr(cands.v[i], '/');
				base = base != NULL ? base + 1 : cands.v[i];
				if (strcmp(base, sonames[s]) == 0) {
					idx[i] = s;
					break;
				}
			}

	pb_sb t, e;
	pb_sb_init(&t, tried, triedlen);
	pb_sb_init(&e, err, errlen);
	pb_sb_printf(&e, "%s not found (tried: ", library);
	pb_status st = PB_ERR_NOT_FOUND;
	for (int i = 0; i < cands.n; i++) {
		const char *cand = cands.v[i];
		char why[512];
		why[0] = '\0';
		preload_companions(cand, companions);
		dlerror();
		void *h = dlopen(cand, RTLD_NOW | RTLD_LOCAL);
		if (h != NULL) {
			char rp[PATH_MAX];
			pb_dl_realpath(h, rp, sizeof rp);
			if (accept == NULL || accept(h, rp, accept_arg, why, sizeof why) == 0) {
				*handle = h;
				if (path != NULL && pathlen > 0)
					snprintf(path, pathlen, "%s", rp);
				if (index != NULL)
					*index = override != NULL || idx == NULL ? -1 : idx[i];
				if (tried != NULL && triedlen > 0)
					tried[0] = '\0';
				st = PB_OK;
				break;
			}
		} else {
			snprintf(why, sizeof why, "%s", why_of(cand, dlerror()));
		}
		if (i > 0) {
			pb_sb_printf(&e, "; ");
			pb_sb_printf(&t, "\n");
		}
		if (override != NULL) {
			pb_sb_printf(&e, "%s=%s: %s", env, cand, why);
			pb_sb_printf(&t, "%s=%s: %s", env, cand, why);
		} else {
			pb_sb_printf(&e, "%s: %s", cand, why);
			pb_sb_printf(&t, "%s: %s", cand, why);
		}
	}
	if (st != PB_OK) {
		if (cands.n == 0)
			pb_sb_printf(&e, "no candidates");
		pb_sb_printf(&e, ")");
		if (override == NULL && search != 0) {
			const char *where = (search & PB_SEARCH_CUDA) ? cuda_where : rocm_where;
			if (dirs.n == 0)
				pb_sb_printf(&e, "; no other folder to search (none of %s exists)", where);
			else {
				pb_sb_printf(&e, "; also searched %d folder%s (of %s):", dirs.n,
				             dirs.n == 1 ? "" : "s", where);
				for (int d = 0; d < dirs.n && d < 8; d++)
					pb_sb_printf(&e, " %s", dirs.v[d]);
				if (dirs.n > 8)
					pb_sb_printf(&e, " and %d more", dirs.n - 8);
			}
		}
	}
	free(idx);
	sl_free(&cands);
	sl_free(&dirs);
	return st;
}
