//go:build !purego

package peak

import (
	"math"
	"testing"
)

// checkLowpResult runs a unit's kernel for a few rounds and checks what it
// computed: every instruction did the products it is counted for.
func checkLowpResult(t *testing.T, unit string) {
	t.Helper()
	const rounds = 5
	switch unit {
	case UnitAVX512VNNI, UnitAVXVNNI, UnitInt8FMA:
		// Each lane adds 4 products of 3·2 per round (VNNI: a quad; the
		// AVX2 group: two pairs, then two s16 sums).
		var got []int32
		switch unit {
		case UnitAVX512VNNI:
			acc := new([lowpAccs * 16]int32)
			dpbusdZmm(acc, u8Quad, s8Quad, rounds)
			got = acc[:]
		case UnitAVXVNNI:
			acc := new([lowpAccs * 8]int32)
			dpbusdYmmVEX(acc, u8Quad, s8Quad, rounds)
			got = acc[:]
		default:
			acc := new([int8Groups * 8]int32)
			int8GroupsYmm(acc, u8Quad, s8Quad, rounds)
			got = acc[:]
		}
		for i, v := range got {
			if v != rounds*4*3*2 {
				t.Fatalf("%s: lane %d = %d after %d rounds, want %d", unit, i, v, rounds, rounds*24)
			}
		}
	case UnitAVX512BF16:
		acc := new([lowpAccs * 16]float32)
		dpbf16Zmm(acc, bf16Pair, bf16Pair, rounds)
		for i, v := range acc {
			if want := float32(rounds * 2 * 0x1p-12); v != want {
				t.Fatalf("%s: lane %d = %g after %d rounds, want %g", unit, i, v, rounds, want)
			}
		}
	case UnitAVX512FP16:
		acc := new([lowpAccs * 32]uint16)
		for i := range acc {
			acc[i] = 0x3C00 // 1, the fixed point of m·acc + c
		}
		fmaPHZmm(acc, f16M, f16C, rounds)
		for i, v := range acc {
			if v != 0x3C00 {
				t.Fatalf("%s: lane %d = %#04x after %d rounds, want 1 (0x3c00)", unit, i, v, rounds)
			}
		}
	case UnitAMXBF16, UnitAMXFP16, UnitAMXInt8:
		checkAMXResult(t, unit, rounds)
	}
}

// checkAMXResult checks tile 0 after `rounds` tile products of constant
// tiles: each element sums 32 pair products (64 quad products for int8)
// per round.
func checkAMXResult(t *testing.T, unit string, rounds int) {
	t.Helper()
	a, b := new([1024]byte), new([1024]byte)
	c := new([1024]byte)
	fill := func(x *[1024]byte, v uint32) {
		for i := 0; i < len(x); i += 4 {
			x[i], x[i+1], x[i+2], x[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
	}
	word := func(i int) uint32 {
		return uint32(c[4*i]) | uint32(c[4*i+1])<<8 | uint32(c[4*i+2])<<16 | uint32(c[4*i+3])<<24
	}
	cfg := amxConfig()
	for i := range 256 {
		var want uint32
		switch unit {
		case UnitAMXInt8:
			if i == 0 {
				fill(a, u8Quad)
				fill(b, s8Quad)
				onThread(amxInt8, cfg, a, b, c, rounds)
			}
			want = uint32(rounds * 64 * 3 * 2)
		default:
			if i == 0 {
				pair := uint32(bf16Pair)
				run := amxBF16
				if unit == UnitAMXFP16 {
					pair, run = f16Pair, amxFP16
				}
				fill(a, pair)
				fill(b, pair)
				onThread(run, cfg, a, b, c, rounds)
			}
			want = math.Float32bits(float32(rounds) * 32 * 0x1p-12) // 2⁻⁶ · 2⁻⁶ per product
		}
		if got := word(i); got != want {
			t.Fatalf("%s: element %d = %#x after %d rounds, want %#x", unit, i, got, rounds, want)
		}
	}
}
