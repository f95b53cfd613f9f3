package quant

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
	"github.com/peakbench/peakbench/gobackend/tune/tunetest"
)

// storeTunings are the parameter sets the kernel tests run under: every
// store kind with the default thread split, and the extremes of every
// parameter (tunetest: non-temporal stores and a split whatever the size,
// and neither).
func storeTunings() map[string]tune.Params {
	on, off := tune.Defaults(), tune.Defaults()
	on.NonTemporal = tune.NonTemporal{Quantize: 0, Dequantize: 0}
	off.NonTemporal = tune.NonTemporal{Quantize: tune.MaxPieceBytes, Dequantize: tune.MaxPieceBytes}
	ext := tunetest.Extremes()
	return map[string]tune.Params{"nt": on, "ordinary": off, "least": ext[0], "largest": ext[1]}
}

// withTunings runs f under each of storeTunings, then puts back the
// parameters in force.
func withTunings(t *testing.T, f func(t *testing.T)) {
	defer tune.Save().Restore()
	for name, p := range storeTunings() {
		tune.Apply(p, "test")
		t.Run(name, f)
	}
}

// TestNonTemporal: the kernels with non-temporal stores forced on and off
// give the generic kernel's bits at every level, at every offset of the output from a 64-byte line (the
// generic head the wrapper runs before them), per tensor and per row, on
// one and two threads.
func TestNonTemporal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	withTunings(t, func(t *testing.T) {
		forLevels(t, func(t *testing.T, lvl isa.Level) {
			for _, n := range []int{0, 1, 63, 64, 65, 200, 1000, 4099} {
				x := inputs(rng, n+64, 0.0173)
				for off := range 17 {
					xs := x[off : off+n]
					for _, th := range []int{1, 2} {
						checkQuantize[int8](t, lvl, xs, 0.0173, 0, th)
						checkShifted[uint8](t, lvl, xs, 0.0173, 7, off, th)
					}
				}
			}
			rows, cols := 5, 131 // rows start off the 64-byte lines
			x := inputs(rng, rows*cols, 0.1)
			scales, zps := make([]float32, rows), make([]int32, rows)
			for r := range rows {
				scales[r], zps[r] = float32(0.01+rng.Float64()), int32(rng.IntN(256))
			}
			q, back := make([]uint8, len(x)), make([]float32, len(x))
			QuantizeRows(lvl, cols, x, scales, zps, q, 2)
			DequantizeRows(lvl, cols, q, scales, zps, back, 2)
			for r := range rows {
				want := make([]uint8, cols)
				quantizeGeneric(x[r*cols:(r+1)*cols], 1/scales[r], zps[r], want)
				for j, v := range want {
					if q[r*cols+j] != v || back[r*cols+j] != float32(scales[r]*float32(int32(v)-zps[r])) {
						t.Fatalf("row %d col %d: q %d, x %g; want %d", r, j, q[r*cols+j], back[r*cols+j], v)
					}
				}
			}
		})
	})
}

// checkShifted is checkQuantize with both outputs off (by off elements)
// from the start of their allocation, so that the 8-bit and the f32 output
// each meet the 64-byte boundary at a different element.
func checkShifted[Q Int8](t *testing.T, lvl isa.Level, x []float32, scale float32, zp int32, off, th int) {
	t.Helper()
	n := len(x)
	want, got := make([]Q, n), make([]Q, n+off)[off:]
	quantizeGeneric(x, 1/scale, zp, want)
	Quantize(lvl, x, scale, zp, got, th)
	ref, deq := make([]float32, n), make([]float32, n+off)[off:]
	dequantizeGeneric(want, scale, zp, ref)
	Dequantize(lvl, want, scale, zp, deq, th)
	for i := range want {
		if got[i] != want[i] || math.Float32bits(deq[i]) != math.Float32bits(ref[i]) {
			t.Fatalf("n=%d off=%d threads=%d: q[%d] = %d, x = %g; want %d, %g", n, off, th, i, got[i], deq[i], want[i], ref[i])
		}
	}
}

// TestNonTemporalFrom: the choice follows each op's parameter, in bytes
// moved (5 per element), and what the harness is told agrees with it.
func TestNonTemporalFrom(t *testing.T) {
	defer tune.Save().Restore()
	p := tune.Defaults()
	p.NonTemporal = tune.NonTemporal{Quantize: 1000, Dequantize: 5000}
	tune.Apply(p, "test")
	if quantizeNT(999) || !quantizeNT(1000) || dequantizeNT(4999) || !dequantizeNT(5000) {
		t.Error("the store kind does not switch at each op's parameter")
	}
	lvl := isa.Best
	if lvl == isa.Generic {
		t.Skip("no assembly here: nothing stores non-temporally")
	}
	if QuantizeStoresNonTemporal(lvl, 199) || !QuantizeStoresNonTemporal(lvl, 200) ||
		DequantizeStoresNonTemporal(lvl, 999) || !DequantizeStoresNonTemporal(lvl, 1000) {
		t.Error("StoresNonTemporal does not follow the parameters")
	}
	if QuantizeStoresNonTemporal(isa.Generic, 1<<20) {
		t.Error("the generic kernels have no non-temporal stores")
	}
}
