/*
 * job.c — the job contract host and device jobs share (pb_internal.h):
 * argument checks, the run loop and its copy rotation, description and
 * freeing. Each place (timing.c: host, gpu_job.c: device) supplies its
 * buffers, its copies in and out and its clock.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pb_internal.h"

pb_status pb_job_new(const pb_job_place *place, int nargs, const size_t *lens, int output,
                     int copies, pb_job **out, char *err, size_t errlen)
{
	if (place == NULL || lens == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "job: NULL argument");
	*out = NULL;
	if (nargs < 1 || nargs > PB_JOB_MAX_ARGS || output < 0 || output >= nargs)
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: bad argument layout", place->name);
	if (copies == 0)
		copies = 1;
	if (copies < 1 || copies > PB_MAX_COPIES)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "%s: copies %d out of range (accepted: 1 to %d)", place->name, copies,
		               PB_MAX_COPIES);
	pb_job *j = calloc(1, sizeof *j);
	if (j == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "%s: out of host memory", place->name);
	j->buf = calloc((size_t)copies * (size_t)nargs, sizeof *j->buf);
	if (j->buf == NULL) {
		free(j);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "%s: out of host memory", place->name);
	}
	j->place = place;
	j->nargs = nargs;
	j->output = output;
	j->copies = copies;
	j->last = -1;
	for (int a = 0; a < nargs; a++)
		j->len[a] = lens[a];
	*out = j;
	return PB_OK;
}

void pb_job_free(pb_job *j)
{
	if (j == NULL)
		return;
	if (j->place->quiesce != NULL)
		j->place->quiesce(j);
	if (j->destroy != NULL)
		j->destroy(j);
	j->place->release(j);
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
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: argument %d out of range (0 to %d)",
		               j->place->name, arg, j->nargs - 1);
	*len = j->len[arg];
	return PB_OK;
}

pb_status pb_job_set_input(pb_job *j, int arg, const double *src, size_t len, char *err,
                           size_t errlen)
{
	if (j == NULL || (src == NULL && len > 0))
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_set_input: NULL argument");
	if (arg < 0 || arg >= j->nargs)
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: argument %d out of range (0 to %d)",
		               j->place->name, arg, j->nargs - 1);
	if (len != j->len[arg])
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: argument %d holds %zu elements, got %zu",
		               j->place->name, arg, j->len[arg], len);
	if (len == 0)
		return PB_OK;
	if (j->place->enter != NULL) {
		pb_status st = j->place->enter(j, err, errlen);
		if (st != PB_OK)
			return st;
	}
	return j->place->set_input(j, arg, src, len, err, errlen);
}

pb_status pb_job_run(pb_job *j, int64_t iters, int64_t *ns, char *err, size_t errlen)
{
	if (j == NULL || ns == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_run: NULL argument");
	*ns = 0;
	if (iters < 0)
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: iterations %lld < 0", j->place->name,
		               (long long)iters);
	pb_status st = PB_OK;
	if (j->place->enter != NULL && (st = j->place->enter(j, err, errlen)) != PB_OK)
		return st;
	if (j->before != NULL && (st = j->before(j, err, errlen)) != PB_OK)
		return st;
	if ((st = j->place->start(j, err, errlen)) != PB_OK)
		return st;
	int c = j->next, last = j->last;
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
	j->next = c;
	j->last = last;
	return j->place->stop(j, st, ns, err, errlen);
}

pb_status pb_job_output(const pb_job *j, double *dst, size_t len, char *err, size_t errlen)
{
	if (j == NULL || (dst == NULL && len > 0))
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_output: NULL argument");
	if (len != j->len[j->output])
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: output holds %zu elements, got %zu",
		               j->place->name, j->len[j->output], len);
	if (j->last < 0)
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: no output yet (run it first)",
		               j->place->name);
	if (len == 0)
		return PB_OK;
	if (j->place->enter != NULL) {
		pb_status st = j->place->enter(j, err, errlen);
		if (st != PB_OK)
			return st;
	}
	return j->place->output(j, dst, len, err, errlen);
}

pb_status pb_job_arg_output(const pb_job *j, int arg, double *dst, size_t len, char *err,
                            size_t errlen)
{
	if (j == NULL || arg < 0 || arg >= j->nargs)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_arg_output: no argument %d", arg);
	/* The places read the output's index from the job: a copy names arg. */
	pb_job view = *j;
	view.output = arg;
	return pb_job_output(&view, dst, len, err, errlen);
}

pb_status pb_job_describe(const pb_job *j, char *buf, size_t buflen, char *err, size_t errlen)
{
	if (j == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_job_describe: NULL argument");
	snprintf(buf, buflen, "%s", j->desc);
	return PB_OK;
}
