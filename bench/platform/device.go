package platform

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the family of a device, written as results write it: the part of
// a device string before the colon ("cuda:0 NVIDIA H100 80GB HBM3").
type Kind string

// The kinds peakbench's platforms run on. HIP devices are written "rocm:N",
// as results always named them; the platform itself is named after its
// runtime, "hip".
const (
	Host Kind = "cpu"
	CUDA Kind = "cuda"
	HIP  Kind = "rocm"
)

// Device is what a backend runs on and its results are a share of.
// The zero value is the host CPU.
type Device struct {
	Kind  Kind
	Index int    // the runtime's device number (-device); 0 on the host
	Name  string // as the runtime reports it, e.g. "NVIDIA H100 80GB HBM3"
}

// HostCPU is the host's CPU, where the Go and CPU libraries' kernels run.
func HostCPU() Device { return Device{Kind: Host} }

// IsHost reports whether d is the host CPU.
func (d Device) IsHost() bool { return d.Kind == Host || d.Kind == "" }

// Label is "cpu", or the kind and index: "cuda:0".
func (d Device) Label() string {
	if d.IsHost() {
		return string(Host)
	}
	return fmt.Sprintf("%s:%d", d.Kind, d.Index)
}

// String is the device as results and the worker protocol write it: "cpu",
// "cuda:0 NVIDIA H100 80GB HBM3", "rocm:1 AMD Instinct MI300X", or "cuda:0"
// without a name. ParseDevice reads it back.
func (d Device) String() string {
	if d.IsHost() || d.Name == "" {
		return d.Label()
	}
	return d.Label() + " " + d.Name
}

// ParseDevice reads a device string written by Device.String — in a saved
// result, a baseline, a worker's hello. "" is the host, as results from
// before the field was written have it. A kind other than peakbench's own
// (a worker's) is kept as written, so that the string round-trips.
func ParseDevice(s string) (Device, error) {
	if s == "" || s == string(Host) {
		return HostCPU(), nil
	}
	label, name, _ := strings.Cut(s, " ")
	kind, index, ok := strings.Cut(label, ":")
	n, err := strconv.Atoi(index)
	if !ok || kind == "" || err != nil || n < 0 || strconv.Itoa(n) != index {
		return Device{}, fmt.Errorf("device %q: want \"cpu\" or KIND:INDEX [NAME], e.g. \"cuda:0 NVIDIA H100 80GB HBM3\"", s)
	}
	return Device{Kind: Kind(kind), Index: n, Name: name}, nil
}

// NamesHost reports whether the device string s (a saved result's) names
// the host CPU. A string that does not parse names no host.
func NamesHost(s string) bool {
	d, err := ParseDevice(s)
	return err == nil && d.IsHost()
}
