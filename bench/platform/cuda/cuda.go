// Package cuda registers the CUDA platform, "cuda": NVIDIA GPUs through
// the CUDA runtime (cgo/gpurt, loaded at run time). It opens the device a
// backend runs on (-device), measures a device's peaks (the theoretical
// ones from its attributes and bench/peak's table, and device-to-device
// copy bandwidth), and watches it through NVML while a backend runs
// (monitor.go). Nothing GPU is touched until one of these is called.
package cuda

import (
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

func init() {
	gpudev.Register("cuda", platform.CUDA, gpurt.CUDA,
		"NVIDIA GPUs through the CUDA runtime: compute peaks from the device's attributes, copy bandwidth measured, NVML clocks and throttling")
}

// OpenDevice loads the CUDA runtime and opens device index. The error says
// what is missing: the runtime (with the files tried), the driver, or a
// device.
func OpenDevice(index int) (*gpurt.Device, error) { return gpudev.OpenIndex(gpurt.CUDA, index) }

// MeasurePeaks opens CUDA device index and returns its peaks
// (gpudev.Measure). The error says why there is no GPU.
func MeasurePeaks(index int, quick bool) (peak.GPUPeaks, error) {
	return gpudev.MeasurePeaks(gpurt.CUDA, index, quick)
}
