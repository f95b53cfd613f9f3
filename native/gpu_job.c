/*
 * gpu_job.c — the device place of jobs (job.c): buffers carved from one
 * device allocation, each argument in a type of its own (a low-precision
 * gemm's inputs and its f32 or i32 output), inputs converted on the host
 * and copied once, and
 * runs timed by two events on the device's stream, between which the
 * iterations are enqueued. The pb_gpu_job_* entry points are the contract's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu.h"

static pb_status dev_enter(const pb_job *j, char *err, size_t errlen)
{
	return pb_gpu_enter(j->dev.gpu, err, errlen);
}

static pb_status dev_fail(const pb_job *j, int code, const char *call, char *err, size_t errlen)
{
	const pb_gpu *g = j->dev.gpu;
	return pb_gpu_fail(g->rt, g->label, code, call, err, errlen);
}

/* to_int rounds v to the nearest integer (ties to even) within [lo, hi]. */
static int64_t to_int(double v, int64_t lo, int64_t hi)
{
	if (!(v > (double)lo)) /* NaN too */
		return lo;
	if (v >= (double)hi)
		return hi;
	int64_t t = (int64_t)v; /* toward zero */
	double f = v - (double)t;
	if (f > 0.5 || (f == 0.5 && (t & 1)))
		t++;
	else if (f < -0.5 || (f == -0.5 && (t & 1)))
		t--;
	return t;
}

/* pack converts n doubles to dt's storage in dst. */
static void pack(pb_gpu_dtype dt, const double *src, size_t n, void *dst)
{
	switch (dt) {
	case PB_GPU_I8:
		for (size_t i = 0; i < n; i++)
			((int8_t *)dst)[i] = (int8_t)to_int(src[i], INT8_MIN, INT8_MAX);
		break;
	case PB_GPU_I32:
		for (size_t i = 0; i < n; i++)
			((int32_t *)dst)[i] = (int32_t)to_int(src[i], INT32_MIN, INT32_MAX);
		break;
	case PB_GPU_E4M3:
		for (size_t i = 0; i < n; i++)
			((uint8_t *)dst)[i] = pb_f64_to_e4m3(src[i]);
		break;
	case PB_GPU_E5M2:
		for (size_t i = 0; i < n; i++)
			((uint8_t *)dst)[i] = pb_f64_to_e5m2(src[i]);
		break;
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
	case PB_GPU_I8:
		for (size_t i = 0; i < n; i++)
			dst[i] = ((const int8_t *)src)[i];
		break;
	case PB_GPU_I32:
		for (size_t i = 0; i < n; i++)
			dst[i] = ((const int32_t *)src)[i];
		break;
	case PB_GPU_E4M3:
		for (size_t i = 0; i < n; i++)
			dst[i] = pb_e4m3_to_f64(((const uint8_t *)src)[i]);
		break;
	case PB_GPU_E5M2:
		for (size_t i = 0; i < n; i++)
			dst[i] = pb_e5m2_to_f64(((const uint8_t *)src)[i]);
		break;
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

static pb_status dev_set_input(pb_job *j, int arg, const double *src, size_t len, char *err,
                               size_t errlen)
{
	size_t bytes = len * pb_gpu_dtype_size(j->dev.dt[arg]);
	void *host = malloc(bytes);
	if (host == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "gpu job: out of host memory");
	pack(j->dev.dt[arg], src, len, host);
	const pb_gpu_calls *c = &j->dev.gpu->rt->c;
	void *s = j->dev.gpu->stream;
	int e = c->memcpy_async(pb_job_buf(j, 0, arg), host, bytes, PB_GPU_H2D, s);
	for (int k = 1; e == 0 && k < j->copies; k++)
		e = c->memcpy_async(pb_job_buf(j, k, arg), pb_job_buf(j, 0, arg), bytes, PB_GPU_D2D, s);
	int e2 = c->stream_sync(s); /* before host is freed: the copy reads it */
	free(host);
	if (e == 0)
		e = e2;
	if (e != 0)
		return dev_fail(j, e, PB_GPU_CALL(j->dev.gpu->rt, "MemcpyAsync"), err, errlen);
	return PB_OK;
}

static pb_status dev_output(const pb_job *j, double *dst, size_t len, char *err, size_t errlen)
{
	pb_gpu_dtype dt = j->dev.dt[j->output];
	size_t bytes = len * pb_gpu_dtype_size(dt);
	void *host = malloc(bytes);
	if (host == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "gpu job: out of host memory");
	const pb_gpu_calls *c = &j->dev.gpu->rt->c;
	void *s = j->dev.gpu->stream;
	int e = c->stream_sync(s);
	if (e == 0)
		e = c->memcpy_async(host, pb_job_buf(j, j->last, j->output), bytes, PB_GPU_D2H, s);
	if (e == 0)
		e = c->stream_sync(s);
	if (e != 0) {
		free(host);
		return dev_fail(j, e, PB_GPU_CALL(j->dev.gpu->rt, "MemcpyAsync"), err, errlen);
	}
	unpack(dt, host, len, dst);
	free(host);
	return PB_OK;
}

static pb_status dev_start(pb_job *j, char *err, size_t errlen)
{
	const pb_gpu *g = j->dev.gpu;
	int e = g->rt->c.event_record(j->dev.ev[0], g->stream);
	if (e != 0)
		return dev_fail(j, e, PB_GPU_CALL(g->rt, "EventRecord"), err, errlen);
	return PB_OK;
}

/* dev_stop records the second event, waits for it and reads the time between the two. */
static pb_status dev_stop(pb_job *j, pb_status st, int64_t *ns, char *err, size_t errlen)
{
	const pb_gpu *g = j->dev.gpu;
	const pb_gpu_calls *c = &g->rt->c;
	if (st != PB_OK) {
		c->stream_sync(g->stream);
		c->get_last_error();
		return st;
	}
	const char *call = PB_GPU_CALL(g->rt, "EventRecord");
	int e = c->event_record(j->dev.ev[1], g->stream);
	if (e == 0) {
		call = PB_GPU_CALL(g->rt, "EventSynchronize");
		e = c->event_sync(j->dev.ev[1]);
	}
	float ms = 0;
	if (e == 0) {
		call = PB_GPU_CALL(g->rt, "EventElapsedTime");
		e = c->event_elapsed(&ms, j->dev.ev[0], j->dev.ev[1]);
	}
	if (e != 0)
		return dev_fail(j, e, call, err, errlen);
	*ns = (int64_t)((double)ms * 1e6 + 0.5);
	if (*ns < 1)
		*ns = 1; /* below the events' resolution (about 0.5 µs) */
	return PB_OK;
}

/* dev_quiesce waits for the job's work before its library handle's state is destroyed. */
static void dev_quiesce(pb_job *j)
{
	const pb_gpu *g = j->dev.gpu;
	if (g->rt->c.set_device(g->device) == 0)
		g->rt->c.stream_sync(g->stream);
}

static void dev_release(pb_job *j)
{
	const pb_gpu *g = j->dev.gpu;
	const pb_gpu_calls *c = &g->rt->c;
	if (c->set_device(g->device) == 0) {
		if (j->dev.block != NULL)
			c->free(j->dev.block);
		for (int i = 0; i < 2; i++) {
			if (j->dev.scratch[i] != NULL)
				c->free(j->dev.scratch[i]);
			if (j->dev.ev[i] != NULL)
				c->event_destroy(j->dev.ev[i]);
		}
	}
	c->get_last_error();
}

/* Device memory, two events on the device's stream around the enqueued iterations. */
static const pb_job_place device_place = {
	.name = "gpu job",
	.enter = dev_enter,
	.set_input = dev_set_input,
	.output = dev_output,
	.start = dev_start,
	.stop = dev_stop,
	.quiesce = dev_quiesce,
	.release = dev_release,
};

/* oom formats the out-of-memory message of a job's allocation. */
static pb_status oom(const pb_gpu *gpu, double total, const char *what, int copies, size_t fr,
                     size_t tot, const char *when, char *err, size_t errlen)
{
	char need[32], fb[32], tb[32];
	return pb_fail(PB_ERR_NOMEM, err, errlen,
	               "%s: out of memory allocating %s for %s (%d cop%s; %s free of %s%s)", gpu->label,
	               pb_gpu_bytes(total, need, sizeof need), what, copies, copies == 1 ? "y" : "ies",
	               pb_gpu_bytes((double)fr, fb, sizeof fb), pb_gpu_bytes((double)tot, tb, sizeof tb),
	               when);
}

pb_status pb_gpu_job_alloc(pb_gpu *gpu, int nargs, const size_t *lens, const pb_gpu_dtype *dts,
                           int output, const pb_gpu_job_opts *opts, const char *what,
                           pb_job **out, char *err, size_t errlen)
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
	double total = (double)set * copies;
	if (total > (double)((size_t)1 << 46))
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: %d copies of %zu bytes, too many",
		               copies, set);
	pb_status st = pb_gpu_enter(gpu, err, errlen);
	if (st != PB_OK)
		return st;
	const pb_gpu_calls *c = &gpu->rt->c;
	size_t fr = 0, tot = 0;
	if (c->mem_get_info(&fr, &tot) == 0 && total > (double)fr)
		return oom(gpu, total, what, copies, fr, tot, "", err, errlen);
	c->get_last_error();

	pb_job *j = NULL;
	if ((st = pb_job_new(&device_place, nargs, lens, output, copies, &j, err, errlen)) != PB_OK)
		return st;
	j->dev.gpu = gpu;
	for (int a = 0; a < nargs; a++)
		j->dev.dt[a] = dts[a];
	const char *call = PB_GPU_CALL(gpu->rt, "Malloc");
	size_t bytes_total = set * (size_t)copies;
	int e = c->malloc(&j->dev.block, bytes_total);
	if (e != 0) {
		j->dev.block = NULL;
	} else {
		size_t off = 0;
		for (size_t b = 0; b < (size_t)copies * (size_t)nargs; b++) {
			int a = (int)(b % (size_t)nargs);
			size_t bytes = lens[a] * pb_gpu_dtype_size(dts[a]);
			j->buf[b] = (char *)j->dev.block + off;
			off += bytes == 0 ? 256 : (bytes + 255) & ~(size_t)255;
		}
		e = c->memset_async(j->dev.block, 0, bytes_total, gpu->stream);
		if (e != 0)
			call = PB_GPU_CALL(gpu->rt, "MemsetAsync");
	}
	if (e == 0) {
		call = PB_GPU_CALL(gpu->rt, "EventCreate");
		e = c->event_create(&j->dev.ev[0]);
		if (e == 0)
			e = c->event_create(&j->dev.ev[1]);
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
			st = oom(gpu, total, what, copies, fr, tot, " before", err, errlen);
		} else {
			st = pb_gpu_fail(gpu->rt, gpu->label, e, call, err, errlen);
		}
		pb_job_free(j);
		return st;
	}
	*out = j;
	return PB_OK;
}

pb_status pb_gpu_job_scratch(pb_job *j, int i, size_t bytes, char *err, size_t errlen)
{
	if (i < 0 || i > 1)
		return pb_fail(PB_ERR_INVALID, err, errlen, "gpu job: bad scratch %d", i);
	const pb_gpu *g = j->dev.gpu;
	if (j->dev.scratch[i] != NULL) { /* asked again: the new size replaces the old */
		g->rt->c.free(j->dev.scratch[i]);
		j->dev.scratch[i] = NULL;
		j->dev.scratch_bytes[i] = 0;
	}
	if (bytes == 0)
		return PB_OK;
	int e = g->rt->c.malloc(&j->dev.scratch[i], bytes);
	if (e != 0) {
		j->dev.scratch[i] = NULL;
		g->rt->c.get_last_error();
		char b[32];
		if (e == PB_GPU_CODE_OUT_OF_MEMORY)
			return pb_fail(PB_ERR_NOMEM, err, errlen,
			               "%s: out of memory allocating a %s workspace for %s", g->label,
			               pb_gpu_bytes((double)bytes, b, sizeof b), j->desc);
		return pb_gpu_fail(g->rt, g->label, e, PB_GPU_CALL(g->rt, "Malloc"), err, errlen);
	}
	j->dev.scratch_bytes[i] = bytes;
	return PB_OK;
}

/* The public GPU entry points: the job contract's, on a device job. */

pb_status pb_gpu_job_args(const pb_gpu_job *j, int *nargs, int *output, char *err, size_t errlen)
{
	return pb_job_args(j, nargs, output, err, errlen);
}

pb_status pb_gpu_job_arg_len(const pb_gpu_job *j, int arg, size_t *len, char *err, size_t errlen)
{
	return pb_job_arg_len(j, arg, len, err, errlen);
}

pb_status pb_gpu_job_set_input(pb_gpu_job *j, int arg, const double *src, size_t len, char *err,
                               size_t errlen)
{
	return pb_job_set_input(j, arg, src, len, err, errlen);
}

pb_status pb_gpu_job_run(pb_gpu_job *j, int64_t iters, int64_t *ns, char *err, size_t errlen)
{
	return pb_job_run(j, iters, ns, err, errlen);
}

pb_status pb_gpu_job_output(pb_gpu_job *j, double *dst, size_t len, char *err, size_t errlen)
{
	return pb_job_output(j, dst, len, err, errlen);
}

pb_status pb_gpu_job_describe(const pb_gpu_job *j, char *buf, size_t buflen, char *err,
                              size_t errlen)
{
	return pb_job_describe(j, buf, buflen, err, errlen);
}

void pb_gpu_job_free(pb_gpu_job *j) { pb_job_free(j); }
