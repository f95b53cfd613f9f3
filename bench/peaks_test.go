package main

import (
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform"
)

// onDevice is a backend on a device of the test's choosing.
type onDevice struct {
	faultyBackend
	dev platform.Device
}

func (b onDevice) Device() platform.Device { return b.dev }

// TestPlatformsFor: the host's peaks always, a GPU platform's only when a
// backend runs on one of its devices (a worker's kind has none) or -peak
// asks for every platform.
func TestPlatformsFor(t *testing.T) {
	names := func(ps []platform.Platform) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.Name)
		}
		return strings.Join(s, ",")
	}
	host := faultyBackend{}
	cuda := onDevice{dev: platform.Device{Kind: platform.CUDA, Index: 1, Name: "Test GPU"}}
	rocm := onDevice{dev: platform.Device{Kind: platform.HIP}}
	other := onDevice{dev: platform.Device{Kind: "mps"}}
	for _, c := range []struct {
		backends []backend.Backend
		all      bool
		want     string
	}{
		{[]backend.Backend{host}, false, "cpu"},
		{[]backend.Backend{host, other}, false, "cpu"},
		{[]backend.Backend{cuda, host}, false, "cpu,cuda"},
		{[]backend.Backend{rocm, cuda}, false, "cpu,cuda,hip"},
		{[]backend.Backend{rocm}, false, "cpu,hip"},
		{nil, true, "cpu,cuda,hip"},
	} {
		if got := names(platformsFor(c.backends, c.all)); got != c.want {
			t.Errorf("platformsFor(%v, %v) = %s; want %s", c.backends, c.all, got, c.want)
		}
	}
}
