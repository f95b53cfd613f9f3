//go:build cgo

package gpurt_test

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

// TestNotFound: an override naming a missing file is the only candidate,
// and the error says so.
func TestNotFound(t *testing.T) {
	t.Setenv("PEAKBENCH_CUDART", "/nonexistent/libcudart.so.12")
	_, err := gpurt.Open()
	var le *gpurt.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("Open() = %v; want a *LoadError", err)
	}
	msg := err.Error()
	for _, want := range []string{"cuda: libcudart not found (tried: PEAKBENCH_CUDART=/nonexistent/libcudart.so.12: ", "No such file", "PEAKBENCH_CUDART",
		"`pip install nvidia-cuda-runtime-cu12` for CUDA 12, `nvidia-cuda-runtime` for CUDA 13"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if len(le.Tried) != 1 || !strings.HasPrefix(le.Tried[0], "PEAKBENCH_CUDART=/nonexistent/") {
		t.Errorf("Tried = %q; want the override alone", le.Tried)
	}
}

// TestSearch: without an override, either a real runtime loads (a GPU
// machine) or the error names every soname tried.
func TestSearch(t *testing.T) {
	t.Setenv("PEAKBENCH_CUDART", "")
	rt, err := gpurt.Open()
	if err == nil {
		t.Logf("found %v", rt)
		return
	}
	msg := err.Error()
	for _, want := range []string{"libcudart.so.13: ", "libcudart.so.12: ", "libcudart.so.11.0: ", "PEAKBENCH_CUDART"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	t.Log(msg)
}

func TestHIPNotFound(t *testing.T) {
	t.Setenv("PEAKBENCH_HIP", "")
	rt, err := gpurt.OpenHIP()
	if err == nil {
		t.Logf("found %v", rt)
		return
	}
	if msg := err.Error(); !strings.Contains(msg, "rocm: libamdhip64 not found (tried: libamdhip64.so.7: ") {
		t.Errorf("message %q", msg)
	}
}

func openFake(t *testing.T) *gpurt.Runtime {
	t.Helper()
	gpufake.Require(t)
	rt, err := gpurt.Open()
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestFakeDevice(t *testing.T) {
	rt := openFake(t)
	if rt.Vendor() != gpurt.CUDA || rt.Version() != "12.4" || rt.DriverVersion() != "12.4" || !strings.HasSuffix(rt.Path(), "libcudart.so.12") {
		t.Errorf("runtime %v: vendor %v version %q driver %q", rt, rt.Vendor(), rt.Version(), rt.DriverVersion())
	}
	n, err := rt.DeviceCount()
	if err != nil || n != 1 {
		t.Fatalf("DeviceCount() = %d, %v", n, err)
	}
	info, err := rt.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	want := gpurt.DeviceInfo{Vendor: gpurt.CUDA, Index: 0, Name: "NVIDIA H100 80GB HBM3 (fake 0)", PCIBusID: "0000:01:00.0",
		Major: 9, Minor: 0, SMs: 132, ClockKHz: 1980000, MemoryClockKHz: 2619000, BusWidthBits: 5120, L2Bytes: 50 << 20,
		TotalMemory: 1 << 30, FreeMemory: 1 << 30}
	if info != want {
		t.Errorf("Device(0) =\n%+v; want\n%+v", info, want)
	}
	if id := info.ID(); id != "cuda:0 NVIDIA H100 80GB HBM3 (fake 0)" {
		t.Errorf("ID() = %q", id)
	}
	if _, err := rt.Device(3); !errors.Is(err, gpurt.ErrInvalid) || !strings.Contains(err.Error(), "cuda:3: no such device (1 device: 0 to 0)") {
		t.Errorf("Device(3): %v", err)
	}
	dev, err := rt.OpenDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	d, err := dev.CopyBandwidth(1<<20, 3)
	if err != nil || d <= 0 {
		t.Errorf("CopyBandwidth = %v, %v", d, err)
	}
	free, total, err := dev.MemInfo()
	if err != nil || free != 1<<30 || total != 1<<30 {
		t.Errorf("MemInfo = %d, %d, %v (buffers leaked?)", free, total, err)
	}
	t.Setenv("PB_FAKE_CUDA_MEM", "1000")
	if _, err := dev.CopyBandwidth(1<<20, 1); !errors.Is(err, gpurt.ErrOutOfMemory) || !strings.Contains(err.Error(), "cuda:0: out of memory allocating 2.0 MiB") {
		t.Errorf("CopyBandwidth beyond memory: %v", err)
	}
}

func TestFakeNoDevice(t *testing.T) {
	rt := openFake(t)
	t.Setenv("PB_FAKE_CUDA_DEVICES", "0")
	_, err := rt.DeviceCount()
	if !errors.Is(err, gpurt.ErrNoDevice) || errors.Is(err, gpurt.ErrInsufficientDriver) {
		t.Fatalf("DeviceCount() error %v; want ErrNoDevice", err)
	}
	if msg := err.Error(); msg != "cuda: cudaGetDeviceCount failed: cudaErrorNoDevice (100): no CUDA-capable device is detected" {
		t.Errorf("message %q", msg)
	}
	if _, err := rt.OpenDevice(0); !errors.Is(err, gpurt.ErrNoDevice) {
		t.Errorf("OpenDevice: %v", err)
	}
}

func TestFakeOldDriver(t *testing.T) {
	rt := openFake(t)
	t.Setenv("PB_FAKE_CUDA_ERROR", "35")
	t.Setenv("PB_FAKE_CUDA_DRIVER", "11080")
	_, err := rt.DeviceCount()
	if !errors.Is(err, gpurt.ErrInsufficientDriver) {
		t.Fatalf("DeviceCount() error %v; want ErrInsufficientDriver", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "cudaErrorInsufficientDriver (35): CUDA driver version is insufficient") {
		t.Errorf("message %q", msg)
	}
}

// TestDeviceThreads: the runtime's current device is per OS thread; a
// device opened on one thread must work from any other.
func TestDeviceThreads(t *testing.T) {
	openFake(t)
	t.Setenv("PB_FAKE_CUDA_DEVICES", "2")
	rt, err := gpurt.Open()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := rt.OpenDevice(1)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			runtime.LockOSThread() // a fresh thread: its current device is 0
			defer runtime.UnlockOSThread()
			if _, err := dev.CopyBandwidth(4096, 2); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func TestMonitor(t *testing.T) {
	openFake(t)
	m, err := gpurt.OpenMonitor("0000:01:00.0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	t.Setenv("PB_FAKE_NVML_REASONS", "0x25")
	t.Setenv("PB_FAKE_NVML_SM_MHZ", "1410")
	s, err := m.Read()
	if err != nil {
		t.Fatal(err)
	}
	if s.SMMHz != 1410 || s.MaxSMMHz != 1980 || s.MemMHz != 2619 || s.TempC != 65 || s.PowerMW != 350000 || s.Have != 0x7f {
		t.Errorf("Read() = %+v", s)
	}
	if s.Reasons.Throttling() != gpurt.ReasonSWPowerCap|gpurt.ReasonSWThermal || s.Reasons.String() != "gpu_idle,sw_power_cap,sw_thermal_slowdown" {
		t.Errorf("reasons %v, throttling %v", s.Reasons, s.Reasons.Throttling())
	}
	if m.Driver() != "580.65.06-fake" {
		t.Errorf("Driver() = %q", m.Driver())
	}
	if _, err := gpurt.OpenMonitor("bogus"); err == nil || !strings.Contains(err.Error(), "nvml: no device at PCI bus id bogus") {
		t.Errorf("OpenMonitor(bogus): %v", err)
	}
	t.Setenv("PEAKBENCH_NVML", "/nonexistent/libnvidia-ml.so.1")
	if _, err := gpurt.OpenMonitor("0000:01:00.0"); err == nil || !strings.Contains(err.Error(), "nvml: libnvidia-ml not found") {
		t.Errorf("OpenMonitor without NVML: %v", err)
	}
}

// TestMonitorTemperature: NVML 13's fake answers the deprecated
// nvmlDeviceGetTemperature with NVML_ERROR_DEPRECATED, so TestMonitor's
// temperature came from nvmlDeviceGetTemperatureV; an NVML without the
// versioned call gets the old one.
func TestMonitorTemperature(t *testing.T) {
	libs := gpufake.Require(t)
	t.Setenv("PEAKBENCH_NVML", libs.NVMLOld)
	m, err := gpurt.OpenMonitor("0000:01:00.0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.Read()
	if err != nil {
		t.Fatal(err)
	}
	if s.Have&gpurt.HaveTemp == 0 || s.TempC != 65 || m.Driver() != "535.104.05-fake" {
		t.Errorf("old NVML: Read() = %+v, driver %q", s, m.Driver())
	}
}

func TestReasons(t *testing.T) {
	if s := gpurt.Reasons(0).String(); s != "none" {
		t.Errorf("0: %q", s)
	}
	if s := (gpurt.ReasonHWThermal | 0x1000).String(); s != "hw_thermal_slowdown,0x1000" {
		t.Errorf("%q", s)
	}
	if gpurt.ReasonGPUIdle.Throttling() != 0 || gpurt.ReasonAppClocks.Throttling() != 0 {
		t.Error("idle and application clocks are not throttling")
	}
}

// TestSearchVirtualEnv: a runtime in a virtual environment's
// site-packages/nvidia/cu13/lib (pip's CUDA 13 layout) is found without an
// override. (Last in the file: a successful search is cached.)
func TestSearchVirtualEnv(t *testing.T) {
	libs := gpufake.Require(t)
	venv := t.TempDir()
	dir := venv + "/lib/python3.12/site-packages/nvidia/cu13/lib"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(libs.CUDART)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/libcudart.so.13", b, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PEAKBENCH_CUDART", "")
	t.Setenv("VIRTUAL_ENV", venv)
	rt, err := gpurt.Open()
	if err != nil {
		t.Fatalf("Open with %s: %v", dir, err)
	}
	if rt.Path() != dir+"/libcudart.so.13" {
		t.Skipf("a runtime on the system's path came first: %s", rt.Path())
	}
}
