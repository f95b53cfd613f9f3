//go:build cgo

package hip_test

import (
	"os"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/platform/hip"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

// TestNoDevice: the device asked for and the count are in the error.
func TestNoDevice(t *testing.T) {
	gpufake.Require(t)
	_, err := hip.OpenDevice(2)
	if err == nil || err.Error() != "rocm: -device 2: this machine has 1 ROCm device (0 to 0)" {
		t.Errorf("OpenDevice(2): %v", err)
	}
	if p, ok := platform.ForDevice(platform.Device{Kind: platform.HIP}); !ok || p.Name != "hip" {
		t.Errorf("ForDevice(rocm:0) = %+v, %v", p, ok)
	}
}

func TestFakePeaks(t *testing.T) {
	gpufake.Require(t)
	t.Setenv("PB_FAKE_HIP_MEM", "67108864")
	p, err := hip.MeasurePeaks(0, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Vendor != "amd" || p.Arch != "CDNA 3 (gfx942)" {
		t.Errorf("%+v", p.GPU)
	}
	if c, ok := p.ComputeFor("f64"); !ok || c.TheoreticalGFLOPS < 163000 || c.TheoreticalGFLOPS > 164000 {
		t.Errorf("f64 %+v", c)
	}
	if bw, ok := p.BandwidthFor("DRAM"); !ok || bw.GBPS <= 0 || !strings.Contains(bw.Source, "hipMemcpyAsync") {
		t.Errorf("DRAM %+v", bw)
	}
}
