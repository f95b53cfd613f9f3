package gemm

import (
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

func TestKernelChoice(t *testing.T) {
	want := map[isa.Level][2]string{
		isa.Generic: {"sgemm3x3Generic", "dgemm3x3Generic"},
		isa.AVX2:    {"sgemm6x16AVX2", "dgemm6x8AVX2"},
		isa.AVX512:  {"sgemm14x32AVX512", "dgemm14x16AVX512"},
	}
	for _, lvl := range isa.Levels() {
		if s, d := Kernel[float32](lvl), Kernel[float64](lvl); s != want[lvl][0] || d != want[lvl][1] {
			t.Errorf("%v: kernels %s, %s; want %v", lvl, s, d, want[lvl])
		}
	}
	// Above the CPU's best, the best.
	if s := Kernel[float32](isa.AVX512); s != Kernel[float32](isa.Best) {
		t.Errorf("AVX512 on a %v CPU: %s", isa.Best, s)
	}
}

func TestBlocking(t *testing.T) {
	for _, lvl := range isa.Levels() {
		for _, k := range []microKernel[float32]{kernelFor[float32](lvl)} {
			if k.kc < 1 || k.mc < k.mr || k.mc%k.mr != 0 || k.nc < k.nr || k.nc%k.nr != 0 {
				t.Errorf("%s: kc %d mc %d nc %d", k.name, k.kc, k.mc, k.nc)
			}
			t.Logf("%s: kc %d mc %d nc %d", k.name, k.kc, k.mc, k.nc)
		}
		for _, k := range []microKernel[float64]{kernelFor[float64](lvl)} {
			if k.kc < 1 || k.mc < k.mr || k.mc%k.mr != 0 || k.nc < k.nr || k.nc%k.nr != 0 {
				t.Errorf("%s: kc %d mc %d nc %d", k.name, k.kc, k.mc, k.nc)
			}
			t.Logf("%s: kc %d mc %d nc %d", k.name, k.kc, k.mc, k.nc)
		}
	}
}

// TestFloatBlocking checks floatBlocking's rules on this machine's caches:
// the block of A within a quarter of L2 (or one panel high), kc never
// above blocking's, and with fitL1 the B micro-panel within two thirds of
// L1 wherever that leaves kc ≥ 256.
func TestFloatBlocking(t *testing.T) {
	c := isa.Caches()
	for _, fitL1 := range []bool{false, true} {
		for _, s := range []struct{ mr, nr, size, kcMin int }{{14, 32, 4, kcMin512}, {14, 16, 8, kcMin512}, {6, 16, 4, kcMin256}} {
			kc, mc, nc := floatBlocking(s.mr, s.nr, s.size, s.kcMin, fitL1)
			bkc, _, bnc := blocking(s.mr, s.nr, s.size, s.kcMin)
			if kc > bkc || nc != bnc || mc%s.mr != 0 || mc > s.mr && mc*kc*s.size > c.L2/4 {
				t.Errorf("%+v fitL1=%v: kc %d mc %d nc %d (blocking's kc %d nc %d)", s, fitL1, kc, mc, nc, bkc, bnc)
			}
			fits := c.L1*2/3/(s.nr*s.size)/8*8 >= 256
			if fitL1 && fits && kc*s.nr*s.size > c.L1*2/3 {
				t.Errorf("%+v: kc %d, the B micro-panel over 2/3 of L1 %d", s, kc, c.L1)
			}
			if (!fitL1 || !fits) && kc != bkc {
				t.Errorf("%+v: kc %d, blocking's %d", s, kc, bkc)
			}
		}
	}
}
