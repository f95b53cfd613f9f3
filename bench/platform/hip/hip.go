// Package hip registers the HIP platform, "hip": AMD GPUs through the HIP
// runtime (cgo/gpurt's HIP side, loaded at run time), written "rocm:N NAME"
// in results. It opens the device a backend runs on (-device) and measures
// a device's peaks, as the CUDA platform does.
package hip

import (
	"context"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

func init() {
	platform.Register(platform.Platform{
		Name:        "hip",
		Kind:        platform.HIP,
		Description: "AMD GPUs through the HIP runtime: compute peaks from the device's attributes, copy bandwidth measured",
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

// OpenDevice loads the HIP runtime and opens device index. The error says
// what is missing: the runtime (with the files tried), the driver, or a
// device.
func OpenDevice(index int) (*gpurt.Device, error) {
	rt, err := gpurt.OpenHIP()
	if err != nil {
		return nil, err
	}
	return gpudev.Open(rt, index, "ROCm")
}

// MeasurePeaks opens HIP device index and returns its peaks
// (gpudev.Measure). The error says why there is no ROCm GPU.
func MeasurePeaks(index int, quick bool) (peak.GPUPeaks, error) {
	dev, err := OpenDevice(index)
	if err != nil {
		return peak.GPUPeaks{}, err
	}
	defer dev.Close()
	return gpudev.Measure(dev, quick), nil
}
