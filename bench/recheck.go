package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/result"
)

// remeasure is peak.Remeasure, a variable for the tests.
var remeasure = peak.Remeasure

// recheckBandwidth answers results above their memory bound: the
// bandwidth peaks of their thread counts were measured at the start of
// the run, and a host can slow a guest for a while in ways the guest
// cannot see (peak.Remeasure), so those peaks are measured again, at the
// same working sets, and each figure the new measurement passes is
// raised. The results of those thread counts then take the figures of
// their levels and patterns, and the check runs again: what is still
// above its bound is a model error. Not for a bandwidth given by
// -peak-bw, nor after an interruption.
func recheckBandwidth(ctx context.Context, stderr io.Writer, cfg *config, rep *result.Run) {
	if cfg.peakGBPS > 0 || ctx.Err() != nil {
		return
	}
	var threads []int
	over := 0
	for _, e := range rep.ModelErrors {
		if e.Bound != "memory" || !platform.NamesHost(e.Device) {
			continue
		}
		over++
		if !slices.Contains(threads, e.Threads) {
			threads = append(threads, e.Threads)
		}
	}
	if over == 0 {
		return
	}
	slices.Sort(threads)
	progressf(stderr, "%d result(s) above their memory bound: measuring the bandwidth peaks again (%s)…", over, peak.ThreadCountsText(threads))
	raised, err := remeasure(ctx, rep.Machine, &rep.Peaks, threads, cfg.selection.Suite == "quick")
	if err != nil {
		progressf(stderr, "measuring the bandwidth peaks again: %v", err)
	}
	// One line per level and thread count: "L3, 2 threads: read 49.7 → 181, copy … GB/s".
	for i := 0; i < len(raised); {
		j, figures := i, []string(nil)
		for ; j < len(raised) && raised[j].Level == raised[i].Level && raised[j].Threads == raised[i].Threads; j++ {
			figures = append(figures, fmt.Sprintf("%s %s → %s", raised[j].Pattern, units.Sig(raised[j].From), units.Sig(raised[j].To)))
		}
		progressf(stderr, "  %s, %s: %s GB/s", raised[i].Level, peak.ThreadsText(raised[i].Threads), strings.Join(figures, ", "))
		i = j
	}
	if len(raised) == 0 {
		return
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		if !r.OnCPU() || r.Peak.BandwidthLevel == "" || !slices.Contains(threads, r.Threads) {
			continue
		}
		if bw, ok := rep.Peaks.PatternBandwidthFor(r.Peak.BandwidthLevel, r.Peak.BandwidthPattern, r.Threads); ok && bw.GBPS > r.Peak.BandwidthGBPS {
			r.Rebound(bw)
		}
	}
	rep.ModelErrors = diagnose.CheckModel(rep)
}

// remeasureCompute is peak.RemeasureCompute, a variable for the tests.
var remeasureCompute = peak.RemeasureCompute

// recheckCompute answers results that beat the empirical compute peak of
// their unit, our own throughput kernel run at the start of the run,
// beyond their noise: that kernel runs again on the results' thread counts
// (peak.RemeasureCompute), and every result of a raised figure is taken
// as a share of the new one. The roofline stays the theoretical peak;
// a result still above the empirical figure afterwards beat our kernel,
// which its share then says. Not after an interruption.
func recheckCompute(ctx context.Context, stderr io.Writer, cfg *config, rep *result.Run) {
	if ctx.Err() != nil {
		return
	}
	var want []peak.ComputeKernel
	over := 0
	for i := range rep.Results {
		r := &rep.Results[i]
		if !beatsEmpirical(r) {
			continue
		}
		c, ok := computePeakOf(rep.Peaks, r)
		if !ok {
			continue
		}
		over++
		k := peak.ComputeKernel{Kernel: c.Kernel, Threads: r.Threads}
		if !slices.Contains(want, k) {
			want = append(want, k)
		}
	}
	if over == 0 {
		return
	}
	progressf(stderr, "%d result(s) above the empirical compute peak of their unit: running those units' kernels again…", over)
	raised, err := remeasureCompute(ctx, rep.Machine, &rep.Peaks, want, cfg.selection.Suite == "quick")
	if err != nil {
		progressf(stderr, "measuring the compute peaks again: %v", err)
	}
	for _, rc := range raised {
		progressf(stderr, "  %s, %s: %s → %s GFLOP/s", rc.Unit, peak.ThreadsText(rc.Threads), units.Sig(rc.From), units.Sig(rc.To))
		for i := range rep.Results {
			r := &rep.Results[i]
			if r.OnCPU() && r.Threads == rc.Threads && unitOf(r) == rc.Unit && r.Peak.ComputeEmpiricalGFLOPS == rc.From {
				r.Peak.ComputeEmpiricalGFLOPS = rc.To
				r.Share.ComputeEmpirical = result.Ratio(r.GFLOPS, rc.To)
			}
		}
	}
}

// beatsEmpirical reports whether r, a verified CPU result, passed the
// empirical compute peak it is a share of by more than its noise (the
// model check's allowance for its samples, diagnose.SampleNoise).
func beatsEmpirical(r *result.Result) bool {
	return r.OnCPU() && r.Error == "" && r.Verified && r.Peak.ComputeEmpiricalGFLOPS > 0 &&
		r.GFLOPS > r.Peak.ComputeEmpiricalGFLOPS*(1+diagnose.SampleNoise(r))
}

// computePeakOf is the compute peak r's ceilings were taken from: its
// thread count's peak of r's unit with r's figures.
func computePeakOf(p peak.Peaks, r *result.Result) (peak.ComputePeak, bool) {
	for _, c := range p.Compute {
		if c.Threads == r.Threads && c.UnitName() == unitOf(r) &&
			c.TheoreticalGFLOPS == r.Peak.ComputeTheoreticalGFLOPS && c.EmpiricalGFLOPS == r.Peak.ComputeEmpiricalGFLOPS {
			return c, true
		}
	}
	return peak.ComputePeak{}, false
}

// unitOf is the unit of r's compute ceiling; results from files older
// than units have none: the FMA unit.
func unitOf(r *result.Result) string {
	return peak.ComputePeak{Unit: r.Peak.ComputeUnit}.UnitName()
}
