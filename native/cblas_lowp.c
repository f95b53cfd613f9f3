/*
 * cblas_lowp.c — low-precision gemm on the CBLAS libraries that have it:
 * MKL's cblas_gemm_bf16bf16f32, cblas_gemm_f16f16f32 and
 * cblas_gemm_s8u8s32, OpenBLAS's cblas_sbgemm. Each routine is optional
 * and looked up in the loaded file alone, so a library declares exactly
 * the types it exports.
 *
 * i8 and u8s8 run cblas_gemm_s8u8s32 where it is exact. On a code path
 * without VNNI its 16-bit intermediate sums saturate (vendor/mkl.h), so
 * resolution tries it once on a product that saturates there; when the
 * result is wrong, both types run cblas_gemm_s16s16s32 on operands widened
 * to s16, exact, and say so in the job's description.
 *
 * The jobs are typed host jobs (timing.c): each operand in its own element
 * type (bf16 A and B with an f32 C; u8 A, s8 B, s32 C), converted once,
 * when set, outside the timed runs; the timed iteration is the library's
 * call alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_internal.h"

/* The routines of each type, first found wins; all share their type's signature. */
static const char *const routines[PB_LOWP_MAX + 1][3] = {
	[PB_LOWP_BF16] = {"cblas_gemm_bf16bf16f32", "cblas_sbgemm", NULL},
	[PB_LOWP_F16] = {"cblas_gemm_f16f16f32", NULL},
	[PB_LOWP_I8] = {"cblas_gemm_s8u8s32", NULL},
	[PB_LOWP_U8S8] = {"cblas_gemm_s8u8s32", NULL},
};

static const char s16_routine[] = "cblas_gemm_s16s16s32";

/*
 * s8u8_exact runs f on 64×64×64 with A all 255 (u8) and B all 127 (s8):
 * every element is 255·127·64 = 2072640, where pair sums saturated at
 * 32767 give 1048544. The size is past MKL's small-matrix paths.
 */
static int s8u8_exact(cblas_gemm_s8u8s32_fn f)
{
	enum { D = 64 };
	unsigned char *a = malloc(D * D);
	signed char *b = malloc(D * D);
	int *c = malloc(D * D * sizeof *c);
	int exact = a != NULL && b != NULL && c != NULL;
	if (exact) {
		memset(a, 255, D * D);
		memset(b, 127, D * D);
		const int oc = 0;
		f(CblasRowMajor, CblasNoTrans, CblasNoTrans, CblasFixOffset, D, D, D, 1.0f, a, D, 0, b,
		  D, 0, 0.0f, c, D, &oc);
		for (int i = 0; i < D * D && exact; i++)
			exact = c[i] == 255 * 127 * D;
	}
	free(a);
	free(b);
	free(c);
	return exact;
}

void pb_cblas_resolve_lowp(pb_cblas *lib)
{
	for (int dt = 1; dt <= PB_LOWP_MAX; dt++) {
		lib->lowp[dt] = NULL;
		lib->lowp_name[dt] = "";
		for (int i = 0; routines[dt][i] != NULL && lib->lowp[dt] == NULL; i++) {
			pb_sym s[] = {{routines[dt][i], &lib->lowp[dt], 1}};
			pb_dl_resolve(lib->dl, s, 1, NULL);
			if (lib->lowp[dt] != NULL)
				lib->lowp_name[dt] = routines[dt][i];
		}
	}
	if (lib->lowp[PB_LOWP_U8S8] == NULL ||
	    s8u8_exact((cblas_gemm_s8u8s32_fn)lib->lowp[PB_LOWP_U8S8]))
		return;
	void *s16 = NULL;
	pb_sym s[] = {{s16_routine, &s16, 1}};
	pb_dl_resolve(lib->dl, s, 1, NULL);
	for (int dt = PB_LOWP_I8; dt <= PB_LOWP_U8S8; dt++) {
		lib->lowp[dt] = s16; /* NULL: no exact routine, the type is not offered */
		lib->lowp_name[dt] = s16 != NULL ? s16_routine : "";
	}
}

/* uses_s16 reports whether lib runs dt's integers through cblas_gemm_s16s16s32. */
static int uses_s16(const pb_cblas *lib, pb_lowp dt)
{
	return strcmp(lib->lowp_name[dt], s16_routine) == 0;
}

static int valid_lowp(pb_lowp dt) { return dt >= PB_LOWP_BF16 && dt <= PB_LOWP_MAX; }

int pb_cblas_lowp_has(const pb_cblas *lib, pb_lowp dt)
{
	return lib != NULL && valid_lowp(dt) && lib->lowp[dt] != NULL;
}

const char *pb_cblas_lowp_routine(const pb_cblas *lib, pb_lowp dt)
{
	return pb_cblas_lowp_has(lib, dt) ? lib->lowp_name[dt] : "";
}

/* What a job of one type computes with. */
typedef struct lowp_job {
	pb_lowp dt;
	int s16;         /* through cblas_gemm_s16s16s32 */
	signed char oa;  /* cblas_gemm_s8u8s32's offsets */
	signed char ob;
	int oc;          /* the C offset (CblasFixOffset): 0 */
} lowp_job;

static const lowp_job *ctx_of(const pb_job *j) { return j->ctx; }

static void free_ctx(pb_job *j) { free(j->ctx); }

/* Iterations: the library's call alone. */

static pb_status it_float(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	int ta = (int)j->p[0], tb = (int)j->p[1], m = (int)j->p[2], n = (int)j->p[3],
	    k = (int)j->p[4];
	cblas_gemm_bf16bf16f32_fn f = (cblas_gemm_bf16bf16f32_fn)j->lib->lowp[ctx_of(j)->dt];
	f(CblasRowMajor, CBLAS_T(ta), CBLAS_T(tb), m, n, k, 1.0f, pb_job_buf(j, c, 0), ta ? m : k,
	  pb_job_buf(j, c, 1), tb ? k : n, 0.0f, pb_job_buf(j, c, 2), n);
	return PB_OK;
}

static pb_status it_int8(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const lowp_job *x = ctx_of(j);
	int ta = (int)j->p[0], tb = (int)j->p[1], m = (int)j->p[2], n = (int)j->p[3],
	    k = (int)j->p[4];
	void *a = pb_job_buf(j, c, 0), *b = pb_job_buf(j, c, 1), *cc = pb_job_buf(j, c, 2);
	if (x->s16)
		((cblas_gemm_s16s16s32_fn)j->lib->lowp[x->dt])(CblasRowMajor, CBLAS_T(ta), CBLAS_T(tb),
		                                               CblasFixOffset, m, n, k, 1.0f, a,
		                                               ta ? m : k, 0, b, tb ? k : n, 0, 0.0f, cc,
		                                               n, &x->oc);
	else
		((cblas_gemm_s8u8s32_fn)j->lib->lowp[x->dt])(CblasRowMajor, CBLAS_T(ta), CBLAS_T(tb),
		                                             CblasFixOffset, m, n, k, 1.0f, a, ta ? m : k,
		                                             x->oa, b, tb ? k : n, x->ob, 0.0f, cc, n,
		                                             &x->oc);
	return PB_OK;
}

/* How A, B and C are stored: the typed host job's fields (pb_internal.h). */
typedef struct operands {
	pb_host_dtype type[3];
	pb_host_dtype values[3];
	int32_t zero_point[3];
} operands;

/*
 * type_operands sets the element types of A, B and C and x's offsets; for
 * the integer types also the values A and B must hold and A's zero point.
 * Row-major cblas_gemm_s8u8s32 takes A unsigned and B signed
 * (vendor/mkl.h): u8s8 is that form; i8's A is stored +128 (zero point
 * 128) and oa = −128 gives (A+128−128)·B, exact in s32 as every sum of
 * products is (workload.Validate bounds k). cblas_gemm_s16s16s32 takes
 * both signed: the values as they are, still refused beyond s8 (u8 for
 * u8s8's A).
 */
static void type_operands(lowp_job *x, operands *o)
{
	*o = (operands){0};
	x->oa = x->ob = 0;
	x->oc = 0;
	switch (x->dt) {
	case PB_LOWP_BF16:
		o->type[0] = o->type[1] = PB_HOST_BF16;
		o->type[2] = PB_HOST_F32;
		break;
	case PB_LOWP_F16:
		o->type[0] = o->type[1] = PB_HOST_F16;
		o->type[2] = PB_HOST_F32;
		break;
	case PB_LOWP_I8:
	case PB_LOWP_U8S8:
		o->type[2] = PB_HOST_S32;
		o->values[0] = x->dt == PB_LOWP_U8S8 ? PB_HOST_U8 : PB_HOST_S8;
		o->values[1] = PB_HOST_S8;
		if (x->s16) {
			o->type[0] = o->type[1] = PB_HOST_S16;
			break;
		}
		o->type[0] = PB_HOST_U8;
		o->type[1] = PB_HOST_S8;
		if (x->dt == PB_LOWP_I8) {
			o->zero_point[0] = 128;
			x->oa = -128;
		}
		break;
	}
}

pb_status pb_cblas_job_gemm_lowp(pb_cblas *lib, pb_lowp dt, pb_trans ta, pb_trans tb, int m,
                                 int n, int k, const pb_job_opts *opts, pb_job **out, char *err,
                                 size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_cblas_job_gemm_lowp: NULL argument");
	*out = NULL;
	if (!valid_lowp(dt))
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "bad low-precision type %d (accepted: 1 bf16, 2 f16, 3 i8, 4 u8s8)",
		               (int)dt);
	if (!pb_cblas_lowp_has(lib, dt))
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "%s: %s exports no %s", lib->name,
		               lib->path, routines[dt][0]);
	if (m < 1 || n < 1 || k < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "gemm job: m, n and k must be at least 1 (m=%d n=%d k=%d)", m, n, k);
	if ((ta != PB_NO_TRANS && ta != PB_TRANS) || (tb != PB_NO_TRANS && tb != PB_TRANS))
		return pb_fail(PB_ERR_INVALID, err, errlen, "gemm job: bad transpose %d/%d", ta, tb);
	lowp_job *x = calloc(1, sizeof *x);
	if (x == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "%s: out of memory", lib->name);
	x->dt = dt;
	x->s16 = uses_s16(lib, dt);
	operands typed;
	type_operands(x, &typed);
	size_t lens[3] = {(size_t)m * (size_t)k, (size_t)k * (size_t)n, (size_t)m * (size_t)n};
	pb_job *j = NULL;
	pb_status st = pb_cblas_new_typed_job(lib, 3, lens, typed.type, 2, opts, &j, err, errlen);
	if (st != PB_OK) {
		free(x);
		return st;
	}
	memcpy(j->values, typed.values, sizeof typed.values);
	memcpy(j->zero_point, typed.zero_point, sizeof typed.zero_point);
	j->ctx = x;
	j->destroy = free_ctx;
	j->p[0] = ta;
	j->p[1] = tb;
	j->p[2] = m;
	j->p[3] = n;
	j->p[4] = k;
	j->iter = dt == PB_LOWP_I8 || dt == PB_LOWP_U8S8 ? it_int8 : it_float;
	int n1 = snprintf(j->desc, sizeof j->desc, "%s %s %s%s m=%d n=%d k=%d", lib->name,
	                  lib->lowp_name[dt], ta ? "T" : "N", tb ? "T" : "N", m, n, k);
	const char *how = "";
	if (x->s16)
		how = " (A, B as s16: s8u8s32 saturates on this code path)";
	else if (dt == PB_LOWP_I8)
		how = " (A+128 as u8, oa=-128)";
	else if (dt == PB_LOWP_U8S8)
		how = " (oa=ob=0)";
	if (n1 > 0 && (size_t)n1 < sizeof j->desc)
		snprintf(j->desc + n1, sizeof j->desc - (size_t)n1, "%s", how);
	*out = j;
	return PB_OK;
}
