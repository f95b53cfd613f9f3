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
