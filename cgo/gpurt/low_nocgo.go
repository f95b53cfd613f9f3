//go:build !cgo

package gpurt

import (
	"time"
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// Without cgo no runtime can be loaded; the methods below are unreachable.

type (
	rtHandle   = unsafe.Pointer
	devHandle  = unsafe.Pointer
	nvmlHandle = unsafe.Pointer
)

func openRuntime(v Vendor, path string) (rtHandle, string, error) {
	lib := "libcudart"
	if v == HIP {
		lib = "libamdhip64"
	}
	prefix := v.Prefix() + ": "
	return nil, "", &LoadError{Library: lib, Path: path, Reason: prefix + native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

func (r *Runtime) deviceCount() (int, error)               { return 0, native.ErrNoCgo }
func (r *Runtime) deviceProps(n int) (DeviceInfo, error)   { return DeviceInfo{}, native.ErrNoCgo }
func (r *Runtime) openDevice(n int) (devHandle, error)     { return nil, native.ErrNoCgo }
func (d *Device) ptr() unsafe.Pointer                      { return nil }
func (d *Device) free()                                    {}
func (d *Device) memInfo() (free, total uint64, err error) { return 0, 0, native.ErrNoCgo }
func (d *Device) copyBandwidth(bytes int64, iters int) (time.Duration, error) {
	return 0, native.ErrNoCgo
}
func (m *Monitor) read() (Sample, error) { return Sample{}, native.ErrNoCgo }
func (m *Monitor) close()                {}

func openNVML(pciBusID string) (nvmlHandle, string, error) {
	return nil, "", &LoadError{Library: "libnvidia-ml", Reason: "nvml: " + native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}
