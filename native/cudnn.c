/*
 * cudnn.c — cuDNN 8 or 9 on a CUDA device, through its legacy tensor-op
 * API: cudnnOpTensor (add, mul), cudnnActivationForward (relu, sigmoid,
 * tanh), cudnnSoftmaxForward (accurate, per row) and cudnnReduceTensor
 * (sum, max), in f32. cuDNN has no exp activation (its element-wise exp
 * lives only in the graph API's pointwise ops): not offered.
 *
 * Tensors: a vector of n elements is the NCHW tensor 1×n×1×1; softmax over
 * each row of a rows×cols matrix is rows×cols×1×1 in instance mode (over
 * C, H, W for each N); reductions reduce 1×n×1×1 to 1×1×1×1, with the
 * workspace cudnnGetReductionWorkspaceSize asks for, allocated once per job.
 *
 * cuDNN 9 splits into sub-libraries (libcudnn_graph, libcudnn_ops, the
 * engine libraries); libcudnn.so.9 is the shim exporting every call, which
 * loads the others by soname when first needed. cuDNN 8 is built the same
 * way (libcudnn.so.8 over libcudnn_ops_infer, _ops_train, _cnn_infer,
 * _cnn_train, _adv_infer, _adv_train). The loader loads the sub-libraries
 * found beside the shim by full path first, so the shim's later load by
 * soname binds to those (and not to another cuDNN on the search path).
 *
 * cuDNN 8 answers a sub-library it cannot load by aborting the process, in
 * the middle of whichever call needed it: a libcudnn.so.8 from a folder
 * not on the linker's path (pip's nvidia/cudnn/lib) without its
 * convolution library beside it would kill the run at the first
 * convolution. So with cuDNN 8 every sub-library peakbench calls into is
 * made resident before any cuDNN call: one missing that every call needs
 * (ops_infer) fails the open; a missing cnn_infer makes convolutions "not
 * available", with the reason, when one is prepared. cuDNN 9 reports the
 * same failure as a status (CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED).
 *
 * The CUDA 12 and CUDA 13 builds of cuDNN 9 are both libcudnn.so.9;
 * cudnnGetCudartVersion says which CUDA the file was built for, and one for
 * another major than the runtime loaded is refused at open, with both
 * versions, rather than failing later inside a call.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu.h"
#include "vendor/cudnn.h"

struct pb_cudnn {
	pb_gpu *gpu;
	void *dl;
	char path[PATH_MAX];
	int major, minor, patch;
	size_t cudart;      /* cudnnGetCudartVersion: 1000·major + 10·minor, 0 unknown */
	char sublibs[2048]; /* the sub-libraries resident, by path, comma-separated */
	char no_conv[1024]; /* why convolutions are not available ("" when they are) */
	cudnnHandle_t h;

	cudnnGetVersion_fn get_version;
	cudnnGetCudartVersion_fn get_cudart;
	cudnnGetProperty_fn get_property;
	cudnnGetErrorString_fn error_string;
	cudnnCreate_fn create;
	cudnnDestroy_fn destroy;
	cudnnSetStream_fn set_stream;
	cudnnCreateTensorDescriptor_fn create_tensor;
	cudnnSetTensor4dDescriptor_fn set_tensor4d;
	cudnnDestroyTensorDescriptor_fn destroy_tensor;
	cudnnCreateOpTensorDescriptor_fn create_op;
	cudnnSetOpTensorDescriptor_fn set_op;
	cudnnDestroyOpTensorDescriptor_fn destroy_op;
	cudnnOpTensor_fn op_tensor;
	cudnnCreateActivationDescriptor_fn create_act;
	cudnnSetActivationDescriptor_fn set_act;
	cudnnDestroyActivationDescriptor_fn destroy_act;
	cudnnActivationForward_fn act_forward;
	cudnnSoftmaxForward_fn softmax_forward;
	cudnnCreateReduceTensorDescriptor_fn create_reduce;
	cudnnSetReduceTensorDescriptor_fn set_reduce;
	cudnnDestroyReduceTensorDescriptor_fn destroy_reduce;
	cudnnGetReductionIndicesSize_fn reduce_indices_size;
	cudnnGetReductionWorkspaceSize_fn reduce_workspace_size;
	cudnnReduceTensor_fn reduce;
};

static const char *const cudnn_sonames[] = {"libcudnn.so.9", "libcudnn.so.8", NULL};

/*
 * cuDNN 9's and 8's sub-libraries, each after those it needs, loaded from
 * the shim's folder. cuDNN 8's (the documented dependencies): ops_train,
 * cnn_infer and adv_infer need ops_infer; cnn_train needs ops_infer,
 * ops_train and cnn_infer; adv_train needs ops_infer, ops_train and
 * adv_infer.
 */
static const char *const cudnn_companions[] = {
	"libcudnn_graph.so.9",
	"libcudnn_engines_precompiled.so.9",
	"libcudnn_engines_runtime_compiled.so.9",
	"libcudnn_heuristic.so.9",
	"libcudnn_ops.so.9",
	"libcudnn_cnn.so.9",
	"libcudnn_adv.so.9",
	"libcudnn_ops_infer.so.8",
	"libcudnn_ops_train.so.8",
	"libcudnn_cnn_infer.so.8",
	"libcudnn_cnn_train.so.8",
	"libcudnn_adv_infer.so.8",
	"libcudnn_adv_train.so.8",
	NULL,
};

static const pb_gpu_lib cudnn_lib = {
	.name = "libcudnn",
	.env = "PEAKBENCH_CUDNN",
	.sonames = cudnn_sonames,
	.search = PB_SEARCH_CUDA,
	.companions = cudnn_companions,
};

/* What peakbench needs of each cuDNN 8 sub-library. */
enum { SUB_OPTIONAL, SUB_OPEN, SUB_CONV };
static const struct {
	const char *soname;
	int need;
} cudnn8_sublibs[] = {
	{"libcudnn_ops_infer.so.8", SUB_OPEN}, /* handles, tensors, every tensor op */
	{"libcudnn_ops_train.so.8", SUB_OPTIONAL},
	{"libcudnn_cnn_infer.so.8", SUB_CONV}, /* convolution forward */
	{"libcudnn_cnn_train.so.8", SUB_OPTIONAL},
	{"libcudnn_adv_infer.so.8", SUB_OPTIONAL},
	{"libcudnn_adv_train.so.8", SUB_OPTIONAL},
};

#define CUDNN_HINT                                                                              \
	"install cuDNN (NVIDIA's packages, or `pip install nvidia-cudnn-cu12` for CUDA 12, "         \
	"`nvidia-cudnn-cu13` for CUDA 13) or set PEAKBENCH_CUDNN to the path of libcudnn.so"

/* file_major returns N of a file named libcudnn.so.N[.…], else 0. */
static int file_major(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	if (strncmp(base, "libcudnn.so.", 12) != 0)
		return 0;
	return atoi(base + 12);
}

/*
 * cudnn8_resident makes cuDNN 8's sub-libraries resident before any cuDNN
 * call can ask for one: those preloaded from the shim's folder are found
 * by soname (as the shim will find them); any other is opened by soname on
 * the linker's path now, as the shim would mid-run. One every call needs
 * that is missing fails; a missing convolution library is noted in
 * lib->no_conv.
 */
static pb_status cudnn8_resident(pb_cudnn *lib, char *err, size_t errlen)
{
	pb_sb sb;
	pb_sb_init(&sb, lib->sublibs, sizeof lib->sublibs);
	for (size_t i = 0; i < sizeof cudnn8_sublibs / sizeof cudnn8_sublibs[0]; i++) {
		const char *so = cudnn8_sublibs[i].soname;
		char why[512];
		void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
		if (h == NULL && pb_dl_sibling_exists(lib->path, so)) {
			/* beside the shim, yet the preload failed: say why */
			char full[PATH_MAX + 64];
			snprintf(full, sizeof full, "%.*s/%s",
			         (int)(strrchr(lib->path, '/') - lib->path), lib->path, so);
			dlerror();
			h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
			if (h == NULL) {
				const char *e = dlerror();
				snprintf(why, sizeof why, "%s beside %s does not load: %s", so, lib->path,
				         e != NULL ? e : "unknown dlopen error");
			}
		} else if (h == NULL) {
			h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
			if (h == NULL)
				snprintf(why, sizeof why, "%s missing (not beside %s, nor on the linker's path)",
				         so, lib->path);
		}
		if (h != NULL) {
			char rp[PATH_MAX];
			pb_dl_realpath(h, rp, sizeof rp);
			pb_sb_printf(&sb, "%s%s", sb.len > 0 ? "," : "", rp[0] != '\0' ? rp : so);
			continue; /* stays loaded: the shim's dlopen by soname finds it */
		}
		if (cudnn8_sublibs[i].need == SUB_OPEN)
			return pb_fail(PB_ERR_NOT_FOUND, err, errlen,
			               "cudnn: %s is cuDNN 8, whose every call needs %s: %s; %s", lib->path,
			               so, why, CUDNN_HINT);
		if (cudnn8_sublibs[i].need == SUB_CONV)
			snprintf(lib->no_conv, sizeof lib->no_conv, "%s", why);
	}
	return PB_OK;
}

static pb_status cudnn_fail(const pb_cudnn *lib, int s, const char *call, char *err,
                            size_t errlen)
{
	const char *text = lib->error_string != NULL ? lib->error_string(s) : NULL;
	return pb_fail(PB_ERR_LIBRARY, err, errlen, "cudnn: %s: %s failed (%d): %s", lib->gpu->label,
	               call, s, text != NULL ? text : "unknown cuDNN status");
}

pb_status pb_cudnn_open(pb_gpu *gpu, const char *path, pb_cudnn **out, char *tried,
                        size_t triedlen, char *err, size_t errlen)
{
	if (gpu == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cudnn_open: NULL argument");
	*out = NULL;
	if (gpu->rt->vendor != PB_GPU_CUDA)
		return pb_fail(PB_ERR_INVALID, err, errlen, "cudnn: %s is not a CUDA device", gpu->label);
	pb_cudnn *lib = calloc(1, sizeof *lib);
	if (lib == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "cudnn: out of memory");
	lib->gpu = gpu;
	char msg[4096];
	pb_status st = pb_gpu_lib_open(&cudnn_lib, path, NULL, NULL, NULL, &lib->dl, NULL, lib->path,
	                               sizeof lib->path, tried, triedlen, msg, sizeof msg);
	if (st != PB_OK) {
		free(lib);
		return pb_fail(st, err, errlen, "cudnn: %s; %s", msg, CUDNN_HINT);
	}
	/*
	 * cuDNN 8's sub-libraries before its first call (which may need one);
	 * a file not named by its major is cuDNN 8 when ops_infer is beside it.
	 */
	int fmajor = file_major(lib->path);
	int checked8 = fmajor == 8 ||
	               (fmajor == 0 && pb_dl_sibling_exists(lib->path, "libcudnn_ops_infer.so.8"));
	if (checked8) {
		st = cudnn8_resident(lib, err, errlen);
		if (st != PB_OK) {
			free(lib);
			return st;
		}
	}
	pb_sym syms[] = {
		{"cudnnGetVersion", &lib->get_version, 0},
		{"cudnnGetCudartVersion", &lib->get_cudart, 1},
		{"cudnnGetProperty", &lib->get_property, 1},
		{"cudnnGetErrorString", &lib->error_string, 0},
		{"cudnnCreate", &lib->create, 0},
		{"cudnnDestroy", &lib->destroy, 0},
		{"cudnnSetStream", &lib->set_stream, 0},
		{"cudnnCreateTensorDescriptor", &lib->create_tensor, 0},
		{"cudnnSetTensor4dDescriptor", &lib->set_tensor4d, 0},
		{"cudnnDestroyTensorDescriptor", &lib->destroy_tensor, 0},
		{"cudnnCreateOpTensorDescriptor", &lib->create_op, 0},
		{"cudnnSetOpTensorDescriptor", &lib->set_op, 0},
		{"cudnnDestroyOpTensorDescriptor", &lib->destroy_op, 0},
		{"cudnnOpTensor", &lib->op_tensor, 0},
		{"cudnnCreateActivationDescriptor", &lib->create_act, 0},
		{"cudnnSetActivationDescriptor", &lib->set_act, 0},
		{"cudnnDestroyActivationDescriptor", &lib->destroy_act, 0},
		{"cudnnActivationForward", &lib->act_forward, 0},
		{"cudnnSoftmaxForward", &lib->softmax_forward, 0},
		{"cudnnCreateReduceTensorDescriptor", &lib->create_reduce, 0},
		{"cudnnSetReduceTensorDescriptor", &lib->set_reduce, 0},
		{"cudnnDestroyReduceTensorDescriptor", &lib->destroy_reduce, 0},
		{"cudnnGetReductionIndicesSize", &lib->reduce_indices_size, 0},
		{"cudnnGetReductionWorkspaceSize", &lib->reduce_workspace_size, 0},
		{"cudnnReduceTensor", &lib->reduce, 0},
	};
	char missing[512];
	pb_sb mb;
	pb_sb_init(&mb, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, syms, PB_NSYMS(syms), &mb) > 0) {
		st = pb_fail(PB_ERR_SYMBOL, err, errlen, "cudnn: %s is not cuDNN 8/9: missing symbol %s", lib->path,
		             missing);
		free(lib);
		return st;
	}
	if (lib->get_property != NULL) {
		lib->get_property(PB_LIBPROP_MAJOR, &lib->major);
		lib->get_property(PB_LIBPROP_MINOR, &lib->minor);
		lib->get_property(PB_LIBPROP_PATCH, &lib->patch);
	}
	if (lib->major == 0) {
		size_t v = lib->get_version();
		if (v >= 90000) { /* 10000·major + 100·minor + patch from cuDNN 9 */
			lib->major = (int)(v / 10000);
			lib->minor = (int)(v % 10000 / 100);
		} else {
			lib->major = (int)(v / 1000);
			lib->minor = (int)(v % 1000 / 100);
		}
		lib->patch = (int)(v % 100);
	}
	if (lib->major < 8) {
		st = pb_fail(PB_ERR_VERSION, err, errlen,
		             "cudnn: %s is cuDNN %d.%d.%d; peakbench speaks the API of cuDNN 8 and 9; %s",
		             lib->path, lib->major, lib->minor, lib->patch, CUDNN_HINT);
		free(lib);
		return st;
	}
	if (lib->major == 8 && !checked8) { /* late, but before the first handle */
		st = cudnn8_resident(lib, err, errlen);
		if (st != PB_OK) {
			free(lib);
			return st;
		}
	}
	/* The CUDA it was built for must be the runtime's major (minor versions are compatible). */
	int rtv = gpu->rt->version;
	lib->cudart = lib->get_cudart != NULL ? lib->get_cudart() : 0;
	if (lib->cudart > 0 && rtv > 0 && (int)(lib->cudart / 1000) != rtv / 1000) {
		st = pb_fail(PB_ERR_VERSION, err, errlen,
		             "cudnn: %s is cuDNN %d.%d.%d built for CUDA %d.%d (cudnnGetCudartVersion "
		             "%zu), but the CUDA runtime loaded is %d.%d (%s): install the cuDNN built "
		             "for CUDA %d (`pip install nvidia-cudnn-cu%d`), or set PEAKBENCH_CUDNN to "
		             "one, or PEAKBENCH_CUDART to a CUDA %d.x runtime",
		             lib->path, lib->major, lib->minor, lib->patch, (int)(lib->cudart / 1000),
		             (int)(lib->cudart % 1000 / 10), lib->cudart, rtv / 1000, rtv % 1000 / 10,
		             gpu->rt->path, rtv / 1000, rtv / 1000, (int)(lib->cudart / 1000));
		free(lib);
		return st;
	}
	st = pb_gpu_enter(gpu, err, errlen);
	if (st != PB_OK) {
		free(lib);
		return st;
	}
	int s = lib->create(&lib->h);
	if (s != CUDNN_STATUS_SUCCESS) {
		st = cudnn_fail(lib, s, "cudnnCreate", err, errlen);
		free(lib);
		return st;
	}
	s = lib->set_stream(lib->h, gpu->stream);
	if (s != CUDNN_STATUS_SUCCESS) {
		st = cudnn_fail(lib, s, "cudnnSetStream", err, errlen);
		lib->destroy(lib->h);
		free(lib);
		return st;
	}
	*out = lib;
	return PB_OK;
}

pb_status pb_cudnn_info(const pb_cudnn *lib, char *buf, size_t buflen, char *err, size_t errlen)
{
	if (lib == NULL || buf == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cudnn_info: NULL argument");
	pb_sb sb;
	pb_sb_init(&sb, buf, buflen);
	pb_sb_printf(&sb, "version=%d.%d.%d\npath=%s\n", lib->major, lib->minor, lib->patch,
	             lib->path);
	if (lib->cudart > 0)
		pb_sb_printf(&sb, "built_for_cuda=%d.%d\n", (int)(lib->cudart / 1000),
		             (int)(lib->cudart % 1000 / 10));
	if (lib->sublibs[0] != '\0')
		pb_sb_printf(&sb, "sublibraries=%s\n", lib->sublibs);
	if (lib->no_conv[0] != '\0')
		pb_sb_printf(&sb, "conv=not available: %s\n", lib->no_conv);
	return PB_OK;
}

void pb_cudnn_close(pb_cudnn *lib)
{
	if (lib == NULL)
		return;
	if (pb_gpu_enter(lib->gpu, NULL, 0) == PB_OK)
		lib->destroy(lib->h);
	free(lib);
}

/* ---- jobs ---- */

typedef struct cudnn_ctx {
	cudnnTensorDescriptor_t x, y;
	cudnnOpTensorDescriptor_t op;
	cudnnActivationDescriptor_t act;
	cudnnReduceTensorDescriptor_t red;
} cudnn_ctx;

static void cudnn_destroy(pb_gpu_job *j)
{
	pb_cudnn *lib = j->dev.lib;
	cudnn_ctx *c = j->ctx;
	if (c == NULL)
		return;
	if (c->x != NULL)
		lib->destroy_tensor(c->x);
	if (c->y != NULL)
		lib->destroy_tensor(c->y);
	if (c->op != NULL)
		lib->destroy_op(c->op);
	if (c->act != NULL)
		lib->destroy_act(c->act);
	if (c->red != NULL)
		lib->destroy_reduce(c->red);
	free(c);
	j->ctx = NULL;
}

static pb_status cudnn_iter(pb_gpu_job *j, int cp, char *err, size_t errlen)
{
	pb_cudnn *lib = j->dev.lib;
	cudnn_ctx *c = j->ctx;
	const float one = 1, zero = 0;
	const void *x = pb_job_buf(j, cp, 0);
	int s;
	const char *call;
	switch ((pb_cudnn_op)j->p[0]) {
	case PB_CUDNN_ADD:
	case PB_CUDNN_MUL:
		call = "cudnnOpTensor";
		s = lib->op_tensor(lib->h, c->op, &one, c->x, x, &one, c->x, pb_job_buf(j, cp, 1),
		                   &zero, c->x, pb_job_buf(j, cp, 2));
		break;
	case PB_CUDNN_RELU:
	case PB_CUDNN_SIGMOID:
	case PB_CUDNN_TANH:
		call = "cudnnActivationForward";
		s = lib->act_forward(lib->h, c->act, &one, c->x, x, &zero, c->x, pb_job_buf(j, cp, 1));
		break;
	case PB_CUDNN_SOFTMAX:
		call = "cudnnSoftmaxForward";
		s = lib->softmax_forward(lib->h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one,
		                         c->x, x, &zero, c->x, pb_job_buf(j, cp, 1));
		break;
	default: /* sum, max */
		call = "cudnnReduceTensor";
		s = lib->reduce(lib->h, c->red, j->dev.scratch[1], j->dev.scratch_bytes[1], j->dev.scratch[0],
		                j->dev.scratch_bytes[0], &one, c->x, x, &zero, c->y,
		                pb_job_buf(j, cp, 1));
		break;
	}
	if (s != CUDNN_STATUS_SUCCESS)
		return cudnn_fail(lib, s, call, err, errlen);
	return PB_OK;
}

static const char *const op_names[] = {"add",     "mul",     "relu", "sigmoid",
                                       "tanh",    "softmax", "sum",  "max"};

pb_status pb_cudnn_job(pb_cudnn *lib, pb_cudnn_op op, pb_gpu_dtype dt, int64_t rows, int64_t cols,
                       const pb_gpu_job_opts *opts, pb_gpu_job **out, char *err, size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cudnn_job: NULL argument");
	*out = NULL;
	if ((int)op < PB_CUDNN_ADD || (int)op > PB_CUDNN_MAX)
		return pb_fail(PB_ERR_INVALID, err, errlen, "cudnn: bad op %d", (int)op);
	const char *name = op_names[op];
	if (dt != PB_GPU_F32)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "cudnn: %s %s: peakbench runs cuDNN in f32 only",
		               name, pb_gpu_dtype_name(dt));
	if (rows < 1 || cols < 1 || (op != PB_CUDNN_SOFTMAX && rows != 1))
		return pb_fail(PB_ERR_INVALID, err, errlen, "cudnn: %s: shape %lld×%lld", name,
		               (long long)rows, (long long)cols);
	if ((op == PB_CUDNN_SUM || op == PB_CUDNN_MAX) && cols < 2)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cudnn: %s of one element: cudnnReduceTensor refuses a reduction that "
		               "reduces no dimension (CUDNN_STATUS_BAD_PARAM, seen with cuDNN 9.14)",
		               name);
	if (rows * cols > 0x7fffffffLL)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "cudnn: %s: %lld elements: cuDNN tensors hold fewer than 2^31", name,
		               (long long)(rows * cols));
	size_t n = (size_t)(rows * cols);
	int nargs = 2;
	size_t lens[3] = {n, n, n};
	if (op == PB_CUDNN_ADD || op == PB_CUDNN_MUL)
		nargs = 3;
	if (op == PB_CUDNN_SUM || op == PB_CUDNN_MAX)
		lens[1] = 1;
	pb_gpu_dtype dts[3] = {dt, dt, dt};
	char what[128];
	snprintf(what, sizeof what, "cudnn %s f32 %lldx%lld", name, (long long)rows, (long long)cols);
	pb_gpu_job *j;
	pb_status st =
		pb_gpu_job_alloc(lib->gpu, nargs, lens, dts, nargs - 1, opts, what, &j, err, errlen);
	if (st != PB_OK)
		return st;
	j->dev.lib = lib;
	j->iter = cudnn_iter;
	j->destroy = cudnn_destroy;
	j->p[0] = op;
	cudnn_ctx *c = calloc(1, sizeof *c);
	if (c == NULL) {
		pb_gpu_job_free(j);
		return pb_fail(PB_ERR_NOMEM, err, errlen, "cudnn: out of memory");
	}
	j->ctx = c;
	snprintf(j->desc, sizeof j->desc, "%s", what);
	int s = lib->create_tensor(&c->x);
	const char *call = "cudnnCreateTensorDescriptor";
	if (s == CUDNN_STATUS_SUCCESS) {
		call = "cudnnSetTensor4dDescriptor";
		if (op == PB_CUDNN_SOFTMAX)
			s = lib->set_tensor4d(c->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)rows, (int)cols, 1, 1);
		else
			s = lib->set_tensor4d(c->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, (int)cols, 1, 1);
	}
	const char *how = "";
	if (s == CUDNN_STATUS_SUCCESS) {
		switch (op) {
		case PB_CUDNN_ADD:
		case PB_CUDNN_MUL:
			call = "cudnnSetOpTensorDescriptor";
			s = lib->create_op(&c->op);
			if (s == CUDNN_STATUS_SUCCESS)
				s = lib->set_op(c->op, op == PB_CUDNN_ADD ? CUDNN_OP_TENSOR_ADD : CUDNN_OP_TENSOR_MUL,
				                CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
			how = op == PB_CUDNN_ADD ? "cudnnOpTensor add" : "cudnnOpTensor mul";
			break;
		case PB_CUDNN_RELU:
		case PB_CUDNN_SIGMOID:
		case PB_CUDNN_TANH: {
			int mode = op == PB_CUDNN_RELU      ? CUDNN_ACTIVATION_RELU
			           : op == PB_CUDNN_SIGMOID ? CUDNN_ACTIVATION_SIGMOID
			                                    : CUDNN_ACTIVATION_TANH;
			call = "cudnnSetActivationDescriptor";
			s = lib->create_act(&c->act);
			if (s == CUDNN_STATUS_SUCCESS)
				s = lib->set_act(c->act, mode, CUDNN_PROPAGATE_NAN, 0.0);
			how = "cudnnActivationForward";
			break;
		}
		case PB_CUDNN_SOFTMAX:
			how = "cudnnSoftmaxForward accurate instance";
			break;
		case PB_CUDNN_SUM:
		case PB_CUDNN_MAX: {
			size_t ws = 0, is = 0;
			call = "cudnnSetTensor4dDescriptor";
			s = lib->create_tensor(&c->y);
			if (s == CUDNN_STATUS_SUCCESS)
				s = lib->set_tensor4d(c->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
			if (s == CUDNN_STATUS_SUCCESS) {
				call = "cudnnSetReduceTensorDescriptor";
				s = lib->create_reduce(&c->red);
			}
			if (s == CUDNN_STATUS_SUCCESS)
				s = lib->set_reduce(c->red,
				                    op == PB_CUDNN_SUM ? CUDNN_REDUCE_TENSOR_ADD
				                                       : CUDNN_REDUCE_TENSOR_MAX,
				                    CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
				                    CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES);
			if (s == CUDNN_STATUS_SUCCESS) {
				call = "cudnnGetReductionWorkspaceSize";
				s = lib->reduce_workspace_size(lib->h, c->red, c->x, c->y, &ws);
			}
			if (s == CUDNN_STATUS_SUCCESS) {
				call = "cudnnGetReductionIndicesSize";
				s = lib->reduce_indices_size(lib->h, c->red, c->x, c->y, &is);
			}
			if (s == CUDNN_STATUS_SUCCESS) {
				st = pb_gpu_job_scratch(j, 0, ws, err, errlen);
				if (st == PB_OK)
					st = pb_gpu_job_scratch(j, 1, is, err, errlen);
				if (st != PB_OK) {
					pb_gpu_job_free(j);
					return st;
				}
			}
			how = op == PB_CUDNN_SUM ? "cudnnReduceTensor add" : "cudnnReduceTensor max";
			break;
		}
		}
	}
	if (s != CUDNN_STATUS_SUCCESS) {
		st = cudnn_fail(lib, s, call, err, errlen);
		pb_gpu_job_free(j);
		return st;
	}
	snprintf(j->desc, sizeof j->desc, "cudnn %d.%d.%d %s f32 %lld×%lld on %s (%d cop%s)",
	         lib->major, lib->minor, lib->patch, how, (long long)rows, (long long)cols,
	         lib->gpu->label, j->copies, j->copies == 1 ? "y" : "ies");
	*out = j;
	return PB_OK;
}

/*
 * pb_cudnn_parts hands cudnn_conv.c the loaded library, its handle and
 * device, and why convolutions are not available (NULL when they are).
 */
void pb_cudnn_parts(pb_cudnn *lib, void **dl, cudnnHandle_t *h, pb_gpu **gpu,
                    cudnnGetErrorString_fn *error_string, const char **no_conv)
{
	*no_conv = lib->no_conv[0] != '\0' ? lib->no_conv : NULL;
	*dl = lib->dl;
	*h = lib->h;
	*gpu = lib->gpu;
	*error_string = lib->error_string;
}
