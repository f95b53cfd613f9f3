package worker

import (
	"math"
	"testing"
	"unsafe"

	"github.com/peakbench/peakbench/bench/workload"
)

// TestSharedIntegers: an integer gemm's i32 result, and an f32 sparse
// conversion's row pointers, travel exactly past 2^24, where f32 (the other
// low-precision types' carrier) would round them.
func TestSharedIntegers(t *testing.T) {
	out := []float64{1<<24 + 1, math.MinInt32, math.MaxInt32}
	if float64(float32(out[0])) == out[0] {
		t.Fatal("2^24+1 is exact in f32: the test shows nothing")
	}
	for _, w := range []workload.Workload{{Op: workload.GEMM, DType: workload.I8}, {Op: workload.COO2CSR, DType: workload.F32}} {
		s, err := newShared("test", wideElems(w), [][]float64{{-128, 127}}, len(out), nil)
		if err != nil {
			t.Fatal(err)
		}
		s.write(s.output, out)
		got := s.read(s.output)
		for i := range out {
			if got[i] != out[i] {
				t.Errorf("%s %s element %d: %v; want %v", w.Op, w.DType, i, got[i], out[i])
			}
		}
		if in := s.read(s.inputs[0]); in[0] != -128 || in[1] != 127 {
			t.Errorf("inputs %v", in)
		}
		s.close()
	}
}

// TestSharedIndex: a sparse matrix's pattern is laid out after the output
// as int32 regions, each on pages of its own, and written whole.
func TestSharedIndex(t *testing.T) {
	rowPtr, colIdx := []int32{0, 2, 3}, []int32{0, 1<<31 - 1, 1}
	s, err := newShared("test", wideElems(workload.Workload{Op: workload.SpMV, DType: workload.F32}), [][]float64{{1, 2, 3}, {4, 5}}, 2, [][]int32{rowPtr, colIdx})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if len(s.index) != 2 {
		t.Fatalf("%d index regions; want 2", len(s.index))
	}
	prev := s.output.Offset + int64(s.output.Count*4)
	for i, want := range [][]int32{rowPtr, colIdx} {
		r := s.index[i]
		if r.Count != len(want) || r.Offset < prev || r.Offset/page == (prev-1)/page {
			t.Errorf("index region %d %+v: want %d elements on pages after byte %d", i, r, len(want), prev)
		}
		got := unsafe.Slice((*int32)(unsafe.Pointer(&s.mem[r.Offset])), r.Count)
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("index region %d element %d: %d; want %d", i, j, got[j], want[j])
			}
		}
		prev = r.Offset + int64(r.Count*4)
	}
}
