//go:build cgo

package rocblas_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	_ "github.com/peakbench/peakbench/bench/backend/rocblas"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

func lookup(t *testing.T) backend.Factory {
	t.Helper()
	f, err := backend.Lookup("rocblas")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestNoROCm: where ROCm is absent, opening says so cleanly, naming the
// sonames tried (or, on a ROCm machine, the backend opens; with a HIP
// runtime but no AMD GPU, as on some NVIDIA machines, it says there is none).
func TestNoROCm(t *testing.T) {
	t.Setenv("PEAKBENCH_HIP", "")
	b, err := lookup(t).Open(backend.OpenOptions{})
	if err == nil {
		t.Logf("ROCm found: %s", b.Device())
		b.Close()
		return
	}
	msg := err.Error()
	if errors.Is(err, gpurt.ErrNoDevice) {
		if !strings.HasPrefix(msg, "rocm: ") || strings.Contains(msg, "\n") {
			t.Errorf("no device: %q", msg)
		}
		t.Skipf("a HIP runtime without a device: %v", err)
	}
	for _, want := range []string{"rocm: libamdhip64 not found (tried: libamdhip64.so.7: ", "libamdhip64.so.6: ", "libamdhip64.so.5: ", "PEAKBENCH_HIP"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message %q spans lines", msg)
	}
}

// TestFakeNoDevice: HIP present but no device: the runtime's own words.
func TestFakeNoDevice(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PB_FAKE_HIP_DEVICES", "0")
	_, err := lookup(t).Open(backend.OpenOptions{})
	if !errors.Is(err, gpurt.ErrNoDevice) || !strings.Contains(err.Error(), "rocm: hipGetDeviceCount failed: hipErrorNoDevice (100)") {
		t.Errorf("Open: %v", err)
	}
}

func TestFakeMissingROCBLAS(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PEAKBENCH_ROCBLAS", "/nonexistent/librocblas.so.4")
	_, err := lookup(t).Open(backend.OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "rocblas: librocblas not found (tried: PEAKBENCH_ROCBLAS=/nonexistent/librocblas.so.4: ") {
		t.Errorf("Open: %v", err)
	}
}

// TestFakeConformance runs the rocblas backend through the conformance
// suite on the fake HIP runtime and rocBLAS: gemm f32 and f64, every
// transpose, hot and cold, verified against the float64 reference.
func TestFakeConformance(t *testing.T) {
	gpufake.Require(t)
	b, err := lookup(t).Open(backend.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if d := b.Device().String(); d != "rocm:0 AMD Instinct MI300X (fake 0)" {
		t.Errorf("Device() = %q", d)
	}
	info := b.Info()
	if info.Version != "4.2.0.fake" || info.Details["compute_units"] != "304" || info.Details["hip_version"] != "6.2.41134" {
		t.Errorf("Info() = %+v", info)
	}
	backendtest.Run(t, b)
	w := workload.Workload{Op: workload.GEMM, DType: workload.BF16, Shape: workload.Shape{M: 2, N: 2, K: 2}}
	if _, err := b.Prepare(w, w.NewData(1), backend.Config{Copies: 1}); !errors.Is(err, backend.ErrUnsupported) {
		t.Errorf("bf16: %v", err)
	}
}
