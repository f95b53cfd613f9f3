// Package cpu registers the host platform, "cpu": the machine model
// (bench/peak: CPUID, the micro-architecture table, the FP units and caches
// as measured) and its peaks for each thread count. Every run has it: the
// host's figures are measured whatever the backends.
package cpu

import (
	"context"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
)

func init() {
	platform.Register(platform.Platform{
		Name:         "cpu",
		Kind:         platform.Host,
		Description:  "the host's CPU: FMA units, clock, caches and bandwidths measured at the start of a run (bench/peak)",
		MeasurePeaks: MeasurePeaks,
	})
}

// MeasurePeaks detects the machine, measures its FP units, and measures its
// peaks for each of opt.Threads into m, keeping any GPU peaks m holds.
func MeasurePeaks(ctx context.Context, opt platform.Options, m *platform.Measured) error {
	machine := peak.MeasureUnits(peak.DetectMachine(), opt.Quick)
	if machine.UnitsNote != "" {
		opt.Logf("fp units: %s", machine.UnitsNote)
	}
	opt.Logf("measuring peaks for %s…", peak.ThreadCountsText(opt.Threads))
	peaks, err := peak.Measure(ctx, machine, peak.Options{
		Threads: opt.Threads, PeakGFLOPS: opt.PeakGFLOPS, PeakGBPS: opt.PeakGBPS, Quick: opt.Quick,
	})
	if err != nil {
		return err
	}
	peaks.GPUs = append(peaks.GPUs, m.Peaks.GPUs...)
	m.Machine, m.Peaks = machine, peaks
	return nil
}
