/*
 * host_dtype.c — element types of host job arguments (pb_internal.h):
 * sizes, names, and the conversions from the float64 values jobs are given
 * and back. Floats round to nearest, ties to even (float_formats.c for the
 * 16-bit ones); integers are exact or refused, never wrapped or clamped.
 */
#include <string.h>

#include "pb_internal.h"

static const struct {
	const char *name;
	size_t size;
	int64_t lo, hi; /* an integer type's range; lo == hi == 0 for a float */
} types[PB_HOST_DTYPE_MAX + 1] = {
	[PB_HOST_F64] = {"f64", 8, 0, 0},
	[PB_HOST_F32] = {"f32", 4, 0, 0},
	[PB_HOST_BF16] = {"bf16", 2, 0, 0},
	[PB_HOST_F16] = {"f16", 2, 0, 0},
	[PB_HOST_S8] = {"s8", 1, INT8_MIN, INT8_MAX},
	[PB_HOST_U8] = {"u8", 1, 0, UINT8_MAX},
	[PB_HOST_S16] = {"s16", 2, INT16_MIN, INT16_MAX},
	[PB_HOST_S32] = {"s32", 4, INT32_MIN, INT32_MAX},
};

static int known(pb_host_dtype t) { return t >= PB_HOST_F64 && t <= PB_HOST_DTYPE_MAX; }

size_t pb_host_dtype_size(pb_host_dtype t) { return known(t) ? types[t].size : 0; }

const char *pb_host_dtype_name(pb_host_dtype t) { return known(t) ? types[t].name : "?"; }

pb_host_dtype pb_host_dtype_of(pb_dtype dt)
{
	return dt == PB_F32 ? PB_HOST_F32 : dt == PB_F64 ? PB_HOST_F64 : (pb_host_dtype)0;
}

/*
 * store_int writes the stored forms (value + zero_point) of src into dst,
 * checking each: an integer within values' range and whose stored form is
 * within t's (NaN fails the range test).
 */
static pb_status store_int(pb_host_dtype t, pb_host_dtype values, int32_t zero_point,
                           const double *src, size_t len, void *dst, int arg, char *err,
                           size_t errlen)
{
	int64_t lo = types[t].lo - zero_point, hi = types[t].hi - zero_point;
	if (known(values) && types[values].lo > lo)
		lo = types[values].lo;
	if (known(values) && types[values].hi < hi)
		hi = types[values].hi;
	for (size_t i = 0; i < len; i++) {
		double v = src[i];
		if (!(v >= (double)lo && v <= (double)hi) || v != (double)(int64_t)v)
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "job: argument %d element %zu is %g, not an integer in [%lld, %lld]",
			               arg, i, v, (long long)lo, (long long)hi);
		int64_t s = (int64_t)v + zero_point;
		switch (t) {
		case PB_HOST_S8:
			((int8_t *)dst)[i] = (int8_t)s;
			break;
		case PB_HOST_U8:
			((uint8_t *)dst)[i] = (uint8_t)s;
			break;
		case PB_HOST_S16:
			((int16_t *)dst)[i] = (int16_t)s;
			break;
		default:
			((int32_t *)dst)[i] = (int32_t)s;
			break;
		}
	}
	return PB_OK;
}

pb_status pb_host_store(pb_host_dtype t, pb_host_dtype values, int32_t zero_point,
                        const double *src, size_t len, void *dst, int arg, char *err,
                        size_t errlen)
{
	switch (t) {
	case PB_HOST_F64:
		memcpy(dst, src, len * sizeof *src);
		return PB_OK;
	case PB_HOST_F32:
		for (size_t i = 0; i < len; i++)
			((float *)dst)[i] = (float)src[i];
		return PB_OK;
	case PB_HOST_BF16:
		for (size_t i = 0; i < len; i++)
			((uint16_t *)dst)[i] = pb_f64_to_bf16(src[i]);
		return PB_OK;
	case PB_HOST_F16:
		for (size_t i = 0; i < len; i++)
			((uint16_t *)dst)[i] = pb_f64_to_f16(src[i]);
		return PB_OK;
	case PB_HOST_S8:
	case PB_HOST_U8:
	case PB_HOST_S16:
	case PB_HOST_S32:
		return store_int(t, values, zero_point, src, len, dst, arg, err, errlen);
	}
	return pb_fail(PB_ERR_INVALID, err, errlen, "job: argument %d has bad type %d", arg, (int)t);
}

void pb_host_load(pb_host_dtype t, int32_t zero_point, const void *src, size_t len, double *dst)
{
	for (size_t i = 0; i < len; i++) {
		switch (t) {
		case PB_HOST_F64:
			dst[i] = ((const double *)src)[i];
			break;
		case PB_HOST_F32:
			dst[i] = (double)((const float *)src)[i];
			break;
		case PB_HOST_BF16:
			dst[i] = pb_bf16_to_f64(((const uint16_t *)src)[i]);
			break;
		case PB_HOST_F16:
			dst[i] = pb_f16_to_f64(((const uint16_t *)src)[i]);
			break;
		case PB_HOST_S8:
			dst[i] = (double)((const int8_t *)src)[i] - zero_point;
			break;
		case PB_HOST_U8:
			dst[i] = (double)((const uint8_t *)src)[i] - zero_point;
			break;
		case PB_HOST_S16:
			dst[i] = (double)((const int16_t *)src)[i] - zero_point;
			break;
		case PB_HOST_S32:
			dst[i] = (double)((const int32_t *)src)[i] - zero_point;
			break;
		}
	}
}
