//go:build cgo

package cuda_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/platform/cuda"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

// TestNotAvailable: without a CUDA runtime the platform says why there
// are no peaks, naming the file tried.
func TestNotAvailable(t *testing.T) {
	t.Setenv("PEAKBENCH_CUDART", "/nonexistent/libcudart.so.12")
	_, err := cuda.MeasurePeaks(0, true)
	if err == nil || !strings.Contains(err.Error(), "cuda: libcudart not found (tried: PEAKBENCH_CUDART=/nonexistent/libcudart.so.12: ") {
		t.Errorf("MeasurePeaks without a runtime: %v", err)
	}
}

// TestRegistered: the platform measures into the run's GPU peaks, and
// names the -device it cannot find.
func TestRegistered(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PB_FAKE_CUDA_MEM", fmt.Sprint(64<<20))
	p, ok := platform.ForDevice(platform.Device{Kind: platform.CUDA, Index: 1})
	if !ok || p.Name != "cuda" {
		t.Fatalf("ForDevice(cuda:1) = %+v, %v", p, ok)
	}
	var m platform.Measured
	if err := p.MeasurePeaks(t.Context(), platform.Options{Quick: true}, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Peaks.GPUs) != 1 || m.Peaks.GPUs[0].Device != "cuda:0 NVIDIA H100 80GB HBM3 (fake 0)" {
		t.Errorf("GPUs %+v", m.Peaks.GPUs)
	}
	err := p.MeasurePeaks(t.Context(), platform.Options{Device: 3, Quick: true}, &m)
	if err == nil || err.Error() != "cuda: -device 3: this machine has 1 CUDA device (0 to 0)" {
		t.Errorf("device 3: %v", err)
	}
}

func TestFakePeaks(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PB_FAKE_CUDA_MEM", fmt.Sprint(64<<20))
	p, err := cuda.MeasurePeaks(0, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Device != "cuda:0 NVIDIA H100 80GB HBM3 (fake 0)" || p.Arch != "Hopper" || p.Runtime != "cuda 12.4, driver 12.4" {
		t.Errorf("peaks %+v", p.GPU)
	}
	bf, ok := p.ComputeFor("bf16")
	if !ok || bf.TheoreticalGFLOPS < 989000 || bf.TheoreticalGFLOPS > 990000 {
		t.Errorf("bf16 %+v", bf)
	}
	if p.TheoreticalGBPS < 3350 || p.TheoreticalGBPS > 3355 {
		t.Errorf("theoretical bandwidth %v", p.TheoreticalGBPS)
	}
	for _, level := range []string{"DRAM", "L2"} {
		if b, ok := p.BandwidthFor(level); !ok || b.GBPS <= 0 || b.Source == "" {
			t.Errorf("%s bandwidth %+v (notes %q)", level, b, p.Notes)
		}
	}
}

// TestFakeNoClockAttributes: a runtime without the clock attributes (CUDA
// 13 dropped them from cudaDeviceProp) gets NVML's maximum clocks.
func TestFakeNoClockAttributes(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PB_FAKE_CUDA_MEM", fmt.Sprint(64<<20))
	t.Setenv("PB_FAKE_CUDA_NO_CLOCKS", "1")
	p, err := cuda.MeasurePeaks(0, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.ClockMHz != 1980 || p.MemoryClockMHz != 2619 || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "NVML's maximum used") {
		t.Errorf("clocks %v, %v; notes %q", p.ClockMHz, p.MemoryClockMHz, p.Notes)
	}
	if bf, _ := p.ComputeFor("bf16"); bf.TheoreticalGFLOPS < 989000 {
		t.Errorf("bf16 %+v", bf)
	}
}
