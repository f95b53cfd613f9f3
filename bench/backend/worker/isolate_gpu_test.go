//go:build cgo

package worker

import (
	"reflect"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	_ "github.com/peakbench/peakbench/bench/backend/rocblas"
	"github.com/peakbench/peakbench/bench/harness"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

// openBoth opens name in process and in a child process, on the fake GPU
// libraries (gpufake): the child inherits the environment that points the
// loader at them.
func openBoth(t *testing.T, name string) (in backend.Backend, iso *Backend) {
	t.Helper()
	f, err := backend.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	in, err = f.Open(backend.OpenOptions{})
	if err != nil {
		t.Fatalf("%s in process: %v", name, err)
	}
	t.Cleanup(func() { in.Close() })
	return in, openIsolated(t, name)
}

// TestIsolatedGPU runs the GPU backends in a child process on the fake
// GPU libraries: the conformance suite (cuBLAS's f16, bf16, tf32, e4m3 and
// i8 gemm included: they travel as f32, i8 as f64), and the same name,
// device and details as in process.
func TestIsolatedGPU(t *testing.T) {
	gpufake.Require(t)
	for _, name := range []string{"cublas", "cufft", "cusparse", "cudnn", "rocblas"} {
		t.Run(name, func(t *testing.T) {
			in, b := openBoth(t, name)
			if b.Name() != in.Name() || b.Device() != in.Device() || !reflect.DeepEqual(b.Info(), in.Info()) {
				t.Errorf("isolated: %s %s %+v\nin process: %s %s %+v", b.Name(), b.Device(), b.Info(), in.Name(), in.Device(), in.Info())
			}
			for _, dt := range workload.GEMMDTypes {
				if harness.SupportsDType(b, dt) != harness.SupportsDType(in, dt) {
					t.Errorf("%s: isolated %v, in process %v", dt, harness.SupportsDType(b, dt), harness.SupportsDType(in, dt))
				}
			}
			backendtest.Run(t, b)
			if name == "cublas" {
				reducedGEMM(t, in, b)
			}
		})
	}
}

// reducedGEMM runs gemm in the low-precision types the backend declares in
// process and in the child: the same verified output either way.
func reducedGEMM(t *testing.T, in, iso backend.Backend) {
	for _, dt := range workload.GEMMDTypes {
		if !harness.SupportsDType(in, dt) {
			continue
		}
		// the form every type runs (fp8: TN, k a multiple of 16)
		w := workload.Workload{Op: workload.GEMM, DType: dt, Shape: workload.Shape{M: 17, N: 36, K: 2048, TransB: true}}
		data := w.NewData(1)
		var outs [2][]float64
		for i, b := range []backend.Backend{in, iso} {
			k, err := b.Prepare(w, data, backend.Config{Threads: 1, Copies: 1})
			if err != nil {
				t.Fatalf("%s %s: %v", b.Name(), dt, err)
			}
			if _, err := k.Run(1); err != nil {
				t.Fatal(err)
			}
			if outs[i], err = k.Output(); err != nil {
				t.Fatal(err)
			}
			k.Close()
		}
		if c := w.Verify(data, outs[1]); !c.OK {
			t.Errorf("gemm %s isolated: not verified (%s)", dt, c.Detail)
		}
		if !reflect.DeepEqual(outs[0], outs[1]) {
			t.Errorf("gemm %s: isolated output differs from the in-process one", dt)
		}
	}
}

// TestIsolatedGPUDevice: the child opens the device -device selected, and
// reports throttling seen while it ran, as the in-process backend does.
func TestIsolatedGPUDevice(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PB_FAKE_CUDA_DEVICES", "2")
	backendtest.Throttle(t) // before the child starts
	b := openIsolatedWith(t, "cublas", backend.OpenOptions{Device: 1})
	if d := b.Device().String(); d != "cuda:1 NVIDIA H100 80GB HBM3 (fake 1)" {
		t.Errorf("Device() = %q", d)
	}
	warn := backendtest.RunThrottled(t, b)
	if len(warn) != 1 || !strings.Contains(warn[0], "cuda:1 NVIDIA H100 80GB HBM3 (fake 1) throttled while cublas ran: sw_power_cap") {
		t.Errorf("Warnings() = %q", warn)
	}
	if d := b.Info().Details; d["nvml_throttle_reasons"] != "sw_power_cap" || d["nvml_min_sm_clock_mhz"] != "1410" {
		t.Errorf("details after the run %v", d)
	}
}
