//go:build cgo

package cufft_test

import (
	"errors"
	"math"
	"math/cmplx"
	"os"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cufft"
	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

func openLib(t *testing.T) *cufft.Library {
	t.Helper()
	_, dev := gpufake.Device(t, gpurt.Open)
	lib, err := cufft.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

func TestNotFound(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	t.Setenv("PEAKBENCH_CUFFT", "/nonexistent/libcufft.so.11")
	_, err := cufft.Open(dev)
	var le *gpurt.LoadError
	if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), "cufft: libcufft not found (tried: PEAKBENCH_CUFFT=/nonexistent/libcufft.so.11: ") {
		t.Errorf("Open: %v", err)
	}
	if !strings.Contains(err.Error(), "`pip install nvidia-cufft-cu12` for CUDA 12") {
		t.Errorf("install hint: %v", err)
	}
}

// dft is the direct transform of x (sign −1 forward, +1 backward).
func dft(x []complex128, sign float64) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	for k := range out {
		for j, v := range x {
			out[k] += v * cmplx.Rect(1, sign*2*math.Pi*float64(j*k%n)/float64(n))
		}
	}
	return out
}

func interleave(z []complex128) []float64 {
	out := make([]float64, 0, 2*len(z))
	for _, v := range z {
		out = append(out, real(v), imag(v))
	}
	return out
}

func run(t *testing.T, job *gpurt.Job, in []float64) []float64 {
	t.Helper()
	if err := job.SetInput(0, in); err != nil {
		t.Fatal(err)
	}
	if d, err := job.Run(2); err != nil || d <= 0 {
		t.Fatalf("Run: %v, %v", d, err)
	}
	out, err := job.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func near(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values; want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol {
			t.Errorf("%s: [%d] = %v; want %v", what, i, got[i], want[i])
			return
		}
	}
}

// TestTransforms: a batch of two 1-D transforms forward and backward
// (unnormalized), a real one (n/2+1 outputs) and a 2-D one, in f32 and
// f64, against a direct DFT; each copy of a cold run gives the same.
func TestTransforms(t *testing.T) {
	lib := openLib(t)
	x := []complex128{1, 2i, -1, 0.5 - 0.25i, 3, -2i, 0, 1 + 1i, 0.5, -0.5i, 2, -1 - 1i} // 2 transforms of 6
	for _, dt := range []gpurt.DType{gpurt.F32, gpurt.F64} {
		tol := 1e-5
		if dt == gpurt.F64 {
			tol = 1e-12
		}
		for _, kind := range []cufft.Kind{cufft.Forward, cufft.Backward} {
			sign := -1.0
			if kind == cufft.Backward {
				sign = 1
			}
			job, plan, err := lib.PrepareFFT(dt, cufft.Spec{Kind: kind, Dims: []int{6}, Batch: 2}, gpurt.JobOptions{Copies: 3})
			if err != nil {
				t.Fatal(err)
			}
			if plan < 0 {
				t.Errorf("plan time %v", plan)
			}
			want := interleave(append(dft(x[:6], sign), dft(x[6:], sign)...))
			near(t, dt.String()+" "+kind.String(), run(t, job, interleave(x)), want, tol)
			job.Close()
		}
		// rfft of 5 reals: 3 outputs
		r := []float64{1, -2, 0.5, 3, -1}
		job, _, err := lib.PrepareFFT(dt, cufft.Spec{Kind: cufft.R2C, Dims: []int{5}, Batch: 1}, gpurt.JobOptions{})
		if err != nil {
			t.Fatal(err)
		}
		full := dft([]complex128{1, -2, 0.5, 3, -1}, -1)
		near(t, dt.String()+" r2c", run(t, job, r), interleave(full[:3]), tol)
		if !strings.Contains(job.String(), "cufftPlanMany") {
			t.Errorf("job %s", job)
		}
		job.Close()
		// 2-D, 2 rows × 3 columns: rows, then columns
		job, _, err = lib.PrepareFFT(dt, cufft.Spec{Kind: cufft.Forward, Dims: []int{2, 3}, Batch: 1}, gpurt.JobOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rows := [][]complex128{dft(x[:3], -1), dft(x[3:6], -1)}
		want := make([]complex128, 6)
		for c := range 3 {
			col := dft([]complex128{rows[0][c], rows[1][c]}, -1)
			want[c], want[3+c] = col[0], col[1]
		}
		near(t, dt.String()+" 2-D", run(t, job, interleave(x[:6])), interleave(want), tol)
		job.Close()
	}
}

// TestRefused: what cuFFT's 32-bit plans cannot address is refused before
// any allocation; another dtype is unsupported.
func TestRefused(t *testing.T) {
	lib := openLib(t)
	_, _, err := lib.PrepareFFT(gpurt.F32, cufft.Spec{Kind: cufft.Forward, Dims: []int{1 << 16}, Batch: 1 << 16}, gpurt.JobOptions{})
	if !errors.Is(err, gpurt.ErrUnsupported) || !strings.Contains(err.Error(), "exceed the 2³¹−1 elements") {
		t.Errorf("2³² points: %v", err)
	}
	if _, _, err := lib.PrepareFFT(gpurt.F16, cufft.Spec{Kind: cufft.Forward, Dims: []int{8}, Batch: 1}, gpurt.JobOptions{}); !errors.Is(err, gpurt.ErrUnsupported) {
		t.Errorf("f16: %v", err)
	}
	if _, _, err := lib.PrepareFFT(gpurt.F32, cufft.Spec{Kind: cufft.Forward, Dims: []int{0}, Batch: 1}, gpurt.JobOptions{}); err == nil {
		t.Error("0 points: no error")
	}
}

// TestSearchPathEnvironment: a cuFFT wheel in a Python environment whose bin
// folder is on PATH, not activated (no VIRTUAL_ENV), is found without an
// override.
func TestSearchPathEnvironment(t *testing.T) {
	libs, dev := gpufake.Device(t, gpurt.Open)
	env := t.TempDir()
	dir := env + "/lib/python3.12/site-packages/nvidia/cu13/lib"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(env+"/bin", 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(libs.Lib("cufft"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"libcufft.so.12", "libcufft.so.11", "libcufft.so.10"} {
		if err := os.WriteFile(dir+"/"+name, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PEAKBENCH_CUFFT", "")
	t.Setenv("VIRTUAL_ENV", "")
	t.Setenv("PATH", "/nonexistent/bin:"+env+"/bin:"+os.Getenv("PATH"))
	lib, err := cufft.Open(dev)
	if err != nil {
		t.Fatalf("Open with %s on PATH: %v", env+"/bin", err)
	}
	defer lib.Close()
	if !strings.HasPrefix(lib.Path(), dir+"/") {
		t.Skipf("a cuFFT on the system's path came first: %s", lib.Path())
	}
}
