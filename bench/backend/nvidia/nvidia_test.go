//go:build cgo

package nvidia_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	_ "github.com/peakbench/peakbench/bench/backend/nvidia"
	"github.com/peakbench/peakbench/bench/harness"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

func open(t *testing.T, name string) backend.Backend {
	t.Helper()
	return openWith(t, name, backend.OpenOptions{})
}

func openWith(t *testing.T, name string, opt backend.OpenOptions) backend.Backend {
	t.Helper()
	f, err := backend.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Open(opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// TestNotAvailable: without a CUDA runtime the backends say so, naming the
// file tried, and nothing else breaks.
func TestNotAvailable(t *testing.T) {
	t.Setenv("PEAKBENCH_CUDART", "/nonexistent/libcudart.so.12")
	for _, name := range []string{"cublas", "cufft", "cusparse", "cudnn"} {
		f, _ := backend.Lookup(name)
		_, err := f.Open(backend.OpenOptions{})
		if err == nil || !strings.Contains(err.Error(), "cuda: libcudart not found (tried: PEAKBENCH_CUDART=/nonexistent/libcudart.so.12: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestReal runs the conformance suite on a real GPU when one is there.
func TestReal(t *testing.T) {
	for _, name := range []string{"cublas", "cufft", "cusparse", "cudnn"} {
		t.Run(name, func(t *testing.T) {
			f, _ := backend.Lookup(name)
			b, err := f.Open(backend.OpenOptions{})
			var le *gpurt.LoadError
			if err != nil && errors.As(err, &le) && (le.Library == "libcufft" || le.Library == "libcusparse") {
				t.Skipf("a GPU, but not its library: %v", err) // cuFFT and cuSPARSE are optional wheels
			}
			if err != nil {
				if os.Getenv("PEAKBENCH_REQUIRE_GPU") != "" {
					t.Fatalf("PEAKBENCH_REQUIRE_GPU is set: %v", err)
				}
				t.Skipf("no GPU: %v", err)
			}
			defer b.Close()
			t.Logf("%s on %s: %+v", name, b.Device(), b.Info())
			backendtest.Run(t, b)
			if name == "cublas" {
				checkReduced(t, b)
			}
		})
	}
}

func TestFakeCUBLAS(t *testing.T) {
	gpufake.Require(t)
	b := open(t, "cublas")
	if d := b.Device().String(); d != "cuda:0 NVIDIA H100 80GB HBM3 (fake 0)" {
		t.Errorf("Device() = %q", d)
	}
	info := b.Info()
	for k, want := range map[string]string{"compute_capability": "9.0", "sms": "132", "cudart_version": "12.4", "nvml_max_sm_clock_mhz": "1980", "nvml_throttle_reasons": "none"} {
		if info.Details[k] != want {
			t.Errorf("Details[%s] = %q; want %q (all: %v)", k, info.Details[k], want, info.Details)
		}
	}
	if info.Version != "12.4.5" || !strings.HasSuffix(info.Details["lt_path"], "libcublasLt.so.12") || info.Details["fp8"] != "cublasLtMatmul" {
		t.Errorf("Info() = %+v", info)
	}
	backendtest.Run(t, b)
	checkReduced(t, b)
	if !harness.SupportsDType(b, workload.E4M3) {
		t.Error("cublas on the fake H100 (9.0) does not claim e4m3")
	}
}

// checkReduced verifies gemm in every low-precision type b declares (at
// least f16, bf16, tf32 and i8), every transpose. A shape the library
// cannot run (i8's leading dimensions, fp8's TN form) must be refused as
// an unsupported shape with its reason; each type must compute the shape
// every form accepts (64x48x128:NT).
func checkReduced(t *testing.T, b backend.Backend) {
	for _, dt := range []workload.DType{workload.F16, workload.BF16, workload.TF32, workload.I8} {
		if !harness.SupportsDType(b, dt) {
			t.Errorf("%s does not claim %s", b.Name(), dt)
		}
	}
	for _, dt := range []workload.DType{workload.U8S8, workload.E5M2} {
		if harness.SupportsDType(b, dt) {
			t.Errorf("%s claims %s, which cuBLAS has no kernel for", b.Name(), dt)
		}
	}
	for _, dt := range workload.GEMMDTypes {
		if !harness.SupportsDType(b, dt) {
			continue
		}
		for _, spec := range []string{"64x48x128:NT", "1", "17x33x65", "17x33x65:TN", "31x7x129:TT"} {
			sh, _ := workload.ParseShape(workload.GEMM, spec)
			w := workload.Workload{Op: workload.GEMM, DType: dt, Shape: sh}
			t.Run(fmt.Sprintf("%s/%s", dt, spec), func(t *testing.T) {
				d := w.NewData(3)
				k, err := b.Prepare(w, d, backend.Config{Threads: 1, Copies: 1})
				if errors.Is(err, backend.ErrUnsupportedShape) && spec != "64x48x128:NT" {
					t.Skip(err)
				}
				if err != nil {
					t.Fatal(err)
				}
				defer k.Close()
				if _, err := k.Run(3); err != nil {
					t.Fatal(err)
				}
				out, err := k.Output()
				if err != nil {
					t.Fatal(err)
				}
				if c := w.Verify(d, out); !c.OK {
					t.Errorf("%v: %s (max %g, tol %g)", w, c.Detail, c.MaxRelErr, c.Tolerance)
				}
			})
		}
	}
	// Reduced types apply to gemm only.
	w := workload.Workload{Op: workload.Dot, DType: workload.BF16, Shape: workload.Shape{N: 8}}
	if _, err := b.Prepare(w, workload.Data{Alpha: 1, Args: [][]float64{make([]float64, 8), make([]float64, 8)}}, backend.Config{Copies: 1}); !errors.Is(err, backend.ErrUnsupported) {
		t.Errorf("dot bf16: %v", err)
	}
}

// TestFakeCUBLASRefusals: the shapes cuBLAS cannot run in i8 and e4m3 are
// unsupported shapes whose message says why (want "": the shape runs).
func TestFakeCUBLASRefusals(t *testing.T) {
	gpufake.Require(t)
	b := open(t, "cublas")
	for _, c := range []struct {
		dt   workload.DType
		spec string
		want string
	}{
		{workload.I8, "16x16x18", "cublas: gemm i8: cublasGemmEx with CUBLAS_COMPUTE_32I needs leading dimensions that are multiples of 4; A's is 18 (k), B's 16 (n)"},
		{workload.I8, "16x18x16:TT", ""}, // transposed, A's and B's leading dimensions are m and k: runs
		{workload.E4M3, "64", "cublas: gemm e4m3: cuBLASLt's fp8 kernels take only the TN form, row-major transB without transA (this is not transB)"},
		{workload.E4M3, "64:TT", "(this is transA transB)"},
		{workload.E4M3, "64x64x40:NT", "k a multiple of 16 (the operands' rows) and n of 4 (the f32 output's); k=40 n=64"},
	} {
		sh, err := workload.ParseShape(workload.GEMM, c.spec)
		if err != nil {
			t.Fatal(err)
		}
		w := workload.Workload{Op: workload.GEMM, DType: c.dt, Shape: sh}
		k, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1})
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v", w, err)
			} else {
				k.Close()
			}
			continue
		}
		if !errors.Is(err, backend.ErrUnsupportedShape) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v; want an unsupported shape saying %q", w, err, c.want)
		}
	}
}

// TestFakeCUBLASNoFP8: on a device below compute capability 8.9 (an A100's
// 8.0) e4m3 is not declared, and the details say why; i8 still is.
func TestFakeCUBLASNoFP8(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PB_FAKE_CUDA_CC", "80")
	b := open(t, "cublas")
	if harness.SupportsDType(b, workload.E4M3) || !harness.SupportsDType(b, workload.I8) {
		t.Errorf("on 8.0: e4m3 %v, i8 %v; want false, true", harness.SupportsDType(b, workload.E4M3), harness.SupportsDType(b, workload.I8))
	}
	if why := b.Info().Details["fp8"]; !strings.Contains(why, "fp8 gemm needs compute capability 8.9 or later (Ada, Hopper); cuda:0 is 8.0") {
		t.Errorf("details fp8 = %q", why)
	}
	w := workload.Workload{Op: workload.GEMM, DType: workload.E4M3, Shape: workload.Shape{M: 64, N: 64, K: 64, TransB: true}}
	if _, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1}); !errors.Is(err, backend.ErrUnsupported) {
		t.Errorf("e4m3 on 8.0: %v", err)
	}
}

// TestFakeCUFFT: the conformance suite (every FFT size class, 1-D and
// 2-D, f32 and f64) on the fake cuFFT; each kernel reports its plan's time
// and names the plan; a missing cuFFT makes the backend unavailable with
// the file tried and how to install one.
func TestFakeCUFFT(t *testing.T) {
	gpufake.Require(t)
	b := open(t, "cufft")
	if v := b.Info().Version; v != "11.2.0" {
		t.Errorf("version %q", v)
	}
	if harness.SupportsDType(b, workload.BF16) {
		t.Error("cufft claims bf16")
	}
	backendtest.Run(t, b)
	w := workload.Workload{Op: workload.RFFT, DType: workload.F64, Shape: workload.Shape{M: 3, K: 4, N: 10}}
	k, err := b.Prepare(w, w.NewData(1), backend.Config{Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if _, ok := k.(backend.KernelPlanTime); !ok || !strings.Contains(fmt.Sprint(k), "cufftPlanMany D2Z f64 3x4x10:2d") {
		t.Errorf("kernel %s: plan time %v", k, ok)
	}
	gemm := workload.Workload{Op: workload.GEMM, DType: workload.F32, Shape: workload.Shape{M: 2, N: 2, K: 2}}
	if _, err := b.Prepare(gemm, gemm.NewData(1), backend.Config{Copies: 1}); !errors.Is(err, backend.ErrUnsupported) {
		t.Errorf("gemm: %v; want ErrUnsupported", err)
	}

	t.Setenv("PEAKBENCH_CUFFT", "/nonexistent/libcufft.so.11")
	f, _ := backend.Lookup("cufft")
	if _, err := f.Open(backend.OpenOptions{}); err == nil || !strings.Contains(err.Error(), "libcufft not found (tried: PEAKBENCH_CUFFT=/nonexistent/libcufft.so.11") || !strings.Contains(err.Error(), "pip install nvidia-cufft-cu12") {
		t.Errorf("without cuFFT: %v", err)
	}
}

// TestFakeCUSPARSE: the conformance suite (one entry, empty rows, a power
// law) on the fake cuSPARSE, spmv, spmm and the format conversions
// (csr2coo, coo2csr, csr2csc: exact, the order within each column
// included) in f32 and f64; a missing
// cuSPARSE makes the backend unavailable with the file tried and how to
// install one.
func TestFakeCUSPARSE(t *testing.T) {
	gpufake.Require(t)
	b := open(t, "cusparse")
	if v := b.Info().Version; v != "12.3.1" {
		t.Errorf("version %q", v)
	}
	backendtest.Run(t, b)
	fft := workload.Workload{Op: workload.FFT, DType: workload.F32, Shape: workload.Shape{M: 1, N: 8}}
	if _, err := b.Prepare(fft, fft.NewData(1), backend.Config{Copies: 1}); !errors.Is(err, backend.ErrUnsupported) {
		t.Errorf("fft: %v; want ErrUnsupported", err)
	}

	t.Setenv("PEAKBENCH_CUSPARSE", "/nonexistent/libcusparse.so.12")
	f, _ := backend.Lookup("cusparse")
	if _, err := f.Open(backend.OpenOptions{}); err == nil || !strings.Contains(err.Error(), "libcusparse not found (tried: PEAKBENCH_CUSPARSE=/nonexistent/libcusparse.so.12") || !strings.Contains(err.Error(), "pip install nvidia-cusparse-cu12") {
		t.Errorf("without cuSPARSE: %v", err)
	}
}

func TestFakeCUDNN(t *testing.T) {
	gpufake.Require(t)
	b := open(t, "cudnn")
	if v := b.Info().Version; v != "9.1.0" {
		t.Errorf("version %q", v)
	}
	if harness.SupportsDType(b, workload.BF16) {
		t.Error("cudnn claims bf16")
	}
	backendtest.Run(t, b)
	for _, w := range []workload.Workload{
		{Op: workload.Exp, DType: workload.F32, Shape: workload.Shape{N: 8}},
		{Op: workload.Add, DType: workload.F64, Shape: workload.Shape{N: 8}},
		{Op: workload.GEMM, DType: workload.F32, Shape: workload.Shape{M: 2, N: 2, K: 2}},
	} {
		if _, err := b.Prepare(w, w.NewData(1), backend.Config{Copies: 1}); !errors.Is(err, backend.ErrUnsupported) {
			t.Errorf("%v: %v; want ErrUnsupported", w, err)
		}
	}
}

// TestFakeCUDNNOtherCUDA: a cuDNN built for another CUDA major than the
// runtime's is not available, with both versions in the reason.
func TestFakeCUDNNOtherCUDA(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PB_FAKE_CUDNN_CUDART", "11080")
	f, _ := backend.Lookup("cudnn")
	_, err := f.Open(backend.OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "built for CUDA 11.8 (cudnnGetCudartVersion 11080), but the CUDA runtime loaded is 12.4") {
		t.Errorf("Open: %v", err)
	}
}

func TestFakeOutOfMemory(t *testing.T) {
	gpufake.Require(t)
	b := open(t, "cublas")
	t.Setenv("PB_FAKE_CUDA_MEM", fmt.Sprint(1<<20))
	w := workload.Workload{Op: workload.GEMM, DType: workload.F32, Shape: workload.Shape{M: 512, N: 512, K: 512}}
	_, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1})
	if !errors.Is(err, gpurt.ErrOutOfMemory) || errors.Is(err, backend.ErrUnsupported) {
		t.Fatalf("Prepare: %v; want out of memory", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "cuda:0: out of memory allocating 3.0 MiB for cublas gemm f32 m=512 n=512 k=512 (1 copy; 1.0 MiB free of 1.0 MiB)") {
		t.Errorf("message %q", msg)
	}
}

// TestFakeColdCopies: cold runs rotate through sets exceeding twice the L2.
func TestFakeColdCopies(t *testing.T) {
	gpufake.Require(t)
	b := open(t, "cublas")
	w := workload.Workload{Op: workload.GEMM, DType: workload.F32, Shape: workload.Shape{M: 512, N: 512, K: 512}}
	k, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	desc := fmt.Sprint(k)
	// 3 MiB a set, L2 50 MiB: ⌈100/3⌉+1 = 35 copies, within half the fake's 1 GiB.
	if !strings.Contains(desc, "(35 copies)") {
		t.Errorf("kernel %q; want 35 copies", desc)
	}
}

func TestFakeDevices(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PB_FAKE_CUDA_DEVICES", "2")
	b := openWith(t, "cublas", backend.OpenOptions{Device: 1})
	if d := b.Device().String(); d != "cuda:1 NVIDIA H100 80GB HBM3 (fake 1)" {
		t.Errorf("Device() = %q", d)
	}
	w := workload.Workload{Op: workload.GEMM, DType: workload.F32, Shape: workload.Shape{M: 7, N: 5, K: 3}}
	d := w.NewData(1)
	k, err := b.Prepare(w, d, backend.Config{Threads: 1, Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if _, err := k.Run(2); err != nil {
		t.Fatal(err)
	}
	f, _ := backend.Lookup("cudnn")
	if _, err := f.Open(backend.OpenOptions{Device: 5}); err == nil || err.Error() != "cuda: -device 5: this machine has 2 CUDA devices (0 to 1)" {
		t.Errorf("device 5: %v", err)
	}
	t.Setenv("PB_FAKE_CUDA_DEVICES", "0")
	if _, err := f.Open(backend.OpenOptions{}); !errors.Is(err, gpurt.ErrNoDevice) || !strings.Contains(err.Error(), "no CUDA-capable device is detected") {
		t.Errorf("no device: %v", err)
	}
}

func TestFakeThrottle(t *testing.T) {
	gpufake.Require(t)
	b := open(t, "cublas")
	warn := backendtest.RunThrottled(t, b)
	if len(warn) != 1 || !strings.Contains(warn[0], "cuda:0 NVIDIA H100 80GB HBM3 (fake 0) throttled while cublas ran: sw_power_cap (SM clock as low as 1410 MHz of 1980 MHz; up to 65 °C)") {
		t.Errorf("Warnings() = %q", warn)
	}
	if d := b.Info().Details; d["nvml_throttle_reasons"] != "sw_power_cap" || d["nvml_min_sm_clock_mhz"] != "1410" {
		t.Errorf("details %v", d)
	}
}
