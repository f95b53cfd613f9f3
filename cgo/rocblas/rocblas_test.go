//go:build cgo

package rocblas_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
	"github.com/peakbench/peakbench/cgo/rocblas"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

// TestROCm5Tree: ROCm 5.0–5.5 ship rocBLAS as librocblas.so.0 (SOVERSION
// 0.1); the search finds it in $ROCM_PATH/lib. (Runs first: once the fake
// librocblas.so.4 is loaded, its soname alone would find it.)
func TestROCm5Tree(t *testing.T) {
	libs, dev := gpufake.Device(t, gpurt.OpenHIP)
	root := t.TempDir()
	dir := filepath.Join(root, "lib")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PEAKBENCH_ROCBLAS", "")
	t.Setenv("ROCM_PATH", root)
	t.Setenv("HIP_PATH", "")
	lib, err := rocblas.Open(dev)
	if err == nil {
		lib.Close()
		t.Skipf("a rocBLAS on this system's search path came first: %s", lib.Path())
	}
	for _, want := range []string{"librocblas.so.5: ", "librocblas.so.4: ", "librocblas.so.3: ", "librocblas.so.0: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("not found: %q lacks %q", err, want)
		}
	}
	b, err := os.ReadFile(libs.ROCBLAS)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "librocblas.so.0.1")
	if err := os.WriteFile(file, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("librocblas.so.0.1", filepath.Join(dir, "librocblas.so.0")); err != nil {
		t.Fatal(err)
	}
	lib, err = rocblas.Open(dev)
	if err != nil {
		t.Fatalf("ROCm 5 tree %s: %v", dir, err)
	}
	defer lib.Close()
	if real, _ := filepath.EvalSymlinks(file); lib.Path() != real {
		t.Errorf("Path() = %q; want %q", lib.Path(), real)
	}
}

func TestGEMM(t *testing.T) {
	gpufake.Require(t)
	rt, err := gpurt.OpenHIP()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := rt.OpenDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	lib, err := rocblas.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	job, err := lib.PrepareGEMM(gpurt.F64, false, true, 2, 2, 3, gpurt.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	job.SetInput(0, []float64{1, 2, 3, 4, 5, 6})     // A 2×3
	job.SetInput(1, []float64{1, -1, 0.5, 0, 2, -2}) // B stored 2×3 (op(B) = Bᵀ, 3×2)
	if _, err := job.Run(1); err != nil {
		t.Fatal(err)
	}
	got, _ := job.Output()
	if want := []float64{0.5, -2, 2, -2}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("C = %v; want %v", got, want)
	}
	if !strings.Contains(job.String(), "rocblas_dgemm NT m=2 n=2 k=3 on rocm:0") {
		t.Errorf("job %q", job)
	}
}

func TestNotHIP(t *testing.T) {
	gpufake.Require(t)
	rt, err := gpurt.Open()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := rt.OpenDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if _, err := rocblas.Open(dev); err == nil || !strings.Contains(err.Error(), "rocblas: cuda:0 is not a HIP device") {
		t.Errorf("rocBLAS on a CUDA device: %v", err)
	}
}
