package gemm

import (
	"math"
	"testing"
)

// Every binary16 and bfloat16 value widens to a float32 that narrows back
// to the same bits; halfway cases round to even.
func TestHalfRoundTrip(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		if f := F16ToF32(h); f == f && F16Bits(f) != h {
			t.Fatalf("f16 %#04x → %v → %#04x", h, f, F16Bits(f))
		}
		if f := BF16ToF32(h); f == f && BF16Bits(f) != h {
			t.Fatalf("bf16 %#04x → %v → %#04x", h, f, BF16Bits(f))
		}
	}
	for _, c := range []struct {
		v    float32
		f16  uint16
		bf16 uint16
	}{
		{1, 0x3c00, 0x3f80},
		{1 + 1.0/2048, 0x3c00, 0x3f80},           // halfway, to even
		{1 + 3.0/2048, 0x3c02, 0x3f80},           // halfway, to even (up)
		{65520, 0x7c00, 0x4780},                  // rounds past 65504
		{float32(math.Ldexp(1, -25)), 0, 0x3300}, // half the least subnormal: to even, 0
		{float32(math.Ldexp(3, -26)), 1, 0x3340},
	} {
		if got := F16Bits(c.v); got != c.f16 {
			t.Errorf("F16Bits(%v) = %#04x, want %#04x", c.v, got, c.f16)
		}
		if got := BF16Bits(c.v); got != c.bf16 {
			t.Errorf("BF16Bits(%v) = %#04x, want %#04x", c.v, got, c.bf16)
		}
	}
}
