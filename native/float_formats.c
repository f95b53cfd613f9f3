/*
 * float_formats.c — the 16- and 8-bit floating-point formats host and
 * device jobs store (pb_internal.h): f64 to and from IEEE binary16,
 * bfloat16 and OCP FP8 (e4m3, e5m2), rounded to nearest, ties to even,
 * with integer arithmetic only (no libm).
 */
#include <string.h>

#include "pb_internal.h"

/*
 * round_bits rounds v to the binary format with ebits exponent and mbits
 * fraction bits (IEEE layout, subnormals, bias 2^(ebits-1)-1, largest
 * exponent emax: the bias for IEEE formats, one more for e4m3, which has no
 * infinities), to nearest, ties to even, with integer arithmetic only (no
 * libm), and returns the encoding without the sign (beyond emax: the
 * all-ones exponent, IEEE's infinity); *sign receives v's sign bit.
 */
static uint32_t round_bits(double v, int mbits, int ebits, int emax, int *sign)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	*sign = (int)(u >> 63);
	int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
	uint32_t inf = ((1u << ebits) - 1u) << mbits;
	int e = (int)((u >> 52) & 0x7ff);
	uint64_t m = u & ((1ULL << 52) - 1);
	if (e == 0x7ff)
		return m != 0 ? inf | (1u << (mbits - 1)) : inf; /* quiet NaN or infinity */
	if (e == 0)
		return 0; /* zero, or a double subnormal: far below half the least subnormal */
	int x = e - 1023; /* v = m·2^(x-52), m with its leading one at bit 52 */
	m |= 1ULL << 52;
	int q = (x < emin ? emin : x) - mbits; /* exponent of the target's last place */
	int shift = q - (x - 52);              /* bits of m below it: at least 52-mbits */
	if (shift >= 54)
		return 0; /* below half the least subnormal */
	uint64_t r = m >> shift, rem = m & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
	if (rem > half || (rem == half && (r & 1)))
		r++;
	if (x < emin) /* subnormal; r == 2^mbits is the least normal, whose encoding is r */
		return (uint32_t)r;
	if (r == (1ULL << (mbits + 1))) {
		r >>= 1;
		x++;
	}
	if (x > emax)
		return inf;
	return ((uint32_t)(x + bias) << mbits) | (uint32_t)(r - (1ULL << mbits));
}

uint16_t pb_f64_to_f16(double v)
{
	int s;
	uint32_t b = round_bits(v, 10, 5, 15, &s);
	return (uint16_t)((s ? 0x8000u : 0u) | b);
}

uint16_t pb_f64_to_bf16(double v)
{
	int s;
	uint32_t b = round_bits(v, 7, 8, 127, &s);
	return (uint16_t)((s ? 0x8000u : 0u) | b);
}

double pb_f16_to_f64(uint16_t h)
{
	uint64_t s = (uint64_t)(h >> 15) << 63;
	int e = (h >> 10) & 0x1f;
	uint64_t m = h & 0x3ff;
	uint64_t u;
	double d;
	if (e == 0) {
		d = (double)m * 0x1p-24;
		return (h >> 15) ? -d : d;
	}
	if (e == 31)
		u = s | (0x7ffULL << 52) | (m << 42);
	else
		u = s | ((uint64_t)(e - 15 + 1023) << 52) | (m << 42);
	memcpy(&d, &u, sizeof d);
	return d;
}

double pb_bf16_to_f64(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return (double)f;
}

/*
 * e4m3 (OCP FP8 E4M3, "fn"): bias 7, the all-ones exponent holds normal
 * numbers up to 1.75·2^8 = 448 and S.1111.111 is NaN; no infinities. Values
 * beyond 448 saturate to ±448 (as CUDA's __NV_SATFINITE conversion does),
 * NaN stays NaN.
 */
uint8_t pb_f64_to_e4m3(double v)
{
	if (v != v)
		return 0x7f;
	if (v > 448) /* beyond it, rounding goes up or saturates: ±448 either way */
		v = 448;
	else if (v < -448)
		v = -448;
	int s;
	uint32_t b = round_bits(v, 3, 4, 8, &s);
	return (uint8_t)((s ? 0x80u : 0u) | b);
}

double pb_e4m3_to_f64(uint8_t b)
{
	int e = (b >> 3) & 0xf, m = b & 7;
	double d;
	if (e == 0xf && m == 7) {
		uint64_t nan = 0x7ff8000000000000ULL;
		memcpy(&d, &nan, sizeof d);
		return d;
	}
	if (e == 0) {
		d = (double)m * 0x1p-9; /* subnormal: m·2^(1-7-3) */
	} else {
		uint64_t u = ((uint64_t)(e - 7 + 1023) << 52) | ((uint64_t)m << 49);
		memcpy(&d, &u, sizeof d);
	}
	return (b & 0x80) ? -d : d;
}

/* e5m2 (OCP FP8 E5M2) is IEEE-like: bias 15, infinities and NaNs, f16's top byte. */
uint8_t pb_f64_to_e5m2(double v)
{
	int s;
	uint32_t b = round_bits(v, 2, 5, 15, &s);
	return (uint8_t)((s ? 0x80u : 0u) | b);
}

double pb_e5m2_to_f64(uint8_t b) { return pb_f16_to_f64((uint16_t)((uint16_t)b << 8)); }
