/*
 * gpu_registry.c — the GPU libraries that register themselves
 * (pb_gpu_registry.h), opened and asked for jobs by name through
 * include/peakbench.h's pb_gpu_vlib_* calls.
 *
 * Rows are added by constructors, before main and before any thread, and
 * only read afterwards: the list needs no lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu_registry.h"

static pb_gpu_libdef *registry;

struct pb_gpu_vlib {
	const pb_gpu_libdef *def;
	void *lib; /* the library's own handle */
};

void pb_gpu_register(pb_gpu_libdef *def)
{
	def->next = registry;
	registry = def;
}

void pb_gpu_vlib_names(char *buf, size_t buflen)
{
	pb_sb sb;
	pb_sb_init(&sb, buf, buflen);
	for (const pb_gpu_libdef *d = registry; d != NULL; d = d->next)
		pb_sb_printf(&sb, "%s\n", d->name);
}

static pb_status find(const char *name, const pb_gpu_libdef **out, char *err, size_t errlen)
{
	const pb_gpu_libdef *found = NULL;
	int n = 0;
	for (const pb_gpu_libdef *d = registry; d != NULL; d = d->next)
		if (strcmp(d->name, name) == 0) {
			found = d;
			n++;
		}
	if (n == 1) {
		*out = found;
		return PB_OK;
	}
	if (n > 1)
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: %d GPU libraries registered by that name",
		               name, n);
	char names[512];
	pb_gpu_vlib_names(names, sizeof names);
	for (char *c = names; *c != '\0'; c++)
		if (*c == '\n')
			*c = c[1] == '\0' ? '\0' : ' ';
	return pb_fail(PB_ERR_INVALID, err, errlen, "%s: no GPU library registered by that name (%s)",
	               name, names[0] != '\0' ? names : "none");
}

pb_status pb_gpu_vlib_open(const char *name, pb_gpu *gpu, const char *path, pb_gpu_vlib **out,
                           char *file, size_t filelen, char *tried, size_t triedlen, char *err,
                           size_t errlen)
{
	if (file != NULL && filelen > 0)
		file[0] = '\0';
	if (tried != NULL && triedlen > 0)
		tried[0] = '\0';
	if (name == NULL || gpu == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_vlib_open: NULL argument");
	*out = NULL;
	const pb_gpu_libdef *def;
	pb_status st = find(name, &def, err, errlen);
	if (st != PB_OK)
		return st;
	if (file != NULL && filelen > 0 && def->search != NULL)
		snprintf(file, filelen, "%s", def->search->name);
	if (gpu->rt->vendor != def->vendor)
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: %s is not a%s device", name, gpu->label,
		               def->vendor == PB_GPU_CUDA ? " CUDA" : " HIP");
	pb_gpu_vlib *v = calloc(1, sizeof *v);
	if (v == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "%s: out of memory", name);
	v->def = def;
	st = def->open(gpu, path, &v->lib, tried, triedlen, err, errlen);
	if (st != PB_OK) {
		free(v);
		return st;
	}
	*out = v;
	return PB_OK;
}

pb_status pb_gpu_vlib_info(const pb_gpu_vlib *lib, char *buf, size_t buflen, char *err,
                           size_t errlen)
{
	if (lib == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_vlib_info: NULL argument");
	return lib->def->info(lib->lib, buf, buflen, err, errlen);
}

pb_status pb_gpu_vlib_job(pb_gpu_vlib *lib, pb_gpu_dtype dt, const int64_t *params, int nparams,
                          const pb_gpu_job_opts *opts, pb_gpu_job **out, int64_t *reported,
                          int nreported, char *err, size_t errlen)
{
	if (lib == NULL || out == NULL || (params == NULL && nparams > 0) || nparams < 0 ||
	    (reported == NULL && nreported > 0) || nreported < 0)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_gpu_vlib_job: bad argument");
	*out = NULL;
	for (int i = 0; i < nreported; i++)
		reported[i] = 0;
	return lib->def->job(lib->lib, dt, params, nparams, opts, out, reported, nreported, err,
	                     errlen);
}

void pb_gpu_vlib_close(pb_gpu_vlib *lib)
{
	if (lib == NULL)
		return;
	lib->def->close(lib->lib);
	free(lib);
}
