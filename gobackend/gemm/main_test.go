package gemm

import (
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
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

// TestWideKernel: at AVX512 the packed loop nest runs the 8-row kernels
// where tune.GEMM.Shape chooses them for the type, the 14-row ones by
// default; at the other levels there is no other shape and the parameter
// changes nothing.
func TestWideKernel(t *testing.T) {
	for _, lvl := range isa.Levels() {
		if s, d := WideKernel[float32](lvl), WideKernel[float64](lvl); s != "" || d != "" {
			t.Errorf("%v, default shape: the nest runs %q, %q instead", lvl, s, d)
		}
		withGEMMTune(func(g *tune.GEMM) { g.Shape = tune.PerDType{F32: tune.ShapeWide, F64: tune.ShapeTall} }, func() {
			s, d := nestKernel(kernelRef[float32](lvl)).name, nestKernel(kernelRef[float64](lvl)).name
			want := [2]string{Kernel[float32](lvl), Kernel[float64](lvl)}
			if lvl == isa.AVX512 {
				want[0] = "sgemm8x48AVX512"
			}
			if s != want[0] || d != want[1] {
				t.Errorf("%v, f32 wide and f64 tall: the nest runs %s, %s; want %v", lvl, s, d, want)
			}
			if got := WideKernel[float32](lvl); (lvl == isa.AVX512) != (got != "") {
				t.Errorf("%v: WideKernel[float32] = %q", lvl, got)
			}
		})
		withGEMMTune(func(g *tune.GEMM) { g.Shape = tune.PerDType{F32: tune.ShapeTall, F64: tune.ShapeWide} }, func() {
			want := Kernel[float64](lvl)
			if lvl == isa.AVX512 {
				want = "dgemm8x24AVX512"
			}
			if d := nestKernel(kernelRef[float64](lvl)).name; d != want {
				t.Errorf("%v, f64 wide: the nest runs %s, want %s", lvl, d, want)
			}
		})
	}
}

func TestBlocking(t *testing.T) {
	for _, lvl := range isa.Levels() {
		ks := []microKernel[float32]{kernelFor[float32](lvl)}
		if w := kernelRef[float32](lvl).wide; w != nil {
			ks = append(ks, *w)
		}
		for _, k := range ks {
			if k.kc < 1 || k.mc < k.mr || k.mc%k.mr != 0 || k.nc < k.nr || k.nc%k.nr != 0 {
				t.Errorf("%s: kc %d mc %d nc %d", k.name, k.kc, k.mc, k.nc)
			}
			t.Logf("%s: kc %d mc %d nc %d", k.name, k.kc, k.mc, k.nc)
		}
		kd := []microKernel[float64]{kernelFor[float64](lvl)}
		if w := kernelRef[float64](lvl).wide; w != nil {
			kd = append(kd, *w)
		}
		for _, k := range kd {
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
