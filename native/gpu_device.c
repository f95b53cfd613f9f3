/*
 * gpu_device.c — devices: their properties, opening one with a stream of
 * its own, free memory, and the device-to-device copy bandwidth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu.h"

/* ---- devices ---- */

pb_status pb_gpu_open(pb_gpu_rt *rt, int device, pb_gpu **out, int *code, char *err, size_t errlen)
{
	if (rt == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_open: NULL argument");
	*out = NULL;
	if (code != NULL)
		*code = 0;
	pb_status st = pb_gpu_check_device(rt, device, code, err, errlen);
	if (st != PB_OK)
		return st;
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

