package isa

import "testing"

func TestFeatures(t *testing.T) {
	all := AllFeatures
	if Features&^levelFeatures(Best) != 0 {
		t.Errorf("Features %v include extensions above %v", Features, Best)
	}
	if got := all.For(Generic); got != 0 {
		t.Errorf("For(Generic) = %v, want none", got)
	}
	if got := all.For(AVX2); got&(AVX512BF16|AVX512VNNI) != 0 {
		t.Errorf("For(AVX2) = %v: EVEX extensions at AVX2", got)
	}
	if got := AVXVNNI.For(AVX512); got&^AVXVNNI != 0 {
		t.Errorf("AVXVNNI.For(AVX512) = %v, more than asked", got)
	}
	if all.For(Best) != Features {
		t.Errorf("all.For(Best) = %v, Features %v", all.For(Best), Features)
	}
	for f, want := range map[Feature]string{0: "none", AVX512BF16 | AVXVNNI: "avx512-bf16+avx-vnni", AVXVNNI: "avx-vnni"} {
		if got := f.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", uint32(f), got, want)
		}
	}
	t.Logf("Features = %v", Features)
}
