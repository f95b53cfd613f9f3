package gpudev

import (
	"fmt"
	"strings"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

// Describe turns a device's attributes into peak.GPU.
func Describe(dev *gpurt.Device) peak.GPU {
	info := dev.Info()
	rt := dev.Runtime()
	vendor := "nvidia"
	if info.Vendor == gpurt.HIP {
		vendor = "amd"
	}
	return peak.GPU{
		Device: Of(dev).String(), Vendor: vendor, Name: info.Name,
		ComputeCapability: info.ComputeCapability(), SMs: info.SMs,
		ClockMHz: float64(info.ClockKHz) / 1000, MemoryClockMHz: float64(info.MemoryClockKHz) / 1000,
		BusWidthBits: info.BusWidthBits, L2Bytes: info.L2Bytes, MemoryBytes: info.TotalMemory,
		Runtime: fmt.Sprintf("%s %s, driver %s", rt.Vendor(), rt.Version(), rt.DriverVersion()),
	}
}

// nvmlClocks fills in clocks the runtime did not report (CUDA 13 dropped
// them from cudaDeviceProp, and may drop the attributes next) from NVML's
// maximum SM and memory clocks, saying so in a note.
func nvmlClocks(g *peak.GPU, info gpurt.DeviceInfo) string {
	if info.Vendor != gpurt.CUDA || (g.ClockMHz > 0 && g.MemoryClockMHz > 0) || info.PCIBusID == "" {
		return ""
	}
	m, err := gpurt.OpenMonitor(info.PCIBusID)
	if err != nil {
		return ""
	}
	defer m.Close()
	s, err := m.Read()
	if err != nil {
		return ""
	}
	var used []string
	if g.ClockMHz == 0 && s.Have&gpurt.HaveMaxSMClock != 0 {
		g.ClockMHz = float64(s.MaxSMMHz)
		used = append(used, "SM")
	}
	if g.MemoryClockMHz == 0 && s.Have&gpurt.HaveMaxMemClock != 0 {
		g.MemoryClockMHz = float64(s.MaxMemMHz)
		used = append(used, "memory")
	}
	if len(used) == 0 {
		return ""
	}
	return fmt.Sprintf("the runtime reported no %s clock: NVML's maximum used", strings.Join(used, " or "))
}

// Measure computes dev's theoretical peaks and measures its copy
// bandwidth: "DRAM", copies of max(256 MiB, 4 × L2) (at most a quarter of
// the free memory), and "L2", copies of L2/4 (source and destination
// together fill half of it); the best of three timed batches each, bytes
// read plus bytes written per time. A failed measurement leaves a note and
// no entry (results then fall back to the theoretical DRAM figure).
func Measure(dev *gpurt.Device, quick bool) peak.GPUPeaks {
	info := dev.Info()
	g := Describe(dev)
	note := nvmlClocks(&g, info)
	p := peak.GPUTheoretical(g)
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
	dram := max(int64(256<<20), 4*int64(info.L2Bytes))
	if free, _, err := dev.MemInfo(); err == nil && free > 0 {
		dram = min(dram, int64(free/4))
	}
	iters := 20
	if quick {
		iters = 5
	}
	levels := []struct {
		name  string
		bytes int64
		iters int
	}{{"DRAM", dram, iters}}
	if info.L2Bytes >= 1<<20 {
		levels = append(levels, struct {
			name  string
			bytes int64
			iters int
		}{"L2", int64(info.L2Bytes) / 4, 10 * iters})
	}
	for _, l := range levels {
		if l.bytes < 1<<20 {
			continue
		}
		best := 0.0
		var err error
		for range 3 {
			var d float64
			t, e := dev.CopyBandwidth(l.bytes, l.iters)
			if e != nil {
				err = e
				break
			}
			d = float64(t.Nanoseconds())
			if d > 0 {
				best = max(best, 2*float64(l.bytes)*float64(l.iters)/d)
			}
		}
		if err != nil || best == 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("%s copy bandwidth not measured: %v", l.name, err))
			continue
		}
		p.Bandwidth = append(p.Bandwidth, peak.BandwidthPeak{
			Level: l.name, Pattern: peak.PatternCopy, GBPS: best, WorkingSet: int(2 * l.bytes),
			Source: fmt.Sprintf("device-to-device copy of %s, %d× (%sMemcpyAsync), best of 3, read+write counted", bytesName(l.bytes), l.iters, dev.Runtime().Vendor()),
		})
	}
	return p
}

func bytesName(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
