/*
 * mkl_dft.c — MKL's discrete Fourier transforms (DFTI) as host jobs, on the
 * libmkl_rt a CBLAS handle opened as "mkl" loaded (mkl.c): its symbols are
 * resolved from that handle, so the threading layer mkl.c chose and the
 * thread count MKL_Set_Num_Threads applies hold for the transforms too.
 *
 * Our prototypes follow MKL 2020's mkl_dfti.h (LP64: MKL_LONG is long).
 * DftiCreateDescriptor and DftiSetValue are variadic: a 1-D length is one
 * MKL_LONG, a 2-D one a pointer to an MKL_LONG array; a configuration
 * value (DFTI_NOT_INPLACE, ...) is passed as the header's enum, an int,
 * and a count or distance as an MKL_LONG.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_internal.h"
#include "peakbench_mkl_dft.h"

typedef long mkl_long;       /* MKL_LONG on LP64 Linux (mkl_types.h) */
typedef void *dfti_handle_t; /* DFTI_DESCRIPTOR_HANDLE */

/* enum DFTI_CONFIG_PARAM (mkl_dfti.h) */
enum {
	DFTI_NUMBER_OF_TRANSFORMS = 7,
	DFTI_CONJUGATE_EVEN_STORAGE = 10,
	DFTI_PLACEMENT = 11,
	DFTI_INPUT_STRIDES = 12,
	DFTI_OUTPUT_STRIDES = 13,
	DFTI_INPUT_DISTANCE = 14,
	DFTI_OUTPUT_DISTANCE = 15,
	DFTI_PACKED_FORMAT = 21,
	DFTI_THREAD_LIMIT = 27,
};

/* enum DFTI_CONFIG_VALUE (mkl_dfti.h) */
enum {
	DFTI_COMPLEX = 32,
	DFTI_REAL = 33,
	DFTI_SINGLE = 35,
	DFTI_DOUBLE = 36,
	DFTI_COMPLEX_COMPLEX = 39,
	DFTI_NOT_INPLACE = 44,
	DFTI_CCE_FORMAT = 57,
};

/* Error classes (mkl_dfti.h), for DftiErrorClass. */
enum {
	DFTI_MEMORY_ERROR = 1,
	DFTI_INVALID_CONFIGURATION = 2,
	DFTI_INCONSISTENT_CONFIGURATION = 3,
	DFTI_UNIMPLEMENTED = 6,
	DFTI_1D_LENGTH_EXCEEDS_INT32 = 9,
};

typedef mkl_long (*create_fn)(dfti_handle_t *h, int precision, int domain, mkl_long dimension, ...);
typedef mkl_long (*set_value_fn)(dfti_handle_t h, int param, ...);
typedef mkl_long (*commit_fn)(dfti_handle_t h);
typedef mkl_long (*compute_fn)(dfti_handle_t h, void *in, ...);
typedef mkl_long (*free_fn)(dfti_handle_t *h);
typedef char *(*message_fn)(mkl_long status);
typedef mkl_long (*class_fn)(mkl_long status, mkl_long error_class);

typedef struct dfti_api {
	create_fn create;
	set_value_fn set_value;
	commit_fn commit;
	compute_fn forward, backward;
	free_fn free_desc;
	message_fn message;
	class_fn error_class;
} dfti_api;

/* resolve fills api from MKL's handle; the number of calls missing (named in missing). */
static int resolve(const pb_cblas *lib, dfti_api *api, pb_sb *missing)
{
	const pb_sym syms[] = {
		{"DftiCreateDescriptor", &api->create, 0},
		{"DftiSetValue", &api->set_value, 0},
		{"DftiCommitDescriptor", &api->commit, 0},
		{"DftiComputeForward", &api->forward, 0},
		{"DftiComputeBackward", &api->backward, 0},
		{"DftiFreeDescriptor", &api->free_desc, 0},
		{"DftiErrorMessage", &api->message, 0},
		{"DftiErrorClass", &api->error_class, 0},
	};
	return pb_dl_resolve(lib->dl, syms, PB_NSYMS(syms), missing);
}

static int is_mkl(const pb_cblas *lib) { return lib != NULL && lib->fam->load == pb_mkl_load; }

int pb_mkl_dft_has(const pb_cblas *lib)
{
	dfti_api api;
	return is_mkl(lib) && resolve(lib, &api, NULL) == 0;
}

/* dfti_fail turns a DFTI status into ours: what DFTI cannot do is unsupported. */
static pb_status dfti_fail(const dfti_api *api, mkl_long status, const char *call, char *err,
                           size_t errlen)
{
	pb_status st = PB_ERR_LIBRARY;
	if (api->error_class(status, DFTI_MEMORY_ERROR))
		st = PB_ERR_NOMEM;
	else if (api->error_class(status, DFTI_UNIMPLEMENTED) ||
	         api->error_class(status, DFTI_INCONSISTENT_CONFIGURATION) ||
	         api->error_class(status, DFTI_INVALID_CONFIGURATION) ||
	         api->error_class(status, DFTI_1D_LENGTH_EXCEEDS_INT32))
		st = PB_ERR_UNSUPPORTED;
	const char *msg = api->message(status);
	return pb_fail(st, err, errlen, "mkl: %s: %s (status %ld)", call, msg != NULL ? msg : "?",
	               (long)status);
}

/* A job's descriptor and the calls that run it. */
typedef struct dft_ctx {
	dfti_api api;
	dfti_handle_t desc;
	pb_dft_kind kind;
} dft_ctx;

static pb_status it_dft(pb_job *j, int c, char *err, size_t errlen)
{
	dft_ctx *x = j->ctx;
	void *in = pb_job_buf(j, c, 0), *out = pb_job_buf(j, c, 1);
	mkl_long st = x->kind == PB_DFT_BACKWARD ? x->api.backward(x->desc, in, out)
	                                         : x->api.forward(x->desc, in, out);
	if (st != 0)
		return dfti_fail(&x->api, st, x->kind == PB_DFT_BACKWARD ? "DftiComputeBackward"
		                                                          : "DftiComputeForward",
		                 err, errlen);
	return PB_OK;
}

static void destroy_dft(pb_job *j)
{
	dft_ctx *x = j->ctx;
	if (x == NULL)
		return;
	if (x->desc != NULL)
		x->api.free_desc(&x->desc);
	free(x);
	j->ctx = NULL;
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/*
 * configure creates x's descriptor for the transform and commits it,
 * timing the commit. Distances count elements of each side's domain:
 * reals for a real input, complex values otherwise.
 */
static pb_status configure(dft_ctx *x, pb_dtype dt, int rank, const int *dims, int batch,
                           int threads, double *commit_ns, char *err, size_t errlen)
{
	const dfti_api *a = &x->api;
	int prec = dt == PB_F64 ? DFTI_DOUBLE : DFTI_SINGLE;
	int domain = x->kind == PB_DFT_R2C ? DFTI_REAL : DFTI_COMPLEX;
	mkl_long rows = rank == 1 ? 1 : dims[0], cols = dims[rank - 1];
	mkl_long pts = rows * cols, half = cols / 2 + 1;
	mkl_long lengths[2] = {rows, cols};
	mkl_long st = rank == 1 ? a->create(&x->desc, prec, domain, (mkl_long)1, cols)
	                        : a->create(&x->desc, prec, domain, (mkl_long)2, lengths);
	if (st != 0) {
		x->desc = NULL;
		return dfti_fail(a, st, "DftiCreateDescriptor", err, errlen);
	}
	mkl_long out_dist = x->kind == PB_DFT_R2C ? rows * half : pts;
	if ((st = a->set_value(x->desc, DFTI_PLACEMENT, DFTI_NOT_INPLACE)) != 0 ||
	    (st = a->set_value(x->desc, DFTI_NUMBER_OF_TRANSFORMS, (mkl_long)batch)) != 0 ||
	    (st = a->set_value(x->desc, DFTI_INPUT_DISTANCE, pts)) != 0 ||
	    (st = a->set_value(x->desc, DFTI_OUTPUT_DISTANCE, out_dist)) != 0)
		return dfti_fail(a, st, "DftiSetValue", err, errlen);
	if (x->kind == PB_DFT_R2C) {
		/* The n/2+1 outputs of each row as complex values (CCE), rows n/2+1 apart. */
		mkl_long in_strides[3] = {0, cols, 1}, out_strides[3] = {0, half, 1};
		if ((st = a->set_value(x->desc, DFTI_CONJUGATE_EVEN_STORAGE, DFTI_COMPLEX_COMPLEX)) != 0 ||
		    (st = a->set_value(x->desc, DFTI_PACKED_FORMAT, DFTI_CCE_FORMAT)) != 0)
			return dfti_fail(a, st, "DftiSetValue", err, errlen);
		if (rank == 2 && ((st = a->set_value(x->desc, DFTI_INPUT_STRIDES, in_strides)) != 0 ||
		                  (st = a->set_value(x->desc, DFTI_OUTPUT_STRIDES, out_strides)) != 0))
			return dfti_fail(a, st, "DftiSetValue", err, errlen);
	}
	if (threads > 0 && (st = a->set_value(x->desc, DFTI_THREAD_LIMIT, (mkl_long)threads)) != 0)
		return dfti_fail(a, st, "DftiSetValue(DFTI_THREAD_LIMIT)", err, errlen);
	double t0 = now_ns();
	st = a->commit(x->desc);
	*commit_ns = now_ns() - t0;
	if (st != 0)
		return dfti_fail(a, st, "DftiCommitDescriptor", err, errlen);
	return PB_OK;
}

pb_status pb_mkl_job_dft(pb_cblas *lib, pb_dtype dt, pb_dft_kind kind, int rank, const int *dims,
                         int batch, const pb_job_opts *opts, pb_job **out, double *commit_ns,
                         char *err, size_t errlen)
{
	if (lib == NULL || dims == NULL || out == NULL || commit_ns == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_mkl_job_dft: NULL argument");
	*out = NULL;
	*commit_ns = 0;
	if (!is_mkl(lib))
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "%s: DFTI is MKL's only", lib->name);
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "dft job: bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	if (kind < PB_DFT_FORWARD || kind > PB_DFT_R2C || rank < 1 || rank > 2 || batch < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen, "dft job: kind %d, rank %d, batch %d", (int)kind,
		               rank, batch);
	for (int i = 0; i < rank; i++)
		if (dims[i] < 1)
			return pb_fail(PB_ERR_INVALID, err, errlen, "dft job: length %d of dimension %d", dims[i],
			               i);
	dft_ctx *x = calloc(1, sizeof *x);
	if (x == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "dft job: out of memory");
	x->kind = kind;
	char missing[256];
	pb_sb m;
	pb_sb_init(&m, missing, sizeof missing);
	if (resolve(lib, &x->api, &m) > 0) {
		free(x);
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "mkl: %s lacks %s", lib->path, missing);
	}
	size_t rows = rank == 1 ? 1 : (size_t)dims[0], cols = (size_t)dims[rank - 1];
	size_t n = (size_t)batch * rows * cols;
	size_t lens[2] = {2 * n, 2 * n};
	if (kind == PB_DFT_R2C)
		lens[0] = n, lens[1] = 2 * (size_t)batch * rows * (cols / 2 + 1);
	pb_host_dtype t = pb_host_dtype_of(dt);
	const pb_host_dtype types[2] = {t, t};
	/* The thread count is set before the commit: the descriptor is made for it. */
	pb_status st = pb_cblas_new_typed_job(lib, 2, lens, types, 1, opts, out, err, errlen);
	if (st != PB_OK) {
		free(x);
		return st;
	}
	pb_job *j = *out;
	j->ctx = x;
	j->destroy = destroy_dft;
	j->iter = it_dft;
	st = configure(x, dt, rank, dims, batch, opts != NULL ? opts->threads : 0, commit_ns, err,
	               errlen);
	if (st != PB_OK) {
		pb_job_free(j);
		*out = NULL;
		return st;
	}
	static const char *const kinds[] = {"c2c forward", "c2c backward", "r2c"};
	char shape[64];
	if (rank == 1)
		snprintf(shape, sizeof shape, "n=%d", dims[0]);
	else
		snprintf(shape, sizeof shape, "%dx%d", dims[0], dims[1]);
	snprintf(j->desc, sizeof j->desc, "mkl DFTI %s %s %s batch=%d (out of place)", kinds[kind],
	         dt == PB_F64 ? "f64" : "f32", shape, batch);
	return PB_OK;
}
