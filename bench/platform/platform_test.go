package platform_test

import (
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/platform"
	_ "github.com/peakbench/peakbench/bench/platform/all"
)

// TestRegistry: the host's platform comes first, each kind has its
// platform, and a kind without one is not found.
func TestRegistry(t *testing.T) {
	var names []string
	for _, p := range platform.All() {
		names = append(names, p.Name)
		if p.MeasurePeaks == nil || p.Description == "" {
			t.Errorf("%s: incomplete %+v", p.Name, p)
		}
	}
	if got := strings.Join(names, ","); got != "cpu,cuda,hip" {
		t.Errorf("All() = %s; want cpu,cuda,hip", got)
	}
	for kind, name := range map[platform.Kind]string{platform.Host: "cpu", "": "cpu", platform.CUDA: "cuda", platform.HIP: "hip"} {
		if p, ok := platform.ForDevice(platform.Device{Kind: kind}); !ok || p.Name != name {
			t.Errorf("ForDevice(%q) = %s, %v; want %s", kind, p.Name, ok, name)
		}
	}
	if p, ok := platform.ForDevice(platform.Device{Kind: "mps"}); ok {
		t.Errorf("ForDevice(mps) = %s", p.Name)
	}
	if _, err := platform.Lookup("opencl"); err == nil || !strings.Contains(err.Error(), "accepted: cpu, cuda, hip") {
		t.Errorf("Lookup(opencl): %v", err)
	}
}

// TestRegisterTwice: a second platform of a name or kind is a programming
// error.
func TestRegisterTwice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	platform.Register(platform.Platform{Name: "cuda2", Kind: platform.CUDA})
}
