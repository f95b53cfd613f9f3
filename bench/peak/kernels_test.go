package peak

import (
	"math"
	"testing"
)

// guard is the padding around kernel outputs: NaNs with a payload no kernel
// produces, so a write out of bounds is seen.
const guard = 16

var guardBits = math.Float64bits(math.NaN()) | 0xbeef

func guarded(n int) (buf, a []float64) {
	buf = make([]float64, n+2*guard)
	for i := range buf {
		buf[i] = math.Float64frombits(guardBits)
	}
	return buf, buf[guard : guard+n]
}

func checkGuards(t *testing.T, buf []float64, n int) {
	t.Helper()
	for i := range buf {
		if (i < guard || i >= guard+n) && math.Float64bits(buf[i]) != guardBits {
			t.Fatalf("n=%d: guard %d overwritten: %v", n, i-guard, buf[i])
		}
	}
}

func triadInputs(n, off int) (b, c []float64) {
	b, c = make([]float64, n+off), make([]float64, n+off)
	for i := range b {
		b[i] = 1 + float64(i)/7
		c[i] = math.Sqrt(float64(i+1)) - 3 // products that are rounded, not exact
	}
	return b[off:], c[off:]
}

func TestTriadGeneric(t *testing.T) {
	b, c := triadInputs(100, 0)
	buf, a := guarded(100)
	triadF64Generic(a, b, c, 3)
	checkGuards(t, buf, 100)
	for i := range a {
		if want := b[i] + float64(3*c[i]); a[i] != want {
			t.Fatalf("a[%d] = %v, want %v", i, a[i], want)
		}
	}
}

// TestTriadKernels checks every kernel this CPU can run, the one Measure
// picks included, against the pure-Go twin bit for bit: every length up to
// 100, four alignments, one and three passes, guards around the output.
func TestTriadKernels(t *testing.T) {
	ks := map[string]triadKernel{"generic": goTriadKernel()}
	for _, bits := range []int{128, 256, 512} {
		k := triadKernelFor(bits)
		ks[k.name] = k
	}
	for name, k := range ks {
		for n := 0; n <= 100; n++ {
			for off := 0; off < 4; off++ {
				b, c := triadInputs(n, off)
				want := make([]float64, n)
				triadF64Generic(want, b, c, -1.25)
				for _, passes := range []int{1, 3} {
					buf, a := guarded(n + off)
					a = a[off:]
					k.run(a, b, c, -1.25, passes)
					checkGuards(t, buf, n+off)
					for i := range a {
						if math.Float64bits(a[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%s n=%d off=%d passes=%d: a[%d] = %v, want %v", name, n, off, passes, i, a[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestTriadShortInputPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for len(b) < len(a)")
		}
	}()
	triadKernelFor(256).run(make([]float64, 4), make([]float64, 3), make([]float64, 4), 1, 1)
}

func TestFMAGeneric(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 12, 17} {
		acc := make([]float64, n)
		fmaStart(acc)
		want := append([]float64(nil), acc...)
		fmaF64Generic(acc, fmaM, fmaC, 5)
		for i := range want {
			for range 5 {
				want[i] = math.FMA(want[i], fmaM, fmaC)
			}
			if acc[i] != want[i] {
				t.Fatalf("n=%d acc[%d] = %v, want %v", n, i, acc[i], want[i])
			}
		}
		acc32 := make([]float32, n)
		fmaStart(acc32)
		want32 := append([]float32(nil), acc32...)
		fmaF32Generic(acc32, fmaM, fmaC, 5)
		for i := range want32 {
			for range 5 {
				want32[i] = fma32(want32[i], fmaM, fmaC)
			}
			if acc32[i] != want32[i] {
				t.Fatalf("n=%d acc32[%d] = %v, want %v", n, i, acc32[i], want32[i])
			}
		}
	}
}

// TestFMAKernels runs each FMA kernel Measure may pick and checks its
// checksum against the pure-Go twin (float32: through float64, so within a
// few ulps, see fma32).
func TestFMAKernels(t *testing.T) {
	for _, dtype := range []string{"f32", "f64"} {
		for _, bits := range []int{0, 128, 256, 512} {
			k := fmaKernelFor(dtype, bits)
			if bits == 0 {
				k = goFMAKernel(dtype)
			}
			lanes := int(k.flopsPerRound / 2)
			for _, rounds := range []int{0, 1, 2, 37} {
				var want float64
				if dtype == "f64" {
					acc := make([]float64, lanes)
					fmaStart(acc)
					fmaF64Generic(acc, fmaM, fmaC, rounds)
					want = sum(acc)
				} else {
					acc := make([]float32, lanes)
					fmaStart(acc)
					fmaF32Generic(acc, fmaM, fmaC, rounds)
					want = sum(acc)
				}
				got := k.newRunner()(rounds)
				tol := 0.0
				if dtype == "f32" {
					tol = 1e-6 * math.Abs(want)
				}
				if math.Abs(got-want) > tol {
					t.Errorf("%s (%d bits asked) rounds=%d: sum %v, want %v", k.name, bits, rounds, got, want)
				}
			}
		}
	}
}

func TestAddChainGeneric(t *testing.T) {
	// Reference: the same chain, one statement per iteration.
	x, step := uint64(12345), uint64(0x9e3779b97f4a7c15)
	want := x
	for range 3 * addChainGenericAdds / 2 {
		want = (want + step) ^ step<<7
	}
	if got := addChainGeneric(3, x, step); got != want {
		t.Errorf("addChainGeneric = %#x, want %#x", got, want)
	}
	if got := addChainGeneric(0, x, step); got != x {
		t.Errorf("addChainGeneric(0) = %#x, want x", got)
	}
}
