//go:build cgo

package cusparse_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cusparse"
	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

func TestNotFound(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	t.Setenv("PEAKBENCH_CUSPARSE", "/nonexistent/libcusparse.so.12")
	_, err := cusparse.Open(dev)
	var le *gpurt.LoadError
	if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), "cusparse: libcusparse not found (tried: PEAKBENCH_CUSPARSE=/nonexistent/libcusparse.so.12: ") {
		t.Errorf("Open: %v", err)
	}
	if !strings.Contains(err.Error(), "`pip install nvidia-cusparse-cu12` for CUDA 12") {
		t.Errorf("install hint: %v", err)
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

// TestProducts: spmv and spmm on a 3×4 matrix with an empty row, in f32
// and f64, over several buffer copies, against products worked by hand.
func TestProducts(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	lib, err := cusparse.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if v := lib.Version(); v != "12.3.1" {
		t.Errorf("version %q", v)
	}
	// A = [1 0 2 0; 0 0 0 0; 0 -1 0 3]
	rowPtr := []int32{0, 2, 2, 4}
	colIdx := []int32{0, 2, 1, 3}
	vals := []float64{1, 2, -1, 3}
	x := []float64{1, 2, 3, 4}
	X := []float64{1, 0, 2, 1, 3, -1, 4, 2} // 4×2
	for _, dt := range []gpurt.DType{gpurt.F32, gpurt.F64} {
		job, err := lib.PrepareCSR(dt, 3, 4, 0, rowPtr, colIdx, gpurt.JobOptions{Copies: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := run(t, job, vals, x); len(got) != 3 || got[0] != 7 || got[1] != 0 || got[2] != 10 {
			t.Errorf("%v spmv = %v; want [7 0 10] (%s)", dt, got, job)
		}
		if !strings.Contains(job.String(), "cusparseSpMV CSR int32") {
			t.Errorf("job %s", job)
		}
		job.Close()
		job, err = lib.PrepareCSR(dt, 3, 4, 2, rowPtr, colIdx, gpurt.JobOptions{Copies: 2})
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{7, -2, 0, 0, 10, 5}
		got := run(t, job, vals, X)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%v spmm = %v; want %v (%s)", dt, got, want, job)
				break
			}
		}
		job.Close()
	}
	if _, err := lib.PrepareCSR(gpurt.BF16, 3, 4, 0, rowPtr, colIdx, gpurt.JobOptions{}); !errors.Is(err, gpurt.ErrUnsupported) {
		t.Errorf("bf16: %v", err)
	}
	if _, err := lib.PrepareCSR(gpurt.F32, 3, 4, 0, rowPtr, []int32{0, 2, 1, 4}, gpurt.JobOptions{}); err == nil {
		t.Error("column 4 of 4: no error")
	}
}
