package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/harness"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

// gpuBandwidthLine says what a GPU's copies measured, for standard error.
func gpuBandwidthLine(p peak.GPUPeaks) string {
	var parts []string
	for _, b := range p.Bandwidth {
		parts = append(parts, fmt.Sprintf("%s copy %s GB/s", b.Level, units.Sig(b.GBPS)))
	}
	if len(parts) == 0 {
		return "copy bandwidth not measured"
	}
	return strings.Join(parts, ", ")
}

// writeGPUPeaks prints the GPUs' peaks after the CPU's, for -peak; or, when
// none was found, one line saying why. The JSON form has them in
// peaks.gpus already; there the reasons go to standard error.
func writeGPUPeaks(w, stderr io.Writer, gpus []peak.GPUPeaks, why []string, format string) error {
	if format == "json" {
		for _, r := range why {
			progressf(stderr, "no GPU: %s", r)
		}
		return nil
	}
	if len(gpus) == 0 {
		_, err := fmt.Fprintf(w, "\nno GPU: %s\n", strings.Join(why, "; "))
		return err
	}
	for _, g := range gpus {
		arch := g.Arch
		if arch == "" {
			arch = "unknown architecture"
		}
		fmt.Fprintf(w, "\nGPU %s: compute capability %s (%s), %d SMs at %.0f MHz, %s, L2 %s; %s\n",
			g.Device, g.ComputeCapability, arch, g.SMs, g.ClockMHz, units.Bytes(int(g.MemoryBytes)), units.Bytes(g.L2Bytes), g.Runtime)
		fmt.Fprintln(w, "compute (theoretical = SMs × clock × FLOP/SM/clock, dense; empirical = the best verified GEMM of a run on this GPU, not measured by -peak)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "DTYPE\tTHEORETICAL GFLOP/s\tCLOCK GHz\tFLOP/SM/CLK\tFORMULA")
		for _, c := range g.Compute {
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%g\t%s\n", c.DType, units.Sig(c.TheoreticalGFLOPS), c.ClockGHz, c.FLOPsPerCycle, c.Formula)
		}
		tw.Flush()
		if g.TheoreticalGBPS > 0 {
			fmt.Fprintf(w, "memory: theoretical %s GB/s = %s\n", units.Sig(g.TheoreticalGBPS), g.BandwidthFormula)
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "LEVEL\tMEASURED GB/s\tWORKING SET\tSOURCE")
		for _, b := range g.Bandwidth {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", b.Level, units.Sig(b.GBPS), units.Bytes(b.WorkingSet), b.Source)
		}
		tw.Flush()
		for _, n := range g.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	return nil
}

// finishGPU completes a run on GPUs: each GPU's empirical compute peak (the
// best verified GEMM per dtype, harness.GPUEmpirical), the GPU backends'
// details as they stand after the run (NVML clocks and throttle reasons),
// and a warning on standard error for each GPU that throttled.
func finishGPU(stderr io.Writer, rep *result.Run, backends []backend.Backend) {
	harness.GPUEmpirical(&rep.Peaks, rep.Results)
	for _, b := range backends {
		if b.Device().IsHost() {
			continue
		}
		for i := range rep.Backends {
			if rep.Backends[i].Name == b.Name() && rep.Backends[i].Available {
				rep.Backends[i].Info = b.Info()
			}
		}
		if wb, ok := b.(interface{ Warnings() []string }); ok {
			for _, m := range wb.Warnings() {
				progressf(stderr, "warning: %s", m)
			}
		}
	}
}
