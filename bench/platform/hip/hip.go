// Package hip registers the HIP platform, "hip": AMD GPUs through the HIP
// runtime (cgo/gpurt's HIP side, loaded at run time), written "rocm:N NAME"
// in results. It opens the device a backend runs on (-device) and measures
// a device's peaks, as the CUDA platform does.
package hip

import (
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

func init() {
	gpudev.Register("hip", platform.HIP, gpurt.HIP,
		"AMD GPUs through the HIP runtime: compute peaks from the device's attributes, copy bandwidth measured")
}

// OpenDevice loads the HIP runtime and opens device index. The error says
// what is missing: the runtime (with the files tried), the driver, or a
// device.
func OpenDevice(index int) (*gpurt.Device, error) { return gpudev.OpenIndex(gpurt.HIP, index) }

// MeasurePeaks opens HIP device index and returns its peaks
// (gpudev.Measure). The error says why there is no GPU.
func MeasurePeaks(index int, quick bool) (peak.GPUPeaks, error) {
	return gpudev.MeasurePeaks(gpurt.HIP, index, quick)
}
