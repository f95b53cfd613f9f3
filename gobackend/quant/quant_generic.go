package quant

import "math"

// The pure-Go kernels: the go backend's, the assembly's tails, and the
// reference the tests hold the assembly to.

// bounds is Q's range.
func bounds[Q Int8]() (lo, hi int32) {
	var z Q
	if z-1 > 0 { // unsigned
		return 0, 255
	}
	return -128, 127
}

func quantizeGeneric[Q Int8](x []float32, inv float32, zp int32, q []Q) {
	lo, hi := bounds[Q]()
	for i, v := range x {
		// The conversion rounds the product to f32 (no fused operation),
		// as VMULPS does; the clamp keeps what follows exact. Adding and
		// subtracting 1.5·2²³ rounds |p| ≤ 2²² to an integer, ties to
		// even, in f32: a tenth of math.RoundToEven's time.
		p := min(max(float32(v*inv), -512), 512)
		r := int32(float32(p+roundMagic)-roundMagic) + zp
		q[i] = Q(min(max(r, lo), hi))
	}
}

// roundMagic is 1.5·2²³: past it an f32 has no fraction bits.
const roundMagic float32 = 0x1.8p23

func dequantizeGeneric[Q Int8](q []Q, scale float32, zp int32, x []float32) {
	for i, v := range q {
		x[i] = float32(scale * float32(int32(v)-zp))
	}
}

// BF16Bits rounds f to bfloat16, to nearest even; a NaN stays a NaN
// (quieted).
func BF16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7fff + (b >> 16 & 1)) >> 16)
}

// BF16Value is the f32 value of bfloat16 bits.
func BF16Value(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F16Bits rounds f to IEEE binary16, to nearest even, with subnormals,
// overflow to ±Inf, and a NaN kept a NaN (quieted, top payload bits kept).
func F16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp, man := int(b>>23&0xff), b&0x7fffff
	switch {
	case exp == 0xff && man != 0:
		return sign | 0x7e00 | uint16(man>>13)
	case exp-127+15 >= 31:
		return sign | 0x7c00 // ±Inf, and finite values past f16's range
	case exp <= 112: // an f16 subnormal (or zero): units of 2^-24
		s := uint(126 - exp)
		if exp == 0 || s >= 25 {
			return sign // below half of 2^-24 (f32 subnormals included)
		}
		return sign | uint16(roundShift(man|1<<23, s))
	}
	// Normal: drop 13 significand bits; a carry moves into the exponent,
	// and up to 0x7c00 (Inf) where it overflows.
	return sign | uint16(roundShift(uint32(exp-112)<<23|man, 13))
}

// roundShift is v >> s rounded to nearest, ties to even.
func roundShift(v uint32, s uint) uint32 {
	r, rem, half := v>>s, v&(1<<s-1), uint32(1)<<(s-1)
	if rem > half || rem == half && r&1 == 1 {
		r++
	}
	return r
}

// F16Value is the f32 value of binary16 bits (exact).
func F16Value(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	e, m := uint32(h>>10&0x1f), uint32(h&0x3ff)
	switch e {
	case 0:
		v := float32(m) * 0x1p-24
		if sign != 0 {
			v = -v
		}
		return v
	case 31:
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	}
	return math.Float32frombits(sign | (e+112)<<23 | m<<13)
}

// scaleBiasGeneric sets y[i] = fl(fl(s·f32(c[i])) + bias[i]); y may be
// c's memory (each c[i] is read before y[i] is written).
func scaleBiasGeneric(c []int32, s float32, bias, y []float32) {
	for i := range y {
		y[i] = float32(s*float32(c[i])) + bias[i]
	}
}

func narrowGeneric(f Format, x []float32, y []uint16) {
	if f == BF16 {
		for i, v := range x {
			y[i] = BF16Bits(v)
		}
		return
	}
	for i, v := range x {
		y[i] = F16Bits(v)
	}
}

func widenGeneric(f Format, x []uint16, y []float32) {
	if f == BF16 {
		for i, v := range x {
			y[i] = BF16Value(v)
		}
		return
	}
	for i, v := range x {
		y[i] = F16Value(v)
	}
}
