package gemm

import (
	"math"
	"sync"
)

// BF16 and F16 values travel as their bits (uint16): bfloat16 is the top
// half of a float32; IEEE binary16 has 5 exponent bits and 10 fraction
// bits. Both widen to float32 exactly.

// BF16Bits returns the bfloat16 nearest to v (ties to even; NaN stays NaN).
func BF16Bits(v float32) uint16 {
	b := math.Float32bits(v)
	if v != v {
		return uint16(b>>16) | 0x40 // a quiet NaN, whatever the low bits were
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// BF16ToF32 widens bfloat16 bits to float32.
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F16Bits returns the binary16 nearest to v (ties to even; beyond 65504
// ±Inf; NaN stays NaN).
func F16Bits(v float32) uint16 {
	b := math.Float32bits(v)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127
	frac := b & 0x7fffff
	switch {
	case v != v:
		return sign | 0x7e00
	case exp > 15: // beyond binary16's range, or ±Inf
		return sign | 0x7c00
	case exp >= -14: // normal: round 23 fraction bits to 10
		m := uint32(exp+15)<<10 | frac>>13 // carries into the exponent, up to Inf, as it should
		rem := frac & 0x1fff
		if rem > 0x1000 || rem == 0x1000 && m&1 == 1 {
			m++
		}
		return sign | uint16(m)
	case exp >= -25: // subnormal: the value in units of 2^-24, rounded
		full := frac | 0x800000 // 24 significant bits, the leading one at 2^exp
		shift := uint(-exp - 1) // 2^exp = full·2^(exp−23), in units of 2^−24: >> (−exp−1)
		m := full >> shift
		rem, half := full&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || rem == half && m&1 == 1 {
			m++
		}
		return sign | uint16(m)
	}
	return sign
}

// F16ToF32 widens binary16 bits to float32.
func F16ToF32(h uint16) float32 { return math.Float32frombits(f16ToF32Bits(h)) }

func f16ToF32Bits(h uint16) uint32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf, NaN
		return sign | 0x7f800000 | frac<<13
	case exp != 0:
		return sign | (exp+112)<<23 | frac<<13
	case frac == 0:
		return sign
	}
	// Subnormal: frac·2^−24, normalized.
	e := uint32(113)
	for frac&0x400 == 0 {
		frac <<= 1
		e--
	}
	return sign | e<<23 | (frac&0x3ff)<<13
}

// f16Table is f16ToF32Bits of every binary16 (256 KiB, made on first use):
// packing widens f16 through it.
var f16Table = sync.OnceValue(func() *[1 << 16]uint32 {
	t := new([1 << 16]uint32)
	for i := range t {
		t[i] = f16ToF32Bits(uint16(i))
	}
	return t
})
