//go:build cgo

package cublas_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cublas"
	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func openLib(t *testing.T) *cublas.Library {
	t.Helper()
	_, dev := gpufake.Device(t, gpurt.Open)
	lib, err := cublas.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

// TestHalfOutputsF32: f16 and bf16 gemm accumulate into an f32 output, so a
// sum that the input type cannot hold comes back whole: 1 + 2⁻¹¹ in f16
// (ulp 2⁻¹⁰ at 1) and 1 + 2⁻⁸ in bf16 (ulp 2⁻⁷) would round to 1.
func TestHalfOutputsF32(t *testing.T) {
	lib := openLib(t)
	for _, c := range []struct {
		dt   gpurt.DType
		tiny float64
	}{{gpurt.F16, 0x1p-11}, {gpurt.BF16, 0x1p-8}} {
		job, err := lib.PrepareGEMM(c.dt, false, false, 1, 1, 2, gpurt.JobOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := run(t, job, []float64{1, 1}, []float64{1, c.tiny})
		if want := 1 + c.tiny; got[0] != want {
			t.Errorf("%v: 1·1 + 1·%g = %v; want %v, the f32 output (%s)", c.dt, c.tiny, got[0], want, job)
		}
		if !strings.Contains(job.String(), "→ CUDA_R_32F CUBLAS_COMPUTE_32F") {
			t.Errorf("%v: %s", c.dt, job)
		}
		job.Close()
	}
}

// TestI8: s8 × s8 sums exactly into i32, past what f32 holds exactly, in
// every transpose whose leading dimensions are multiples of 4.
func TestI8(t *testing.T) {
	lib := openLib(t)
	const m, n, k = 4, 8, 1024
	a := make([]float64, m*k)
	b := make([]float64, k*n)
	for i := range a {
		a[i] = float64(int8(i*37 + 11))
	}
	for i := range b {
		b[i] = float64(int8(i*53 - 7))
	}
	a[0], b[0] = -128, -128 // the extremes, and an odd sum beyond 2²⁴ below
	want := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s int64
			for q := 0; q < k; q++ {
				s += int64(a[i*k+q]) * int64(b[q*n+j])
			}
			want[i*n+j] = float64(s)
		}
	}
	transpose := func(v []float64, r, c int) []float64 {
		out := make([]float64, len(v))
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				out[j*r+i] = v[i*c+j]
			}
		}
		return out
	}
	for _, tr := range []struct{ ta, tb bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		aa, bb := a, b
		if tr.ta {
			aa = transpose(a, m, k)
		}
		if tr.tb {
			bb = transpose(b, k, n)
		}
		job, err := lib.PrepareGEMM(gpurt.I8, tr.ta, tr.tb, m, n, k, gpurt.JobOptions{Copies: 2})
		if err != nil {
			t.Fatal(err)
		}
		got := run(t, job, aa, bb)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("ta=%v tb=%v: C[%d] = %v; want %v (%s)", tr.ta, tr.tb, i, got[i], want[i], job)
				break
			}
		}
		job.Close()
	}
	// B's leading dimension is n = 6 without transB: not a multiple of 4.
	_, err := lib.PrepareGEMM(gpurt.I8, false, false, 4, 6, 8, gpurt.JobOptions{})
	if !errors.Is(err, gpurt.ErrUnsupported) || !strings.Contains(err.Error(), "multiples of 4; A's is 8 (k), B's 6 (n)") {
		t.Errorf("i8 4×6×8: %v", err)
	}
}

// TestE4M3: cuBLASLt's fp8 matmul in its TN form (row-major transB), on
// values exact in e4m3, subnormals and the extremes ±448 included, summed
// in f32; values between e4m3's are rounded on the way in. The other forms
// and e5m2 are refused.
func TestE4M3(t *testing.T) {
	lib := openLib(t)
	if ok, why := lib.FP8(); !ok {
		t.Fatalf("FP8() on the fake H100: %s", why)
	}
	const m, n, k = 2, 4, 16
	a := make([]float64, m*k)
	bt := make([]float64, n*k) // B stored n×k
	vals := []float64{1, -0.5, 448, -448, 0x1p-9, 3.5, -0.0625, 0.875, 2, 240, -6, 0x1p-7, 1.125, 13, -0.25, 0}
	for i := range a {
		a[i] = vals[i%len(vals)]
	}
	for i := range bt {
		bt[i] = vals[(i*5+3)%len(vals)]
	}
	// want checks C = A·Bᵀ summed in f32 (every product exact).
	want := func(t *testing.T, job *gpurt.Job, got []float64) {
		t.Helper()
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float32
				for q := 0; q < k; q++ {
					s += float32(a[i*k+q]) * float32(bt[j*k+q])
				}
				if got[i*n+j] != float64(s) {
					t.Errorf("C[%d,%d] = %v; want %v (%s)", i, j, got[i*n+j], s, job)
				}
			}
		}
	}
	// A cuBLASLt that refuses the scale pointers in cublasLtMatmul, after
	// its heuristic took them (13.1 on an H100): the job computes without.
	t.Run("scale pointers refused", func(t *testing.T) {
		t.Setenv("PB_FAKE_LT_NO_SCALES", "1")
		job, err := lib.PrepareGEMM(gpurt.E4M3, false, true, m, n, k, gpurt.JobOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer job.Close()
		want(t, job, run(t, job, a, bt))
		if !strings.Contains(job.String(), "no scale pointers") {
			t.Errorf("job %s: want it to say it runs without scale pointers", job)
		}
	})
	job, err := lib.PrepareGEMM(gpurt.E4M3, false, true, m, n, k, gpurt.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	if !strings.Contains(job.String(), "A and B scales 1") {
		t.Errorf("job %s: want the scales", job)
	}
	want(t, job, run(t, job, a, bt))
	if !strings.Contains(job.String(), "cublasLtMatmul CUDA_R_8F_E4M3 → CUDA_R_32F CUBLAS_COMPUTE_32F") {
		t.Errorf("job %s", job)
	}
	// Rounded on the host: 1.0625 lies between 1 and 1.125 (ties to even: 1),
	// 500 beyond the largest e4m3 (saturates to 448), NaN stays NaN.
	in := make([]float64, m*k)
	in[0], in[k] = 1.0625, 500
	one := make([]float64, n*k)
	one[0] = 1
	got := run(t, job, in, one)
	if got[0] != 1 || got[n] != 448 {
		t.Errorf("rounding: C[0,0] = %v, C[1,0] = %v; want 1 and 448", got[0], got[n])
	}
	in[0] = math.NaN()
	if got = run(t, job, in, one); !math.IsNaN(got[0]) {
		t.Errorf("NaN in: C[0,0] = %v", got[0])
	}

	for _, c := range []struct {
		dt     gpurt.DType
		ta, tb bool
		k      int
		want   string
	}{
		{gpurt.E4M3, false, false, 16, "take only the TN form, row-major transB without transA (this is not transB)"},
		{gpurt.E4M3, true, true, 16, "(this is transA transB)"},
		{gpurt.E4M3, false, true, 24, "k a multiple of 16"},
		{gpurt.E5M2, false, true, 16, "cuBLASLt has no E5M2 × E5M2 kernel"},
	} {
		_, err := lib.PrepareGEMM(c.dt, c.ta, c.tb, 4, 4, c.k, gpurt.JobOptions{})
		if !errors.Is(err, gpurt.ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v ta=%v tb=%v k=%d: %v; want unsupported, %q", c.dt, c.ta, c.tb, c.k, err, c.want)
		}
	}
}

// TestNoFP8: below compute capability 8.9 there is no fp8 gemm, and FP8 says why.
func TestNoFP8(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	t.Setenv("PB_FAKE_CUDA_CC", "86")
	lib, err := cublas.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ok, why := lib.FP8()
	if ok || why != "fp8 gemm needs compute capability 8.9 or later (Ada, Hopper); cuda:0 is 8.6" {
		t.Errorf("FP8() = %v, %q", ok, why)
	}
	_, err = lib.PrepareGEMM(gpurt.E4M3, false, true, 16, 16, 16, gpurt.JobOptions{})
	if !errors.Is(err, gpurt.ErrUnsupported) || !strings.Contains(err.Error(), why) {
		t.Errorf("e4m3 on 8.6: %v", err)
	}
}
