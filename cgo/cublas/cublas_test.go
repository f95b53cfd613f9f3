//go:build cgo

package cublas_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cublas"
	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

// TestCompanion: the fake libcublas needs libcublasLt.so.12 by soname and
// has no run path: it loads only if the loader loads the libcublasLt beside
// it first, which it does unless the file is missing. (Runs first: once a
// libcublasLt.so.12 is loaded in the process, any folder would do.)
func TestCompanion(t *testing.T) {
	libs, dev := gpufake.Device(t, gpurt.Open)
	dir := t.TempDir()
	b, err := os.ReadFile(libs.CUBLAS)
	if err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(dir, "libcublas.so.12")
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := cublas.OpenPath(dev, alone); err == nil {
		t.Skip("libcublasLt.so.12 is loaded in this process already")
	} else if !strings.Contains(err.Error(), "libcublasLt.so.12: cannot open shared object file") {
		t.Errorf("without its companion: %v", err)
	}
	lib, err := cublas.Open(dev)
	if err != nil {
		t.Fatalf("with its companion beside it: %v", err)
	}
	defer lib.Close()
	if lt := lib.Details()["lt_path"]; lt != libs.CUBLASLt {
		t.Errorf("lt_path %q; want %q", lt, libs.CUBLASLt)
	}
}

func TestNotFound(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	t.Setenv("PEAKBENCH_CUBLAS", "/nonexistent/libcublas.so.12")
	_, err := cublas.Open(dev)
	var le *gpurt.LoadError
	if !errors.As(err, &le) || len(le.Tried) != 1 || !strings.HasPrefix(err.Error(), "cublas: libcublas not found (tried: PEAKBENCH_CUBLAS=/nonexistent/libcublas.so.12: ") {
		t.Errorf("Open: %v", err)
	}
	if !strings.Contains(err.Error(), "`pip install nvidia-cublas-cu12` for CUDA 12, `nvidia-cublas` for CUDA 13") {
		t.Errorf("install hint: %v", err)
	}
}

// TestCompanionBesideFirst: a second cuBLAS opened in a process that holds
// one already (another installation; on a GPU machine, the real library
// before the tests' fakes) uses the libcublasLt beside itself for fp8, not
// the first one loaded under the same soname.
func TestCompanionBesideFirst(t *testing.T) {
	libs, dev := gpufake.Device(t, gpurt.Open)
	first, err := cublas.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	dir := t.TempDir()
	for _, f := range []string{libs.CUBLAS, libs.CUBLASLt} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	second, err := cublas.OpenPath(dev, filepath.Join(dir, filepath.Base(libs.CUBLAS)))
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	want := filepath.Join(dir, filepath.Base(libs.CUBLASLt))
	if lt := second.Details()["lt_path"]; lt != want {
		t.Errorf("lt_path %q; want the one beside it, %q", lt, want)
	}
}

func TestOldVersion(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	t.Setenv("PB_FAKE_CUBLAS_MAJOR", "10")
	_, err := cublas.Open(dev)
	if err == nil || !strings.Contains(err.Error(), "is cuBLAS 10.4.5; peakbench needs cuBLAS 11 or later") {
		t.Errorf("cuBLAS 10: %v", err)
	}
}

func run(t *testing.T, job *gpurt.Job, inputs ...[]float64) []float64 {
	t.Helper()
	for i, in := range inputs {
		if err := job.SetInput(i, in); err != nil {
			t.Fatal(err)
		}
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

// TestRowMajor: small products with known results, in every dtype and
// transpose: the column-major swap must give the row-major product.
func TestRowMajor(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	lib, err := cublas.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	a := []float64{1, 2, 3, 4, 5, 6}     // 2×3
	b := []float64{1, 0, -1, 2, 0.5, -2} // 3×2
	want := []float64{0.5, -2, 2, -2}    // A·B, 2×2
	at := []float64{1, 4, 2, 5, 3, 6}    // Aᵀ stored 3×2
	bt := []float64{1, -1, 0.5, 0, 2, -2}
	for _, dt := range []gpurt.DType{gpurt.F32, gpurt.F64, gpurt.F16, gpurt.BF16, gpurt.TF32} {
		for _, c := range []struct {
			ta, tb bool
			a, b   []float64
		}{{false, false, a, b}, {true, false, at, b}, {false, true, a, bt}, {true, true, at, bt}} {
			job, err := lib.PrepareGEMM(dt, c.ta, c.tb, 2, 2, 3, gpurt.JobOptions{Copies: 2})
			if err != nil {
				t.Fatal(err)
			}
			got := run(t, job, c.a, c.b)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%v ta=%v tb=%v: C = %v; want %v (%s)", dt, c.ta, c.tb, got, want, job)
					break
				}
			}
			job.Close()
		}
	}
	job, err := lib.PrepareGEMV(gpurt.F64, 2, 3, gpurt.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, job, a, []float64{1, 0, -1}); got[0] != -2 || got[1] != -2 {
		t.Errorf("gemv = %v; want [-2 -2]", got)
	}
	job.Close()
	// dot runs in device pointer mode (the fake refuses host mode for dot).
	job, err = lib.PrepareDot(gpurt.F32, 4, gpurt.JobOptions{Copies: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, job, []float64{1, 2, 3, 4}, []float64{1, 1, 1, -1}); got[0] != 2 {
		t.Errorf("dot = %v; want 2", got)
	}
	job.Close()
	job, err = lib.PrepareAXPY(gpurt.F64, 2, 0.5, gpurt.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, job, []float64{2, 4}, []float64{1, 1}); got[0] != 3 || got[1] != 5 { // two runs: y + 2·0.5·x
		t.Errorf("axpy = %v; want [3 5]", got)
	}
	job.Close()
	if _, err := lib.PrepareGEMV(gpurt.BF16, 2, 2, gpurt.JobOptions{}); !errors.Is(err, gpurt.ErrUnsupported) {
		t.Errorf("gemv bf16: %v", err)
	}
	if _, err := lib.PrepareGEMM(gpurt.F32, false, false, 0, 2, 2, gpurt.JobOptions{}); err == nil {
		t.Error("gemm 0×2×2: no error")
	}
	if _, err := lib.PrepareGEMM(gpurt.F32, false, false, 2, 2, 2, gpurt.JobOptions{Copies: -1}); err == nil {
		t.Error("copies -1: no error")
	}
}

// TestLifecycle: jobs outlive a closed library and device; closed things fail cleanly.
func TestLifecycle(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	lib, err := cublas.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	job, err := lib.PrepareGEMM(gpurt.F32, false, false, 3, 3, 3, gpurt.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lib.Close()
	dev.Close()
	if _, err := lib.PrepareGEMM(gpurt.F32, false, false, 3, 3, 3, gpurt.JobOptions{}); err == nil {
		t.Error("Prepare on a closed library: no error")
	}
	if _, err := job.Run(1); err != nil {
		t.Errorf("a job of a closed library: %v", err)
	}
	if err := job.SetInput(0, make([]float64, 5)); err == nil {
		t.Error("SetInput of a wrong length: no error")
	}
	job.Close()
	job.Close()
	if _, err := job.Run(1); err == nil || !strings.Contains(err.Error(), "job is closed") {
		t.Errorf("Run after Close: %v", err)
	}
	if err := lib.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
