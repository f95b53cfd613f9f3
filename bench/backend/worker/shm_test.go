package worker

import (
	"math"
	"testing"

	"github.com/peakbench/peakbench/bench/workload"
)

// TestSharedIntegers: an integer gemm's i32 result travels exactly, past
// 2^24, where f32 (the other low-precision types' carrier) would round it.
func TestSharedIntegers(t *testing.T) {
	out := []float64{1<<24 + 1, math.MinInt32, math.MaxInt32}
	if float64(float32(out[0])) == out[0] {
		t.Fatal("2^24+1 is exact in f32: the test shows nothing")
	}
	s, err := newShared("test", workload.I8, [][]float64{{-128, 127}}, len(out), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	s.write(s.output, out)
	got := s.read(s.output)
	for i := range out {
		if got[i] != out[i] {
			t.Errorf("element %d: %v; want %v", i, got[i], out[i])
		}
	}
	if in := s.read(s.inputs[0]); in[0] != -128 || in[1] != 127 {
		t.Errorf("inputs %v", in)
	}
}
