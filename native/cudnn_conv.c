/*
 * cudnn_conv.c — cuDNN convolution forward as a GPU job: cudnnConvolutionForward
 * in f32 with CUDNN_FMA_MATH (f32 arithmetic: the default math lets Ampere
 * and later run f32 data as TF32, which an f32 workload's tolerance
 * rejects), the algorithm chosen by cudnnFindConvolutionForwardAlgorithm
 * (which times each on the device; cudnnGetConvolutionForwardAlgorithm_v7's
 * heuristic when that fails), the workspace cudnnGetConvolutionForwardWorkspaceSize
 * asks for allocated once. The algorithm chosen is the job's description
 * ("algo=IMPLICIT_PRECOMP_GEMM"), which results record.
 *
 * Tensors are NCHW or NHWC (4-D; 1-D convolutions as 2-D of height 1) or
 * NCDHW / NDHWC (5-D); filters KCRS or KRSC likewise.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu.h"
#include "vendor/cudnn.h"

/* cudnn.c */
void pb_cudnn_parts(pb_cudnn *lib, void **dl, cudnnHandle_t *h, pb_gpu **gpu,
                    cudnnGetErrorString_fn *error_string, const char **no_conv);

typedef struct conv_fns {
	cudnnCreateTensorDescriptor_fn create_tensor;
	cudnnSetTensorNdDescriptorEx_fn set_tensor;
	cudnnDestroyTensorDescriptor_fn destroy_tensor;
	cudnnCreateFilterDescriptor_fn create_filter;
	cudnnSetFilterNdDescriptor_fn set_filter;
	cudnnDestroyFilterDescriptor_fn destroy_filter;
	cudnnCreateConvolutionDescriptor_fn create_conv;
	cudnnSetConvolutionNdDescriptor_fn set_conv;
	cudnnSetConvolutionMathType_fn set_math;
	cudnnDestroyConvolutionDescriptor_fn destroy_conv;
	cudnnGetConvolutionNdForwardOutputDim_fn out_dim;
	cudnnFindConvolutionForwardAlgorithm_fn find;
	cudnnGetConvolutionForwardAlgorithm_v7_fn get_v7;
	cudnnGetConvolutionForwardWorkspaceSize_fn ws_size;
	cudnnConvolutionForward_fn forward;
} conv_fns;

typedef struct conv_ctx {
	conv_fns f;
	cudnnHandle_t h;
	cudnnGetErrorString_fn error_string;
	const char *label;
	cudnnTensorDescriptor_t x, y;
	cudnnFilterDescriptor_t w;
	cudnnConvolutionDescriptor_t conv;
	int algo;
} conv_ctx;

static const char *const algo_names[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM",
                                         "DIRECT",        "FFT",                   "FFT_TILING",
                                         "WINOGRAD",      "WINOGRAD_NONFUSED"};

static const char *algo_name(int a)
{
	return a >= 0 && a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT ? algo_names[a] : "unknown";
}

static pb_status fail(const conv_ctx *c, int s, const char *call, char *err, size_t errlen)
{
	const char *text = c->error_string != NULL ? c->error_string(s) : NULL;
	return pb_fail(PB_ERR_LIBRARY, err, errlen, "cudnn: %s: conv: %s failed (%d): %s", c->label,
	               call, s, text != NULL ? text : "unknown cuDNN status");
}

static void conv_destroy(pb_gpu_job *j)
{
	conv_ctx *c = j->ctx;
	if (c == NULL)
		return;
	if (c->x != NULL)
		c->f.destroy_tensor(c->x);
	if (c->y != NULL)
		c->f.destroy_tensor(c->y);
	if (c->w != NULL)
		c->f.destroy_filter(c->w);
	if (c->conv != NULL)
		c->f.destroy_conv(c->conv);
	free(c);
	j->ctx = NULL;
}

static pb_status conv_iter(pb_gpu_job *j, int cp, char *err, size_t errlen)
{
	conv_ctx *c = j->ctx;
	const float one = 1, zero = 0;
	int s = c->f.forward(c->h, &one, c->x, pb_job_buf(j, cp, 0), c->w, pb_job_buf(j, cp, 1),
	                     c->conv, c->algo, j->dev.scratch[0], j->dev.scratch_bytes[0], &zero, c->y,
	                     pb_job_buf(j, cp, 2));
	if (s != CUDNN_STATUS_SUCCESS)
		return fail(c, s, "cudnnConvolutionForward", err, errlen);
	return PB_OK;
}

pb_status pb_cudnn_conv_job(pb_cudnn *lib, pb_gpu_dtype dt, const pb_layer *g,
                            const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err,
                            size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cudnn_conv_job: NULL argument");
	*out = NULL;
	if (dt != PB_GPU_F32)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cudnn: conv %s: peakbench runs cuDNN convolutions in f32 only",
		               pb_gpu_dtype_name(dt));
	pb_status st = pb_layer_check(g, 1, "cudnn conv", err, errlen);
	if (st != PB_OK)
		return st;
	if (g->rank < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen, "cudnn: conv: rank %d", g->rank);
	int64_t o[3];
	pb_layer_outdims(g, 1, o);
	/* cuDNN takes int dimensions, and tensors of fewer than 2^31 elements. */
	int64_t sizes[] = {g->n * g->c * g->in[0] * g->in[1] * g->in[2],
	                   g->k * g->c * g->window[0] * g->window[1] * g->window[2],
	                   g->n * g->k * o[0] * o[1] * o[2]};
	for (int i = 0; i < 3; i++)
		if (sizes[i] > 0x7fffffffLL)
			return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
			               "cudnn: conv: a tensor of %lld elements: cuDNN tensors hold fewer "
			               "than 2^31",
			               (long long)sizes[i]);

	void *dl;
	conv_ctx *c = calloc(1, sizeof *c);
	if (c == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "cudnn: out of memory");
	pb_gpu *gpu;
	const char *no_conv;
	pb_cudnn_parts(lib, &dl, &c->h, &gpu, &c->error_string, &no_conv);
	c->label = gpu->label;
	/*
	 * cuDNN 8 would abort in the first convolution call. Not found, not
	 * unsupported: an installation to fix, which each result shows.
	 */
	if (no_conv != NULL) {
		free(c);
		return pb_fail(PB_ERR_NOT_FOUND, err, errlen, "cudnn: %s: conv not available: %s",
		               gpu->label, no_conv);
	}
	const pb_sym need[] = {
		{"cudnnCreateTensorDescriptor", &c->f.create_tensor},
		{"cudnnSetTensorNdDescriptorEx", &c->f.set_tensor},
		{"cudnnDestroyTensorDescriptor", &c->f.destroy_tensor},
		{"cudnnCreateFilterDescriptor", &c->f.create_filter},
		{"cudnnSetFilterNdDescriptor", &c->f.set_filter},
		{"cudnnDestroyFilterDescriptor", &c->f.destroy_filter},
		{"cudnnCreateConvolutionDescriptor", &c->f.create_conv},
		{"cudnnSetConvolutionNdDescriptor", &c->f.set_conv},
		{"cudnnSetConvolutionMathType", &c->f.set_math},
		{"cudnnDestroyConvolutionDescriptor", &c->f.destroy_conv},
		{"cudnnGetConvolutionNdForwardOutputDim", &c->f.out_dim},
		{"cudnnFindConvolutionForwardAlgorithm", &c->f.find},
		{"cudnnGetConvolutionForwardAlgorithm_v7", &c->f.get_v7},
		{"cudnnGetConvolutionForwardWorkspaceSize", &c->f.ws_size},
		{"cudnnConvolutionForward", &c->f.forward},
	};
	char missing[512];
	pb_sb mb;
	pb_sb_init(&mb, missing, sizeof missing);
	if (pb_dl_resolve(dl, need, PB_NSYMS(need), &mb) > 0) {
		/* A cuDNN without its convolution sub-library (or a test double). */
		free(c);
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cudnn: conv: the library lacks %s (cuDNN's legacy convolution API)",
		               missing);
	}

	/* Descriptors: 1-D as 2-D of height 1; 2-D 4 dims; 3-D 5 dims. */
	int sp = g->rank == 3 ? 3 : 2, nd = sp + 2;
	int dx[5], dw[5], dy[5], pad[3], stride[3], dil[3];
	dx[0] = dy[0] = (int)g->n;
	dx[1] = dw[1] = (int)g->c;
	dw[0] = dy[1] = (int)g->k;
	for (int i = 0; i < sp; i++) {
		int a = 3 - sp + i;
		dx[2 + i] = (int)g->in[a];
		dw[2 + i] = (int)g->window[a];
		dy[2 + i] = (int)o[a];
		pad[i] = (int)g->pad[a];
		stride[i] = (int)g->stride[a];
		dil[i] = (int)g->dil[a];
	}
	int format = g->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
	const char *call = "cudnnCreateTensorDescriptor";
	int s = c->f.create_tensor(&c->x);
	if (s == CUDNN_STATUS_SUCCESS)
		s = c->f.create_tensor(&c->y);
	if (s == CUDNN_STATUS_SUCCESS) {
		call = "cudnnSetTensorNdDescriptorEx";
		s = c->f.set_tensor(c->x, format, CUDNN_DATA_FLOAT, nd, dx);
	}
	if (s == CUDNN_STATUS_SUCCESS)
		s = c->f.set_tensor(c->y, format, CUDNN_DATA_FLOAT, nd, dy);
	if (s == CUDNN_STATUS_SUCCESS) {
		call = "cudnnSetFilterNdDescriptor";
		s = c->f.create_filter(&c->w);
		if (s == CUDNN_STATUS_SUCCESS)
			s = c->f.set_filter(c->w, CUDNN_DATA_FLOAT, format, nd, dw);
	}
	if (s == CUDNN_STATUS_SUCCESS) {
		call = "cudnnSetConvolutionNdDescriptor";
		s = c->f.create_conv(&c->conv);
		if (s == CUDNN_STATUS_SUCCESS)
			s = c->f.set_conv(c->conv, sp, pad, stride, dil, CUDNN_CROSS_CORRELATION,
			                  CUDNN_DATA_FLOAT);
	}
	if (s == CUDNN_STATUS_SUCCESS) {
		call = "cudnnSetConvolutionMathType";
		s = c->f.set_math(c->conv, CUDNN_FMA_MATH);
	}
	int got[5] = {0};
	if (s == CUDNN_STATUS_SUCCESS) {
		call = "cudnnGetConvolutionNdForwardOutputDim";
		s = c->f.out_dim(c->conv, c->x, c->w, nd, got);
	}
	if (s != CUDNN_STATUS_SUCCESS) {
		pb_gpu_job tmp = {.ctx = c};
		st = fail(c, s, call, err, errlen);
		conv_destroy(&tmp);
		return st;
	}
	if (memcmp(got, dy, (size_t)nd * sizeof(int)) != 0) {
		pb_gpu_job tmp = {.ctx = c};
		conv_destroy(&tmp);
		return pb_fail(PB_ERR_LIBRARY, err, errlen,
		               "cudnn: conv: cuDNN's output extents differ from the floor rule's");
	}

	size_t lens[3] = {(size_t)sizes[0], (size_t)sizes[1], (size_t)sizes[2]};
	pb_gpu_dtype dts[3] = {dt, dt, dt};
	char what[160];
	snprintf(what, sizeof what, "cudnn conv f32 n=%lld c=%lld k=%lld", (long long)g->n,
	         (long long)g->c, (long long)g->k);
	pb_gpu_job *j;
	st = pb_gpu_job_alloc(gpu, 3, lens, dts, 2, opts, what, &j, err, errlen);
	if (st != PB_OK) {
		pb_gpu_job tmp = {.ctx = c};
		conv_destroy(&tmp);
		return st;
	}
	j->dev.lib = lib;
	j->ctx = c;
	j->iter = conv_iter;
	j->destroy = conv_destroy;

	/* The algorithm: the fastest cuDNN measures, else its heuristic's first. */
	cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
	int n = 0, how = 0;
	memset(perf, 0, sizeof perf);
	s = c->f.find(c->h, c->x, c->w, c->conv, c->y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf);
	c->algo = -1;
	for (int i = 0; s == CUDNN_STATUS_SUCCESS && i < n; i++)
		if (perf[i].status == CUDNN_STATUS_SUCCESS) {
			c->algo = perf[i].algo; /* results come fastest first */
			break;
		}
	if (c->algo < 0) {
		how = 1;
		memset(perf, 0, sizeof perf);
		s = c->f.get_v7(c->h, c->x, c->w, c->conv, c->y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf);
		for (int i = 0; s == CUDNN_STATUS_SUCCESS && i < n; i++)
			if (perf[i].status == CUDNN_STATUS_SUCCESS) {
				c->algo = perf[i].algo;
				break;
			}
	}
	if (c->algo < 0) {
		st = s != CUDNN_STATUS_SUCCESS
		         ? fail(c, s, "cudnnGetConvolutionForwardAlgorithm_v7", err, errlen)
		         : pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		                   "cudnn: %s: conv: no forward algorithm supports this geometry", c->label);
		pb_gpu_job_free(j);
		return st;
	}
	size_t ws = 0;
	s = c->f.ws_size(c->h, c->x, c->w, c->conv, c->y, c->algo, &ws);
	if (s != CUDNN_STATUS_SUCCESS) {
		st = fail(c, s, "cudnnGetConvolutionForwardWorkspaceSize", err, errlen);
		pb_gpu_job_free(j);
		return st;
	}
	st = pb_gpu_job_scratch(j, 0, ws, err, errlen);
	if (st != PB_OK) {
		pb_gpu_job_free(j);
		return st;
	}
	snprintf(j->desc, sizeof j->desc,
	         "cudnn conv f32 %s on %s, workspace %zu bytes, chosen by %s algo=%s",
	         g->nhwc ? "nhwc" : "nchw", c->label, ws,
	         how == 0 ? "cudnnFindConvolutionForwardAlgorithm" : "cudnnGetConvolutionForwardAlgorithm_v7",
	         algo_name(c->algo));
	*out = j;
	return PB_OK;
}
