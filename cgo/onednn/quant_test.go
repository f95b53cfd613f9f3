//go:build cgo

package onednn_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/cgo/onednn"
)

// oneDNNQuantize is what the reorder is documented to compute (PrepareQuant):
// rne(fl32(fl32(x·m) + zp)) saturated, m = fl32(1/scale).
func oneDNNQuantize(x float64, scale float32, zp int32, unsigned bool) float64 {
	m := 1 / scale
	p := float32(float32(x)*m) + float32(zp)
	lo, hi := -128.0, 127.0
	if unsigned {
		lo, hi = 0, 255
	}
	return math.Max(lo, math.Min(hi, math.RoundToEven(float64(p))))
}

// quantCase draws rows×cols f32 values, a quarter of them on rounding ties
// (x/scale a half-integer), some beyond the type's range.
func quantCase(rng *rand.Rand, rows, cols int, scales []float32) []float64 {
	x := make([]float64, rows*cols)
	for i := range x {
		s := float64(scales[(i/cols)%len(scales)])
		v := rng.NormFloat64() * 60 * s
		if i%4 == 0 {
			v = (math.Floor(v/s) + 0.5) * s
		}
		if i%97 == 0 {
			v = 300 * s * float64(1-2*(i%2))
		}
		x[i] = float64(float32(v))
	}
	return x
}

func TestQuantReorder(t *testing.T) {
	l := open(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, unsigned := range []bool{false, true} {
		for _, perChannel := range []bool{false, true} {
			for _, threads := range []int{1, 2} {
				rows, cols := 1, 1000
				if perChannel {
					rows, cols = 3, 333
				}
				nq := 1
				if perChannel {
					nq = rows
				}
				scales, zps := make([]float32, nq), make([]int32, nq)
				for i := range scales {
					scales[i] = float32(0.01 + 0.02*float64(i))
					if unsigned {
						zps[i] = 117 // odd: oneDNN's rounding of p + zp shows at ties
					}
				}
				name := fmt.Sprintf("u8=%v/channel=%v/threads=%d", unsigned, perChannel, threads)
				t.Run(name, func(t *testing.T) {
					x := quantCase(rng, rows, cols, scales)
					spec := onednn.QuantSpec{Op: onednn.Quantize, Unsigned: unsigned, Rows: rows, Cols: cols,
						PerChannel: perChannel, Scales: scales, ZeroPoints: zps}
					q := runQuant(t, l, spec, x, threads)
					for i, v := range q {
						r := (i / cols) % nq
						if want := oneDNNQuantize(x[i], scales[r], zps[r], unsigned); v != want {
							t.Fatalf("quantize element %d (x = %g, scale %g, zp %d): %g, want %g", i, x[i], scales[r], zps[r], v, want)
						}
					}
					spec.Op = onednn.Dequantize
					got := runQuant(t, l, spec, q, threads)
					for i, v := range got {
						r := (i / cols) % nq
						if want := float64(scales[r] * float32(q[i]-float64(zps[r]))); v != want {
							t.Fatalf("dequantize element %d (q = %g): %g, want %g", i, q[i], v, want)
						}
					}
				})
			}
		}
	}
}

// runQuant prepares spec, sets in, runs twice and returns the output.
func runQuant(t *testing.T, l *onednn.Library, spec onednn.QuantSpec, in []float64, threads int) []float64 {
	t.Helper()
	job, err := l.PrepareQuant(spec, onednn.JobOptions{Copies: 2, Threads: threads})
	if err != nil {
		t.Fatalf("%s: %v", spec.Op, err)
	}
	defer job.Close()
	if impl := onednn.Implementation(job); impl == "" || impl == "unknown" {
		t.Errorf("%s: no implementation name in %q", spec.Op, job.String())
	}
	if err := job.SetInput(0, in); err != nil {
		t.Fatal(err)
	}
	if _, err := job.Run(2); err != nil {
		t.Fatal(err)
	}
	out, err := job.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// oneDNN 2.x takes one zero point per tensor: rows with different ones are
// refused as unsupported, rows sharing one are not.
func TestQuantReorderChannelZeroPoints(t *testing.T) {
	l := open(t)
	spec := onednn.QuantSpec{Op: onednn.Quantize, Unsigned: true, Rows: 2, Cols: 8, PerChannel: true,
		Scales: []float32{0.1, 0.2}, ZeroPoints: []int32{3, 5}}
	if job, err := l.PrepareQuant(spec, onednn.JobOptions{}); !errors.Is(err, onednn.ErrUnsupported) {
		if job != nil {
			job.Close()
		}
		t.Skipf("this oneDNN (%s) takes per-channel zero points, or failed otherwise: %v", l.Version(), err)
	}
	spec.ZeroPoints = []int32{4, 4}
	job, err := l.PrepareQuant(spec, onednn.JobOptions{})
	if err != nil {
		t.Fatalf("one zero point shared by both rows: %v", err)
	}
	job.Close()
}

func TestQuantReorderRefuses(t *testing.T) {
	l := open(t)
	for _, s := range []onednn.QuantSpec{
		{Op: 7, Rows: 1, Cols: 4, Scales: []float32{1}, ZeroPoints: []int32{0}},
		{Op: onednn.Quantize, Rows: 0, Cols: 4, Scales: []float32{1}, ZeroPoints: []int32{0}},
		{Op: onednn.Quantize, Rows: 2, Cols: 4, PerChannel: true, Scales: []float32{1}, ZeroPoints: []int32{0}},
		{Op: onednn.Dequantize, Rows: 1, Cols: 4, Scales: []float32{0}, ZeroPoints: []int32{0}},
		{Op: onednn.Dequantize, Rows: 1, Cols: 4, Scales: []float32{float32(math.Inf(1))}, ZeroPoints: []int32{0}},
	} {
		if job, err := l.PrepareQuant(s, onednn.JobOptions{}); err == nil {
			job.Close()
			t.Errorf("%+v: no error", s)
		}
	}
}
