// Package gpudev is what the CUDA and HIP platforms and their backends
// share, over cgo/gpurt's runtimes: opening a device by index, its typed
// platform.Device, and how many buffer sets a cold-cache kernel rotates
// through (copies.go); peaks.go measures a device's peaks.
package gpudev

import (
	"context"
	"fmt"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

// Register registers the platform of runtime v, whose peaks are those of
// the device -device names (MeasurePeaks).
func Register(name string, kind platform.Kind, v gpurt.Vendor, description string) {
	platform.Register(platform.Platform{
		Name:        name,
		Kind:        kind,
		Description: description,
		MeasurePeaks: func(_ context.Context, opt platform.Options, m *platform.Measured) error {
			p, err := MeasurePeaks(v, opt.Device, opt.Quick)
			if err != nil {
				return err
			}
			m.Peaks.GPUs = append(m.Peaks.GPUs, p)
			return nil
		},
	})
}

// OpenIndex loads runtime v and opens its device index. The error says
// what is missing: the runtime (with the files tried), the driver, or a
// device.
func OpenIndex(v gpurt.Vendor, index int) (*gpurt.Device, error) {
	rt, err := gpurt.OpenRuntime(v, "")
	if err != nil {
		return nil, err
	}
	family := "CUDA"
	if v == gpurt.HIP {
		family = "ROCm"
	}
	return Open(rt, index, family)
}

// MeasurePeaks opens device index of runtime v and returns its peaks
// (Measure). The error says why there is no such GPU.
func MeasurePeaks(v gpurt.Vendor, index int, quick bool) (peak.GPUPeaks, error) {
	dev, err := OpenIndex(v, index)
	if err != nil {
		return peak.GPUPeaks{}, err
	}
	defer dev.Close()
	return Measure(dev, quick), nil
}

// Open opens device index of rt. The error says what is missing: the
// driver, a device, or the index asked for ("cuda: -device 5: this machine
// has 2 CUDA devices (0 to 1)"); family names the devices in it ("CUDA",
// "ROCm").
func Open(rt *gpurt.Runtime, index int, family string) (*gpurt.Device, error) {
	n, err := rt.DeviceCount()
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= n {
		return nil, fmt.Errorf("%s: -device %d: this machine has %d %s device%s (0 to %d)", rt.Vendor().Prefix(), index, n, family, plural(n), n-1)
	}
	return rt.OpenDevice(index)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Of is dev as a platform.Device: "cuda:0 NVIDIA H100 80GB HBM3".
func Of(dev *gpurt.Device) platform.Device {
	info := dev.Info()
	kind := platform.CUDA
	if info.Vendor == gpurt.HIP {
		kind = platform.HIP
	}
	return platform.Device{Kind: kind, Index: info.Index, Name: info.Name}
}
