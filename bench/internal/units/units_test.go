package units

import "testing"

func TestSigAndDuration(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1234.5: "1234", 12.345: "12.3", 0.012345: "0.0123", 195.2: "195"} {
		if got := Sig(v); got != want {
			t.Errorf("Sig(%v) = %q, want %q", v, got, want)
		}
	}
	for ns, want := range map[float64]string{2.1e6: "2.1ms", 999: "999ns", 123456: "123µs"} {
		if got := Duration(ns); got != want {
			t.Errorf("Duration(%v) = %q, want %q", ns, got, want)
		}
	}
}

// Bytes keeps up to four significant digits and no trailing zeros: the
// cache sizes the levels report ("1.375 MiB") read exactly.
func TestBytes(t *testing.T) {
	for b, want := range map[float64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 16 << 10: "16 KiB", 1408 << 10: "1.375 MiB",
		64 << 20: "64 MiB", 4095 << 10: "3.999 MiB", 3 << 30: "3 GiB"} {
		if got := Bytes(b); got != want {
			t.Errorf("Bytes(%g) = %q, want %q", b, got, want)
		}
	}
	if got := Bytes(int64(3 << 20)); got != "3 MiB" {
		t.Errorf("Bytes(int64(3 MiB)) = %q", got)
	}
}

func TestPercentAndClock(t *testing.T) {
	if got := Percent(0.1234); got != "12.3%" {
		t.Errorf("Percent(0.1234) = %q", got)
	}
	if got := SignedPercent(2.81/3.05 - 1); got != "-7.9%" {
		t.Errorf("SignedPercent = %q", got)
	}
	if got := SignedPercent(0.032); got != "+3.2%" {
		t.Errorf("SignedPercent(0.032) = %q", got)
	}
	if got := GHz(3.049); got != "3.05" {
		t.Errorf("GHz(3.049) = %q", got)
	}
}
