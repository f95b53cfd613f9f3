/*
 * layer.c — what the layer jobs (cblas_conv.c, onednn_layers.c) share:
 * checking a pb_layer and computing its output extents.
 */
#include <stdint.h>

#include "pb_internal.h"

/* The most elements one tensor of a layer job may hold (as pb_job_alloc). */
#define PB_LAYER_MAX ((int64_t)1 << 36)

void pb_layer_outdims(const pb_layer *g, int conv, int64_t o[3])
{
	for (int i = 0; i < 3; i++) {
		int64_t span = conv ? g->dil[i] * (g->window[i] - 1) + 1 : g->window[i];
		o[i] = (g->in[i] + 2 * g->pad[i] - span) / g->stride[i] + 1;
	}
}

pb_status pb_layer_check(const pb_layer *g, int conv, const char *what, char *err, size_t errlen)
{
	if (g == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: NULL geometry", what);
	if (g->n < 1 || g->c < 1 || (conv && g->k < 1) || g->n > PB_LAYER_MAX || g->c > PB_LAYER_MAX ||
	    g->k > PB_LAYER_MAX)
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: bad sizes n=%lld c=%lld k=%lld", what,
		               (long long)g->n, (long long)g->c, (long long)g->k);
	if (g->rank < 0 || g->rank > 3)
		return pb_fail(PB_ERR_INVALID, err, errlen, "%s: rank %d (accepted: 0 to 3)", what,
		               g->rank);
	int64_t elems = g->n * g->c;
	for (int i = 0; i < 3; i++) {
		if (g->in[i] < 1 || g->window[i] < 1 || g->stride[i] < 1 || g->dil[i] < 1 ||
		    g->pad[i] < 0 || g->out[i] < 1 || g->in[i] > PB_LAYER_MAX ||
		    g->window[i] > PB_LAYER_MAX || g->stride[i] > PB_LAYER_MAX ||
		    g->pad[i] > PB_LAYER_MAX || g->dil[i] > PB_LAYER_MAX || g->out[i] > PB_LAYER_MAX)
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "%s: bad geometry in dimension %d (extent %lld, window %lld, stride "
			               "%lld, padding %lld, dilation %lld, output %lld)",
			               what, i, (long long)g->in[i], (long long)g->window[i],
			               (long long)g->stride[i], (long long)g->pad[i], (long long)g->dil[i],
			               (long long)g->out[i]);
		if (i < 3 - g->rank &&
		    (g->in[i] != 1 || g->window[i] != 1 || g->stride[i] != 1 || g->pad[i] != 0 ||
		     g->dil[i] != 1 || g->out[i] != 1))
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "%s: dimension %d is outside rank %d but not neutral", what, i,
			               g->rank);
		int64_t span = conv ? g->dil[i] * (g->window[i] - 1) + 1 : g->window[i];
		if (g->in[i] + 2 * g->pad[i] < span)
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "%s: the window is larger than the padded input in dimension %d",
			               what, i);
		if (elems > PB_LAYER_MAX / g->in[i])
			return pb_fail(PB_ERR_INVALID, err, errlen, "%s: the input is too large", what);
		elems *= g->in[i];
	}
	return PB_OK;
}
