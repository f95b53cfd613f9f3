/*
 * gpu_runtime.c — what CUDA and HIP share at the runtime level: error
 * messages, making a device current, and the registry of loaded runtimes
 * (cuda.c and rocblas.c fill in their call tables), with their versions
 * and device counts.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

pb_status pb_gpu_check_device(pb_gpu_rt *rt, int device, int *code, char *err, size_t errlen)
{
	int n = 0;
	pb_status st = pb_gpu_device_count(rt, &n, code, err, errlen);
	if (st != PB_OK)
		return st;
	if (device >= 0 && device < n)
		return PB_OK;
	if (code != NULL)
		*code = PB_GPU_CODE_INVALID_DEVICE;
	return pb_fail(PB_ERR_INVALID, err, errlen, "%s:%d: no such device (%d device%s: 0 to %d)",
	               rt->prefix, device, n, n == 1 ? "" : "s", n - 1);
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
	pb_status st = pb_gpu_check_device(rt, device, code, err, errlen);
	if (st != PB_OK)
		return st;
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

