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
