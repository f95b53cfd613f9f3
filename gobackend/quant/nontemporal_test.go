package quant

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// withNonTemporal runs f with NonTemporalFrom at from.
func withNonTemporal(from int, f func()) {
	old := NonTemporalFrom
	defer func() { NonTemporalFrom = old }()
	NonTemporalFrom = from
	f()
}

// TestNonTemporal: the non-temporal kernels give the generic kernel's bits
// at every level, at every offset of the output from a 64-byte line (the
// generic head the wrapper runs before them), per tensor and per row, on
// one and two threads.
func TestNonTemporal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	withNonTemporal(1, func() {
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

// TestNonTemporalFrom: the choice follows the call's bytes.
func TestNonTemporalFrom(t *testing.T) {
	withNonTemporal(1000, func() {
		if nonTemporal(999) || !nonTemporal(1000) {
			t.Error("nonTemporal does not switch at NonTemporalFrom")
		}
	})
	withNonTemporal(0, func() {
		if nonTemporal(1 << 40) {
			t.Error("NonTemporalFrom = 0 should mean never")
		}
	})
}
