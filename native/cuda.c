/*
 * cuda.c — the CUDA runtime (libcudart) as a pb_gpu_rt, and NVML.
 *
 * Why the runtime and not the driver API: cuBLAS and cuDNN take runtime
 * streams and device pointers of the runtime's primary context, so a
 * runtime must be present for them anyway (pip's nvidia-cuda-runtime-cu12
 * wheel ships one in site-packages/nvidia/cuda_runtime/lib, CUDA 13's
 * nvidia-cuda-runtime in nvidia/cu13/lib); with the runtime,
 * our buffers, streams and events are theirs without any context juggling;
 * and cudaGetDeviceCount's error codes say what is missing: no driver or an
 * old one (cudaErrorInsufficientDriver) or no device (cudaErrorNoDevice).
 *
 * Which runtime: libcudart.so.13, .12, then .11.0 (CUDA 11's soname), as
 * found by pb_gpu_lib_open. A runtime newer than the driver supports answers
 * cudaErrorInsufficientDriver; the loader then tries the older runtimes it
 * found before settling on the first such one (whose error the device query
 * reports).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu.h"
#include "vendor/cuda.h"
#include "vendor/nvml.h"

static const char *const cudart_sonames[] = {
	"libcudart.so.13",
	"libcudart.so.12",
	"libcudart.so.11.0",
	NULL,
};

#define CUDART_HINT                                                                             \
	"install the NVIDIA driver and the CUDA runtime (the CUDA toolkit, or `pip install "         \
	"nvidia-cuda-runtime-cu12` for CUDA 12, `nvidia-cuda-runtime` for CUDA 13), or set "         \
	"PEAKBENCH_CUDART to the path of libcudart.so"

/* Property block larger than any CUDA version's cudaDeviceProp (about 1 KiB). */
#define PROPS_BYTES 16384

static int cuda_device_name(pb_gpu_rt *rt, int device, char *name, size_t len)
{
	char *props = calloc(1, PROPS_BYTES);
	if (props == NULL)
		return PB_GPU_CODE_OUT_OF_MEMORY;
	cudaGetDeviceProperties_fn get;
	memcpy(&get, &rt->props_fn, sizeof get);
	int e = get(props, device);
	if (e == 0) {
		props[255] = '\0'; /* name[256] is the first member in every version */
		snprintf(name, len, "%s", props);
	}
	free(props);
	return e;
}

/* resolve looks up every symbol of want; it names the missing ones in why. */
static int resolve(void *dl, const pb_sym *want, size_t n, char *why, size_t whylen)
{
	pb_sb mb;
	pb_sb_init(&mb, why, whylen);
	pb_sb_printf(&mb, "not a CUDA runtime: missing symbol ");
	if (pb_dl_resolve(dl, want, n, &mb) > 0)
		return -1;
	why[0] = '\0';
	return 0;
}

struct cuda_accept {
	pb_gpu_rt *rt;
	void *first_dl; /* the first runtime that answered cudaErrorInsufficientDriver */
	char first_path[PATH_MAX];
	pb_gpu_rt first;
};

static int cuda_bind(pb_gpu_rt *rt, void *dl, char *why, size_t whylen)
{
	pb_gpu_calls *c = &rt->c;
	void *props = NULL, *props2 = NULL;
	pb_sym want[] = {
		{"cudaGetDeviceCount", &c->get_device_count, 0},
		{"cudaSetDevice", &c->set_device, 0},
		{"cudaDeviceGetAttribute", &c->get_attribute, 0},
		{"cudaDeviceGetPCIBusId", &c->pci_bus_id, 1},
		{"cudaRuntimeGetVersion", &c->runtime_version, 0},
		{"cudaDriverGetVersion", &c->driver_version, 0},
		{"cudaGetErrorString", &c->error_string, 0},
		{"cudaGetErrorName", &c->error_name, 0},
		{"cudaGetLastError", &c->get_last_error, 0},
		{"cudaMalloc", &c->malloc, 0},
		{"cudaFree", &c->free, 0},
		{"cudaMemGetInfo", &c->mem_get_info, 0},
		{"cudaMemcpyAsync", &c->memcpy_async, 0},
		{"cudaMemsetAsync", &c->memset_async, 0},
		{"cudaStreamCreateWithFlags", &c->stream_create, 0},
		{"cudaStreamDestroy", &c->stream_destroy, 0},
		{"cudaStreamSynchronize", &c->stream_sync, 0},
		{"cudaEventCreate", &c->event_create, 0},
		{"cudaEventRecord", &c->event_record, 0},
		{"cudaEventSynchronize", &c->event_sync, 0},
		{"cudaEventElapsedTime", &c->event_elapsed, 0},
		{"cudaEventDestroy", &c->event_destroy, 0},
		{"cudaGetDeviceProperties_v2", &props2, 1}, /* CUDA 12+: the current layout */
		{"cudaGetDeviceProperties", &props, 1},
	};
	if (resolve(dl, want, sizeof want / sizeof want[0], why, whylen) != 0)
		return -1;
	rt->props_fn = props2 != NULL ? props2 : props;
	if (rt->props_fn == NULL) {
		snprintf(why, whylen, "not a CUDA runtime: missing symbol cudaGetDeviceProperties");
		return -1;
	}
	rt->dl = dl;
	rt->vendor = PB_GPU_CUDA;
	rt->prefix = "cuda";
	rt->api = "cuda";
	rt->device_name = cuda_device_name;
	rt->attr = (pb_gpu_attrs){
		.clock = cudaDevAttrClockRate,
		.sms = cudaDevAttrMultiProcessorCount,
		.mem_clock = cudaDevAttrMemoryClockRate,
		.bus_width = cudaDevAttrGlobalMemoryBusWidth,
		.l2 = cudaDevAttrL2CacheSize,
		.major = cudaDevAttrComputeCapabilityMajor,
		.minor = cudaDevAttrComputeCapabilityMinor,
	};
	rt->version = 0;
	rt->driver_version = 0;
	c->runtime_version(&rt->version);
	c->driver_version(&rt->driver_version);
	return 0;
}

static int cuda_accept_fn(void *dl, const char *path, void *arg, char *why, size_t whylen)
{
	struct cuda_accept *a = arg;
	if (cuda_bind(a->rt, dl, why, whylen) != 0)
		return -1;
	snprintf(a->rt->path, sizeof a->rt->path, "%s", path);
	int n = 0;
	int e = a->rt->c.get_device_count(&n);
	a->rt->c.get_last_error();
	if (e == cudaErrorInsufficientDriver) {
		char v[16];
		snprintf(v, sizeof v, "%d.%d", a->rt->version / 1000, (a->rt->version % 1000) / 10);
		if (a->rt->driver_version > 0)
			snprintf(why, whylen,
			         "CUDA runtime %s is newer than the driver supports (CUDA %d.%d): "
			         "cudaErrorInsufficientDriver",
			         v, a->rt->driver_version / 1000, (a->rt->driver_version % 1000) / 10);
		else
			snprintf(why, whylen,
			         "CUDA runtime %s loads, but no NVIDIA driver (libcuda.so.1) is installed: "
			         "cudaErrorInsufficientDriver",
			         v);
		if (a->first_dl == NULL) {
			a->first_dl = dl;
			a->first = *a->rt;
			snprintf(a->first_path, sizeof a->first_path, "%s", path);
		}
		return -1;
	}
	return 0;
}

static const pb_gpu_lib cudart_lib = {
	.name = "libcudart",
	.env = "PEAKBENCH_CUDART",
	.sonames = cudart_sonames,
	.search = PB_SEARCH_CUDA,
};

pb_status pb_cuda_load(pb_gpu_rt *rt, const char *path, int *code, char *tried, size_t triedlen,
                       char *err, size_t errlen)
{
	struct cuda_accept a = {.rt = rt};
	void *dl = NULL;
	char msg[4096];
	pb_status st = pb_gpu_lib_open(&cudart_lib, path, NULL, cuda_accept_fn, &a, &dl, NULL, rt->path,
	                               sizeof rt->path, tried, triedlen, msg, sizeof msg);
	if (st == PB_OK)
		return PB_OK;
	if (a.first_dl != NULL) {
		/* Only runtimes the driver cannot serve: keep the first, its device query says why. */
		*rt = a.first;
		snprintf(rt->path, sizeof rt->path, "%s", a.first_path);
		if (code != NULL)
			*code = cudaErrorInsufficientDriver;
		return PB_OK;
	}
	return pb_fail(st, err, errlen, "cuda: %s; %s", msg, CUDART_HINT);
}

/* ---- NVML ---- */

struct pb_nvml {
	void *dl;
	char path[PATH_MAX];
	nvmlDevice_t dev;
	char driver[96];
	nvmlShutdown_fn shutdown;
	nvmlErrorString_fn error_string;
	nvmlDeviceGetClockInfo_fn clock;
	nvmlDeviceGetMaxClockInfo_fn max_clock;
	nvmlDeviceGetTemperature_fn temperature;
	nvmlDeviceGetTemperatureV_fn temperature_v;
	nvmlDeviceGetPowerUsage_fn power;
	nvmlDeviceGetReasons_fn reasons;
	const char *reasons_name;
};

static const char *const nvml_sonames[] = {"libnvidia-ml.so.1", NULL};

static const pb_gpu_lib nvml_lib = {
	.name = "libnvidia-ml",
	.env = "PEAKBENCH_NVML",
	.sonames = nvml_sonames,
	.search = PB_SEARCH_CUDA,
};

static const char *nvml_err(const pb_nvml *n, int r)
{
	const char *s = n->error_string != NULL ? n->error_string(r) : NULL;
	return s != NULL ? s : "unknown NVML error";
}

pb_status pb_nvml_open(const char *pci_bus_id, pb_nvml **out, char *tried, size_t triedlen,
                       char *err, size_t errlen)
{
	if (out == NULL || pci_bus_id == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_nvml_open: NULL argument");
	*out = NULL;
	pb_nvml *n = calloc(1, sizeof *n);
	if (n == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "nvml: out of memory");
	char msg[4096];
	pb_status st = pb_gpu_lib_open(&nvml_lib, NULL, NULL, NULL, NULL, &n->dl, NULL, n->path,
	                               sizeof n->path, tried, triedlen, msg, sizeof msg);
	if (st != PB_OK) {
		free(n);
		return pb_fail(st, err, errlen,
		               "nvml: %s; it comes with the NVIDIA driver (or set PEAKBENCH_NVML)", msg);
	}
	void *init = dlsym(n->dl, "nvmlInit_v2");
	if (init == NULL)
		init = dlsym(n->dl, "nvmlInit");
	void *by_bus = dlsym(n->dl, "nvmlDeviceGetHandleByPciBusId_v2");
	if (by_bus == NULL)
		by_bus = dlsym(n->dl, "nvmlDeviceGetHandleByPciBusId");
	/* All optional here: the required ones are checked below with their fallbacks. */
	const pb_sym syms[] = {
		{"nvmlShutdown", &n->shutdown, 1},
		{"nvmlErrorString", &n->error_string, 1},
		{"nvmlDeviceGetClockInfo", &n->clock, 1},
		{"nvmlDeviceGetMaxClockInfo", &n->max_clock, 1},
		{"nvmlDeviceGetTemperature", &n->temperature, 1},
		{"nvmlDeviceGetTemperatureV", &n->temperature_v, 1}, /* NVML 13 deprecates the one above */
		{"nvmlDeviceGetPowerUsage", &n->power, 1},
	};
	pb_dl_resolve(n->dl, syms, PB_NSYMS(syms), NULL);
	void *p;
	n->reasons_name = "nvmlDeviceGetCurrentClocksEventReasons";
	p = dlsym(n->dl, n->reasons_name);
	if (p == NULL) {
		n->reasons_name = "nvmlDeviceGetCurrentClocksThrottleReasons";
		p = dlsym(n->dl, n->reasons_name);
	}
	memcpy(&n->reasons, &p, sizeof p);
	if (init == NULL || by_bus == NULL || n->shutdown == NULL) {
		st = pb_fail(PB_ERR_SYMBOL, err, errlen,
		             "nvml: %s lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or nvmlShutdown",
		             n->path);
		free(n);
		return st;
	}
	nvmlInit_fn initf;
	memcpy(&initf, &init, sizeof init);
	int r = initf();
	if (r != NVML_SUCCESS) {
		st = pb_fail(PB_ERR_LIBRARY, err, errlen, "nvml: nvmlInit failed (%d): %s", r,
		             nvml_err(n, r));
		free(n);
		return st;
	}
	nvmlDeviceGetHandleByPciBusId_fn byf;
	memcpy(&byf, &by_bus, sizeof by_bus);
	r = byf(pci_bus_id, &n->dev);
	if (r != NVML_SUCCESS) {
		st = pb_fail(PB_ERR_LIBRARY, err, errlen,
		             "nvml: no device at PCI bus id %s (%d): %s", pci_bus_id, r, nvml_err(n, r));
		n->shutdown();
		free(n);
		return st;
	}
	p = dlsym(n->dl, "nvmlSystemGetDriverVersion");
	if (p != NULL) {
		nvmlSystemGetDriverVersion_fn dv;
		memcpy(&dv, &p, sizeof p);
		if (dv(n->driver, sizeof n->driver) != NVML_SUCCESS)
			n->driver[0] = '\0';
	}
	*out = n;
	return PB_OK;
}

pb_status pb_nvml_info(const pb_nvml *n, char *buf, size_t buflen, char *err, size_t errlen)
{
	if (n == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_nvml_info: NULL argument");
	pb_sb sb;
	pb_sb_init(&sb, buf, buflen);
	pb_sb_printf(&sb, "path=%s\ndriver=%s\nreasons_call=%s\ntemperature_call=%s\n", n->path,
	             n->driver, n->reasons != NULL ? n->reasons_name : "none",
	             n->temperature_v != NULL ? "nvmlDeviceGetTemperatureV"
	             : n->temperature != NULL ? "nvmlDeviceGetTemperature"
	                                      : "none");
	return PB_OK;
}

pb_status pb_nvml_read(pb_nvml *n, pb_nvml_sample *s, char *err, size_t errlen)
{
	if (n == NULL || s == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_nvml_read: NULL argument");
	memset(s, 0, sizeof *s);
	if (n->clock != NULL) {
		if (n->clock(n->dev, NVML_CLOCK_SM, &s->sm_mhz) == NVML_SUCCESS)
			s->have |= PB_NVML_HAVE_SM_CLOCK;
		if (n->clock(n->dev, NVML_CLOCK_MEM, &s->mem_mhz) == NVML_SUCCESS)
			s->have |= PB_NVML_HAVE_MEM_CLOCK;
	}
	if (n->max_clock != NULL) {
		if (n->max_clock(n->dev, NVML_CLOCK_SM, &s->max_sm_mhz) == NVML_SUCCESS)
			s->have |= PB_NVML_HAVE_MAX_SM_CLOCK;
		if (n->max_clock(n->dev, NVML_CLOCK_MEM, &s->max_mem_mhz) == NVML_SUCCESS)
			s->have |= PB_NVML_HAVE_MAX_MEM_CLOCK;
	}
	/* The versioned call where NVML has it; the old one where it has not, or refuses. */
	nvmlTemperature_v1_t t = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
	if (n->temperature_v != NULL && n->temperature_v(n->dev, &t) == NVML_SUCCESS &&
	    t.temperature >= 0) {
		s->temp_c = (unsigned)t.temperature;
		s->have |= PB_NVML_HAVE_TEMP;
	} else if (n->temperature != NULL &&
	           n->temperature(n->dev, NVML_TEMPERATURE_GPU, &s->temp_c) == NVML_SUCCESS)
		s->have |= PB_NVML_HAVE_TEMP;
	if (n->power != NULL && n->power(n->dev, &s->power_mw) == NVML_SUCCESS)
		s->have |= PB_NVML_HAVE_POWER;
	if (n->reasons != NULL && n->reasons(n->dev, &s->reasons) == NVML_SUCCESS)
		s->have |= PB_NVML_HAVE_REASONS;
	return PB_OK;
}

void pb_nvml_close(pb_nvml *n)
{
	if (n == NULL)
		return;
	n->shutdown(); /* NVML counts initializations; the library stays mapped */
	free(n);
}
