package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

// The checks every run makes on itself: no result above its roofline bound
// beyond its noise (CheckModel), a clock that stayed where the peaks were
// measured (ClockCheck, ClockDrift), and each library's code path against
// the machine (CheckCodePaths, codepath.go). CheckLines says what they found
// in a few lines, for standard error and the printers' footers.

// ModelNoiseFloor is the least noise the model check allows a result: a
// result whose samples agree to the nanosecond still carries the rounding
// of its peaks, measured as the best of a few short repetitions.
const ModelNoiseFloor = 0.02

// ModelLimit is the largest share of its roofline bound r may reach:
// 1 + max(r.Spread, ModelNoiseFloor), plus, for a memory-bound result, the
// noise of the bandwidth peak it is a share of (a best-of figure measured at
// the start of the run on a shared host). Above it, the bound is wrong, not
// the result: a model error.
func ModelLimit(r *result.Result) float64 {
	s := SampleNoise(r)
	if r.Peak.Bound == "memory" {
		s += r.Peak.BandwidthSpread // the bound's own noise
	}
	return 1 + s
}

// SampleNoise is the noise a check allows r's own samples:
// max(r.Spread, ModelNoiseFloor).
func SampleNoise(r *result.Result) float64 {
	if s := r.Spread; !math.IsNaN(s) && s > ModelNoiseFloor {
		return s
	}
	return ModelNoiseFloor
}

// OverBound reports whether r is a model error: a verified result above
// ModelLimit of its roofline bound.
func OverBound(r *result.Result) bool {
	return r.Error == "" && r.Verified && r.Peak.RooflineGFLOPS > 0 && r.Share.Roofline > ModelLimit(r)
}

// Causes a ModelError names (ModelError.Cause).
const (
	CauseComputePeak   = "compute_peak"   // FLOP/cycle (units, vector width) or clock of the compute peak
	CauseMemoryLevel   = "memory_level"   // the level the working set was put in, or that level's peak
	CauseBandwidthPeak = "bandwidth_peak" // every bandwidth peak measured low
	CauseClock         = "clock"          // the clock at the start (when the peaks were measured) was below later readings
)

// CheckModel returns the run's model errors: every result above its
// roofline bound by more than its noise (OverBound), with the likely cause.
// It reads the peaks and the clock checks of run, so call it once the
// results, the GPU ceilings (harness.GPUEmpirical) and run.ClockEnd are in.
func CheckModel(run *result.Run) []result.ModelError {
	var out []result.ModelError
	for i := range run.Results {
		r := &run.Results[i]
		if !OverBound(r) {
			continue
		}
		e := result.ModelError{
			Backend: r.Backend, Algorithm: r.Algorithm, Device: r.Device, Op: r.Op, DType: r.DType, Shape: r.Shape,
			Threads: r.Threads, Cache: r.Cache,
			Share: r.Share.Roofline, Limit: ModelLimit(r), Spread: r.Spread, GFLOPS: r.GFLOPS, GBPS: r.GBPS,
			Bound: r.Peak.Bound, BoundGFLOPS: r.Peak.RooflineGFLOPS,
			ComputeGFLOPS: r.Peak.ComputeTheoreticalGFLOPS, EmpiricalGFLOPS: r.Peak.ComputeEmpiricalGFLOPS,
			FootprintBytes: r.Footprint,
		}
		if e.Bound != "memory" {
			e.Bound = "compute"
		}
		cpu := r.OnCPU()
		var compute peak.ComputePeak
		if cpu {
			compute, _ = run.Peaks.ComputeFor(r.DType, r.Threads)
		} else if g, ok := run.Peaks.GPU(r.Device); ok {
			compute, _ = g.ComputeFor(r.DType)
		}
		e.ComputeFormula, e.ClockGHz, e.ComputeKernel = compute.Formula, compute.ClockGHz, compute.Kernel
		if e.Bound == "memory" {
			e.Level, e.Pattern, e.BandwidthGBPS = r.Peak.BandwidthLevel, r.Peak.BandwidthPattern, r.Peak.BandwidthGBPS
			if cpu {
				if bw, ok := run.Peaks.PatternBandwidthFor(e.Level, patternOr(e.Pattern), r.Threads); ok {
					e.PeakWorkingSetBytes = bw.WorkingSet
				}
				var lv int
				if _, err := fmt.Sscanf(e.Level, "L%d", &lv); err == nil {
					e.LevelBytes = run.Machine.CacheBytes(lv)
				}
			}
		}
		e.Cause, e.Text = modelCause(run, r, &e, cpu)
		out = append(out, e)
	}
	return out
}

func patternOr(p string) string {
	if p == "" {
		return peak.PatternTriad
	}
	return p
}

// modelCause picks the likeliest cause of a model error and says it with
// its figures: a clock that rose after the peaks were measured, where that
// rise covers the excess (a 4% rise does not explain a result at 17× its
// bound: a peak given by a flag, say); for a
// compute-bound result, the FLOP/cycle or the clock of the peak's formula;
// for a memory-bound one, the level the working set was put in (or that
// level's peak) when a faster level's bandwidth covers the result, else
// bandwidth peaks measured low.
func modelCause(run *result.Run, r *result.Result, e *result.ModelError, cpu bool) (cause, text string) {
	if cpu {
		if c, ok := clockCheckFor(run, r.Threads); ok && c.StartGHz > 0 && c.MaxGHz > c.StartGHz*(1+NoiseTarget(run)) &&
			e.Share <= e.Limit*c.MaxGHz/c.StartGHz {
			return CauseClock, fmt.Sprintf("a clock drop while the peaks were measured: the clock of %s read %s GHz at the start of the run and up to %s GHz later (%s), so every start-of-run peak of that thread count is low%s",
				peak.ThreadsText(r.Threads), units.GHz(c.StartGHz), units.GHz(c.MaxGHz), units.SignedPercent(c.MaxGHz/c.StartGHz-1), driftNote(r))
		}
	}
	if e.Bound == "compute" {
		var b strings.Builder
		b.WriteString("a wrong FLOP/cycle (FMA unit count or vector width) or clock in the compute peak")
		if e.ComputeFormula != "" {
			fmt.Fprintf(&b, " (%s)", e.ComputeFormula)
		}
		kernel := "our own FMA kernel"
		if name, _, _ := strings.Cut(e.ComputeKernel, " "); name != "" && cpu {
			kernel += " (" + name + ")"
		}
		switch {
		case !cpu:
		case e.EmpiricalGFLOPS > 0 && r.GFLOPS > e.EmpiricalGFLOPS*e.Limit:
			fmt.Fprintf(&b, "; the result also beat %s at %s GFLOP/s, which then lacks units or vector width as well", kernel, units.Sig(e.EmpiricalGFLOPS))
		case e.ComputeGFLOPS > 0 && e.EmpiricalGFLOPS > e.ComputeGFLOPS*e.Limit:
			fmt.Fprintf(&b, "; %s reached %s GFLOP/s, %s of it, which no right formula allows", kernel, units.Sig(e.EmpiricalGFLOPS), units.Percent(e.EmpiricalGFLOPS/e.ComputeGFLOPS))
		}
		b.WriteString(driftNote(r))
		return CauseComputePeak, b.String()
	}
	if !cpu {
		return CauseMemoryLevel, fmt.Sprintf("the working set (%s) ran from a faster level than %s, or the %s copy bandwidth was measured low", bytesF(e.FootprintBytes), e.Level, e.Level)
	}
	if bw, ok := run.Peaks.PatternBandwidthFor(e.Level, patternOr(e.Pattern), r.Threads); ok && bw.Disturbed {
		return CauseBandwidthPeak, fmt.Sprintf("the %s %s bandwidth peak (%s GB/s) was measured disturbed: no repetition ran undisturbed, or its read disagreed with the working-set sweep at the same size, so it reads low%s",
			e.Level, patternOr(e.Pattern), units.Sig(bw.GBPS), driftNote(r))
	}
	var peakSet string
	if e.PeakWorkingSetBytes > 0 {
		peakSet = fmt.Sprintf(", measured over %s per thread", units.Bytes(e.PeakWorkingSetBytes))
	}
	size := ""
	if e.LevelBytes > 0 {
		size = fmt.Sprintf(" (%s as reported)", units.Bytes(e.LevelBytes))
	}
	// A faster level whose peak covers the result: the data ran from there,
	// or the level's own peak was taken outside it.
	for _, lv := range fasterLevels(e.Level) {
		bw, ok := run.Peaks.PatternBandwidthFor(lv, patternOr(e.Pattern), r.Threads)
		if !ok || r.GBPS > bw.GBPS*e.Limit {
			continue
		}
		return CauseMemoryLevel, fmt.Sprintf("a wrong cache level: the working set of %s was put in %s%s, but it ran at %s GB/s, within %s's %s GB/s: it lived in a faster level than %s, or the %s peak (%s GB/s%s) was measured beyond the cache's effective size%s",
			bytesF(e.FootprintBytes), e.Level, size, units.Sig(r.GBPS), lv, units.Sig(bw.GBPS), e.Level, e.Level, units.Sig(e.BandwidthGBPS), peakSet, driftNote(r))
	}
	faster := "and every faster level's"
	if len(fasterLevels(e.Level)) == 0 {
		faster = "the fastest level's"
	}
	return CauseBandwidthPeak, fmt.Sprintf("a bandwidth peak measured low (under load, or during a clock drop): the working set of %s ran at %s GB/s, above the %s %s peak (%s GB/s%s), %s",
		bytesF(e.FootprintBytes), units.Sig(r.GBPS), e.Level, patternOr(e.Pattern), units.Sig(e.BandwidthGBPS), peakSet, faster) + driftNote(r)
}

// fasterLevels lists the levels faster than level, nearest first.
func fasterLevels(level string) []string {
	all := []string{"L1", "L2", "L3", "DRAM"}
	for i, l := range all {
		if l == level {
			out := append([]string(nil), all[:i]...)
			for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
				out[a], out[b] = out[b], out[a]
			}
			return out
		}
	}
	return nil
}

// driftNote cites a clock drift measured around r's workload.
func driftNote(r *result.Result) string {
	d := r.ClockDrift
	if d == nil {
		return ""
	}
	return fmt.Sprintf("; the clock drifted %s around this result (%s GHz before, %s after, %s at the start)",
		units.SignedPercent(d.Drift), units.GHz(d.BeforeGHz), units.GHz(d.AfterGHz), units.GHz(d.StartGHz))
}

// NoiseTarget is the run's noise target, 3% in files that lack one.
func NoiseTarget(run *result.Run) float64 {
	if run.Env.NoiseTarget > 0 {
		return run.Env.NoiseTarget
	}
	return 0.03
}

func clockCheckFor(run *result.Run, threads int) (result.ClockCheck, bool) {
	for _, c := range run.ClockEnd {
		if c.Threads == threads {
			return c, true
		}
	}
	return result.ClockCheck{}, false
}

// CheckLines says what the run's checks found, most serious first: model
// errors (grouped by likely cause: a line "  likely cause: …", then its
// results "    - …"), clock drift, peaks measured disturbed, code-path
// findings; nil when all is well. Standard error gets them at the end of
// a run, and the table and Markdown footers.
func CheckLines(run *result.Run) []string {
	var out []string
	if n := len(run.ModelErrors); n > 0 {
		out = append(out, fmt.Sprintf("MODEL ERROR: %d result(s) above their roofline bound by more than their noise (the limit is 1 + max(spread, %s), plus a bandwidth peak's own spread): the peaks or the levels they are compared with are wrong, and shares of peak cannot be trusted until they are fixed:",
			n, units.Percent(ModelNoiseFloor)))
		// One line per likely cause, then the results it explains.
		var causes []string
		byCause := map[string][]result.ModelError{}
		for _, e := range run.ModelErrors {
			if _, ok := byCause[e.Text]; !ok {
				causes = append(causes, e.Text)
			}
			byCause[e.Text] = append(byCause[e.Text], e)
		}
		for _, c := range causes {
			out = append(out, fmt.Sprintf("  likely cause: %s:", c))
			for _, e := range byCause[c] {
				out = append(out, fmt.Sprintf("    - %s: %s of its bound (limit %s), the %s", e.What(), units.Percent(e.Share), units.Percent(e.Limit), e.BoundText()))
			}
		}
	}
	noise := NoiseTarget(run)
	for _, c := range run.ClockEnd {
		if !c.Drifted(noise) {
			continue
		}
		out = append(out, "CLOCK DRIFT: "+clockText(c, noise))
	}
	out = append(out, DisturbedLines(run)...)
	for _, b := range run.Backends {
		for _, f := range b.Findings {
			line := f.Text
			if f.Remedy != "" {
				line += " Remedy: " + f.Remedy
			}
			out = append(out, line)
		}
	}
	return out
}

// clockText describes one thread count's clock over the run.
func clockText(c result.ClockCheck, noise float64) string {
	s := fmt.Sprintf("%s: %s GHz at the start", peak.ThreadsText(c.Threads), units.GHz(c.StartGHz))
	if c.EndGHz > 0 {
		s += fmt.Sprintf(", %s at the end (%s)", units.GHz(c.EndGHz), units.SignedPercent(c.Drift))
	}
	if c.Checks > 0 {
		s += fmt.Sprintf(", %s–%s GHz across the run (%d workloads checked)", units.GHz(c.MinGHz), units.GHz(c.MaxGHz), c.Checks)
	}
	s += fmt.Sprintf("; beyond the %s noise target", units.Percent(noise))
	if c.Marked > 0 {
		s += fmt.Sprintf(": %d result(s) taken during it are marked (clock_drift)", c.Marked)
	}
	return s + "."
}

func bytesF(b float64) string {
	if b <= 0 {
		return "unknown"
	}
	return units.Bytes(int(b))
}

// disturbedSweepShare is the share of a cache sweep's figures taken while
// a thread waited for a CPU from which the run says so: the sweep's
// envelope absorbs a few (a -peak on the noisy 2-vCPU VMs often has one
// of 60), but a run of them reads as a cache's end.
const disturbedSweepShare = 0.1

// DisturbedLines says, per thread count, which of the peaks a run's
// shares are of were measured while another process held a CPU: a cache
// sweep with many such figures (the levels it found, those the machine
// does not report named), and bandwidth peaks with no undisturbed
// repetition. -peak prints the same beside its tables; a run has only
// these lines (CheckLines, and the HTML report's Checks) to show it.
func DisturbedLines(run *result.Run) []string {
	var out []string
	for _, t := range peakThreads(run.Peaks) {
		var parts []string
		for _, s := range run.Peaks.Sweeps {
			if s.Threads != t || len(s.Points) == 0 {
				continue
			}
			n := s.DisturbedPoints()
			if float64(n) < disturbedSweepShare*float64(len(s.Points)) {
				continue
			}
			part := fmt.Sprintf("%d of %d cache-sweep figures", n, len(s.Points))
			var found, unreported []string
			for _, c := range run.Peaks.CachesFor(t) {
				if !c.Found {
					continue
				}
				found = append(found, fmt.Sprintf("%s ~%s", c.Level, units.Bytes(c.EffectiveBytes)))
				if c.ReportedBytes == 0 {
					unreported = append(unreported, c.Level)
				}
			}
			if len(found) > 0 {
				part += " (levels found: " + strings.Join(found, ", ")
				if len(unreported) > 0 {
					part += "; the machine reports no " + strings.Join(unreported, " or ")
				}
				part += ")"
			}
			parts = append(parts, part)
		}
		var peaks []string
		for _, b := range run.Peaks.Bandwidth {
			if b.Threads == t && b.Disturbed {
				peaks = append(peaks, b.Level+" "+b.PatternName())
			}
		}
		if len(peaks) > 0 {
			parts = append(parts, fmt.Sprintf("the %s bandwidth peak(s)", strings.Join(peaks, ", ")))
		}
		if len(parts) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("DISTURBED PEAKS: %s: %s were measured while a thread waited for a CPU (another process ran): the cache levels and bandwidths that memory-bound results are shares of may be off; rerun on a quiet machine, or compare with -peak.",
			peak.ThreadsText(t), strings.Join(parts, " and ")))
	}
	return out
}

// peakThreads lists the thread counts of p's sweeps and bandwidth peaks,
// ascending.
func peakThreads(p peak.Peaks) []int {
	var ts []int
	for _, s := range p.Sweeps {
		ts = append(ts, s.Threads)
	}
	for _, b := range p.Bandwidth {
		ts = append(ts, b.Threads)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}
