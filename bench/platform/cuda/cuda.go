// Package cuda registers the CUDA platform, "cuda": NVIDIA GPUs through
// the CUDA runtime (cgo/gpurt, loaded at run time). It opens the device a
// backend runs on (-device), measures a device's peaks (the theoretical
// ones from its attributes and bench/peak's table, and device-to-device
// copy bandwidth), and watches it through NVML while a backend runs
// (monitor.go). Nothing GPU is touched until one of these is called.
package cuda

import (
	"context"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	cudart "github.com/peakbench/peakbench/cgo/gpurt"
)

func init() {
	platform.Register(platform.Platform{
		Name:        "cuda",
		Kind:        platform.CUDA,
		Description: "NVIDIA GPUs through the CUDA runtime: compute peaks from the device's attributes, copy bandwidth measured, NVML clocks and throttling",
		MeasurePeaks: func(_ context.Context, opt platform.Options, m *platform.Measured) error {
			p, err := MeasurePeaks(opt.Device, opt.Quick)
			if err != nil {
				return err
			}
			m.Peaks.GPUs = append(m.Peaks.GPUs, p)
			return nil
		},
	})
}

// OpenDevice loads the CUDA runtime and opens device index. The error says
// what is missing: the runtime (with the files tried), the driver, or a
// device.
func OpenDevice(index int) (*cudart.Device, error) {
	rt, err := cudart.Open()
	if err != nil {
		return nil, err
	}
	return gpudev.Open(rt, index, "CUDA")
}

// MeasurePeaks opens CUDA device index and returns its peaks
// (gpudev.Measure). The error says why there is no GPU.
func MeasurePeaks(index int, quick bool) (peak.GPUPeaks, error) {
	dev, err := OpenDevice(index)
	if err != nil {
		return peak.GPUPeaks{}, err
	}
	defer dev.Close()
	return gpudev.Measure(dev, quick), nil
}
