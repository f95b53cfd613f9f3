package diagnose

import (
	"fmt"
	"math"
	"strings"

	"github.com/peakbench/peakbench/bench/peak"
)

// The checks every run makes on itself: no result above its roofline bound
// beyond its noise (CheckModel), a clock that stayed where the peaks were
// measured (ClockCheck, ClockDrift), and each library's code path against
// the machine (CheckCodePaths, codepath.go). CheckLines says what they found
// in a few lines, for standard error and the printers' footers.

// Finding is something a run found that a reader should act on: a code
// naming the rule that found it, one sentence, the figures behind it and,
// where one exists, the remedy.
type Finding struct {
	Code     string `json:"code"`
	Text     string `json:"text"`
	Evidence string `json:"evidence,omitempty"`
	Remedy   string `json:"remedy,omitempty"`
}

// ModelNoiseFloor is the least noise the model check allows a result: a
// result whose samples agree to the nanosecond still carries the rounding
// of its peaks, measured as the best of a few short repetitions.
const ModelNoiseFloor = 0.02

// ModelLimit is the largest share of its roofline bound r may reach:
// 1 + max(r.Spread, ModelNoiseFloor), plus, for a memory-bound result, the
// noise of the bandwidth peak it is a share of (a best-of figure measured at
// the start of the run on a shared host). Above it, the bound is wrong, not
// the result: a model error.
func ModelLimit(r *Result) float64 {
	s := r.Spread
	if math.IsNaN(s) || s < ModelNoiseFloor {
		s = ModelNoiseFloor
	}
	if r.Peak.Bound == "memory" {
		s += r.Peak.BandwidthSpread // the bound's own noise
	}
	return 1 + s
}

// OverBound reports whether r is a model error: a verified result above
// ModelLimit of its roofline bound.
func OverBound(r *Result) bool {
	return r.Error == "" && r.Verified && r.Peak.RooflineGFLOPS > 0 && r.Share.Roofline > ModelLimit(r)
}

// Causes a ModelError names (ModelError.Cause).
const (
	CauseComputePeak   = "compute_peak"   // FLOP/cycle (units, vector width) or clock of the compute peak
	CauseMemoryLevel   = "memory_level"   // the level the working set was put in, or that level's peak
	CauseBandwidthPeak = "bandwidth_peak" // every bandwidth peak measured low
	CauseClock         = "clock"          // the clock at the start (when the peaks were measured) was below later readings
)

// ModelError is a result above its roofline bound by more than its noise
// (OverBound): the peaks or the level it was compared with are wrong, and
// every share of them is suspect.
type ModelError struct {
	Backend   string `json:"backend"`
	Algorithm string `json:"algorithm,omitempty"`
	Device    string `json:"device"`
	Op        string `json:"op"`
	DType     string `json:"dtype"`
	Shape     string `json:"shape"`
	Threads   int    `json:"threads"`
	Cache     string `json:"cache"`

	Share  float64 `json:"share"`  // share.roofline
	Limit  float64 `json:"limit"`  // ModelLimit: 1 + max(spread, ModelNoiseFloor) (+ the bandwidth peak's spread)
	Spread float64 `json:"spread"` // the result's IQR / median
	GFLOPS float64 `json:"gflops"`
	GBPS   float64 `json:"gbps"`

	Bound       string  `json:"bound"`        // "compute" or "memory"
	BoundGFLOPS float64 `json:"bound_gflops"` // the roofline bound
	// The compute peak: its formula and clock.
	ComputeGFLOPS   float64 `json:"compute_gflops"`
	ComputeFormula  string  `json:"compute_formula,omitempty"`
	EmpiricalGFLOPS float64 `json:"empirical_gflops,omitempty"` // our FMA kernel (CPU), the best gemm (GPU)
	ComputeKernel   string  `json:"compute_kernel,omitempty"`   // what empirical_gflops ran
	ClockGHz        float64 `json:"clock_ghz,omitempty"`
	// The memory bound: level, pattern, bandwidth, the working set its peak
	// was measured over, and the result's own working set.
	Level               string  `json:"level,omitempty"`
	Pattern             string  `json:"pattern,omitempty"`
	BandwidthGBPS       float64 `json:"bandwidth_gbps,omitempty"`
	PeakWorkingSetBytes int     `json:"peak_working_set_bytes,omitempty"` // per thread
	FootprintBytes      float64 `json:"footprint_bytes,omitempty"`
	LevelBytes          int     `json:"level_bytes,omitempty"` // one instance of the level, as reported (CPUID/sysfs)

	Cause string `json:"cause"` // CauseComputePeak, CauseMemoryLevel, CauseBandwidthPeak or CauseClock
	Text  string `json:"text"`  // the likely cause, with its figures
}

// Series is the backend and algorithm, as Result.Series.
func (e ModelError) Series() string {
	if e.Algorithm == "" {
		return e.Backend
	}
	return e.Backend + " (" + e.Algorithm + ")"
}

// What names the result: "mkl gemm f32 1024x1024x1024, 2 threads".
func (e ModelError) What() string {
	s := fmt.Sprintf("%s %s %s %s", e.Series(), e.Op, e.DType, e.Shape)
	if e.Device != "" && e.Device != "cpu" {
		return s + " on " + e.Device
	}
	s += ", " + peak.ThreadsText(e.Threads)
	if e.Cache == "cold" {
		s += ", cold"
	}
	return s
}

// BoundText names the bound: "f32 compute peak 130 GFLOP/s" or "L3 read
// bandwidth 45 GB/s (7.5 GFLOP/s at 0.17 FLOP/B)".
func (e ModelError) BoundText() string {
	if e.Bound == "memory" {
		pat := e.Pattern
		if pat == "" {
			pat = "bw"
		}
		return fmt.Sprintf("%s %s bandwidth %s GB/s", e.Level, pat, Sig(e.BandwidthGBPS))
	}
	return fmt.Sprintf("%s compute peak %s GFLOP/s", e.DType, Sig(e.BoundGFLOPS))
}

// CheckModel returns the run's model errors: every result above its
// roofline bound by more than its noise (OverBound), with the likely cause.
// It reads the peaks and the clock checks of run, so call it once the
// results, the GPU ceilings (harness.GPUEmpirical) and run.ClockEnd are in.
func CheckModel(run *Run) []ModelError {
	var out []ModelError
	for i := range run.Results {
		r := &run.Results[i]
		if !OverBound(r) {
			continue
		}
		e := ModelError{
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
		cpu := r.Device == "" || r.Device == "cpu"
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
// its figures: a clock that rose after the peaks were measured; for a
// compute-bound result, the FLOP/cycle or the clock of the peak's formula;
// for a memory-bound one, the level the working set was put in (or that
// level's peak) when a faster level's bandwidth covers the result, else
// bandwidth peaks measured low.
func modelCause(run *Run, r *Result, e *ModelError, cpu bool) (cause, text string) {
	if cpu {
		if c, ok := clockCheckFor(run, r.Threads); ok && c.StartGHz > 0 && c.MaxGHz > c.StartGHz*(1+noiseTarget(run)) {
			return CauseClock, fmt.Sprintf("a clock drop while the peaks were measured: the clock of %s read %s GHz at the start of the run and up to %s GHz later (%s), so every start-of-run peak of that thread count is low%s",
				peak.ThreadsText(r.Threads), ghz(c.StartGHz), ghz(c.MaxGHz), signedPercent(c.MaxGHz/c.StartGHz-1), driftNote(r))
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
			fmt.Fprintf(&b, "; the result also beat %s at %s GFLOP/s, which then lacks units or vector width as well", kernel, Sig(e.EmpiricalGFLOPS))
		case e.ComputeGFLOPS > 0 && e.EmpiricalGFLOPS > e.ComputeGFLOPS*e.Limit:
			fmt.Fprintf(&b, "; %s reached %s GFLOP/s, %s of it, which no right formula allows", kernel, Sig(e.EmpiricalGFLOPS), percent(e.EmpiricalGFLOPS/e.ComputeGFLOPS))
		}
		b.WriteString(driftNote(r))
		return CauseComputePeak, b.String()
	}
	if !cpu {
		return CauseMemoryLevel, fmt.Sprintf("the working set (%s) ran from a faster level than %s, or the %s copy bandwidth was measured low", bytesF(e.FootprintBytes), e.Level, e.Level)
	}
	if bw, ok := run.Peaks.PatternBandwidthFor(e.Level, patternOr(e.Pattern), r.Threads); ok && bw.Disturbed {
		return CauseBandwidthPeak, fmt.Sprintf("the %s %s bandwidth peak (%s GB/s) was measured disturbed: no repetition ran undisturbed, or its read disagreed with the working-set sweep at the same size, so it reads low%s",
			e.Level, patternOr(e.Pattern), Sig(bw.GBPS), driftNote(r))
	}
	var peakSet string
	if e.PeakWorkingSetBytes > 0 {
		peakSet = fmt.Sprintf(", measured over %s per thread", peak.BytesText(e.PeakWorkingSetBytes))
	}
	size := ""
	if e.LevelBytes > 0 {
		size = fmt.Sprintf(" (%s as reported)", peak.BytesText(e.LevelBytes))
	}
	// A faster level whose peak covers the result: the data ran from there,
	// or the level's own peak was taken outside it.
	for _, lv := range fasterLevels(e.Level) {
		bw, ok := run.Peaks.PatternBandwidthFor(lv, patternOr(e.Pattern), r.Threads)
		if !ok || r.GBPS > bw.GBPS*e.Limit {
			continue
		}
		return CauseMemoryLevel, fmt.Sprintf("a wrong cache level: the working set of %s was put in %s%s, but it ran at %s GB/s, within %s's %s GB/s: it lived in a faster level than %s, or the %s peak (%s GB/s%s) was measured beyond the cache's effective size%s",
			bytesF(e.FootprintBytes), e.Level, size, Sig(r.GBPS), lv, Sig(bw.GBPS), e.Level, e.Level, Sig(e.BandwidthGBPS), peakSet, driftNote(r))
	}
	faster := "and every faster level's"
	if len(fasterLevels(e.Level)) == 0 {
		faster = "the fastest level's"
	}
	return CauseBandwidthPeak, fmt.Sprintf("a bandwidth peak measured low (under load, or during a clock drop): the working set of %s ran at %s GB/s, above the %s %s peak (%s GB/s%s), %s",
		bytesF(e.FootprintBytes), Sig(r.GBPS), e.Level, patternOr(e.Pattern), Sig(e.BandwidthGBPS), peakSet, faster) + driftNote(r)
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
func driftNote(r *Result) string {
	d := r.ClockDrift
	if d == nil {
		return ""
	}
	return fmt.Sprintf("; the clock drifted %s around this result (%s GHz before, %s after, %s at the start)",
		signedPercent(d.Drift), ghz(d.BeforeGHz), ghz(d.AfterGHz), ghz(d.StartGHz))
}

func noiseTarget(run *Run) float64 {
	if run.Env.NoiseTarget > 0 {
		return run.Env.NoiseTarget
	}
	return 0.03
}

// ClockDrift marks a result taken while the clock was off its start-of-run
// reading by more than the noise target: the integer clock of the result's
// thread count, read just before and just after its workload.
type ClockDrift struct {
	StartGHz  float64 `json:"start_ghz"`  // peaks.clocks: when the peaks were measured
	BeforeGHz float64 `json:"before_ghz"` // just before the workload
	AfterGHz  float64 `json:"after_ghz"`  // just after it
	Drift     float64 `json:"drift"`      // of the reading farthest from the start: GHz / start_ghz − 1
}

// ClockCheck is the clock of one thread count over a run: at the start
// (peaks.clocks), between workloads, and at the end.
type ClockCheck struct {
	Threads  int     `json:"threads"`
	Kernel   string  `json:"kernel,omitempty"`
	StartGHz float64 `json:"start_ghz"`
	// EndGHz is read at the end of the run, over a longer time than the
	// checks between workloads; 0 when the run was interrupted first.
	EndGHz float64 `json:"end_ghz,omitempty"`
	Drift  float64 `json:"drift"` // end_ghz / start_ghz − 1 (0 without an end reading)
	// MinGHz and MaxGHz span the run's readings after the start-of-run
	// one: before the first workload, after each (Checks of them) and at
	// the end. A reading low by more than the noise target is taken twice
	// and the higher kept.
	MinGHz float64 `json:"min_ghz"`
	MaxGHz float64 `json:"max_ghz"`
	Checks int     `json:"checks"` // workloads followed by a reading
	Marked int     `json:"marked"` // results marked clock_drift
}

// Drifted reports whether any reading was off the start by more than noise.
func (c ClockCheck) Drifted(noise float64) bool {
	if c.StartGHz <= 0 {
		return false
	}
	return c.MinGHz < c.StartGHz*(1-noise) || c.MaxGHz > c.StartGHz*(1+noise)
}

func clockCheckFor(run *Run, threads int) (ClockCheck, bool) {
	for _, c := range run.ClockEnd {
		if c.Threads == threads {
			return c, true
		}
	}
	return ClockCheck{}, false
}

// CheckLines says what the run's checks found, most serious first: model
// errors (grouped by likely cause: a line "  likely cause: …", then its
// results "    - …"), clock drift, code-path findings; nil when all is
// well. Standard error gets them at the end of a run, and the table and
// Markdown footers.
func CheckLines(run *Run) []string {
	var out []string
	if n := len(run.ModelErrors); n > 0 {
		out = append(out, fmt.Sprintf("MODEL ERROR: %d result(s) above their roofline bound by more than their noise (the limit is 1 + max(spread, %s), plus a bandwidth peak's own spread): the peaks or the levels they are compared with are wrong, and shares of peak cannot be trusted until they are fixed:",
			n, percent(ModelNoiseFloor)))
		// One line per likely cause, then the results it explains.
		var causes []string
		byCause := map[string][]ModelError{}
		for _, e := range run.ModelErrors {
			if _, ok := byCause[e.Text]; !ok {
				causes = append(causes, e.Text)
			}
			byCause[e.Text] = append(byCause[e.Text], e)
		}
		for _, c := range causes {
			out = append(out, fmt.Sprintf("  likely cause: %s:", c))
			for _, e := range byCause[c] {
				out = append(out, fmt.Sprintf("    - %s: %s of its bound (limit %s), the %s", e.What(), percent(e.Share), percent(e.Limit), e.BoundText()))
			}
		}
	}
	noise := noiseTarget(run)
	for _, c := range run.ClockEnd {
		if !c.Drifted(noise) {
			continue
		}
		out = append(out, "CLOCK DRIFT: "+clockText(c, noise))
	}
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
func clockText(c ClockCheck, noise float64) string {
	s := fmt.Sprintf("%s: %s GHz at the start", peak.ThreadsText(c.Threads), ghz(c.StartGHz))
	if c.EndGHz > 0 {
		s += fmt.Sprintf(", %s at the end (%s)", ghz(c.EndGHz), signedPercent(c.Drift))
	}
	if c.Checks > 0 {
		s += fmt.Sprintf(", %s–%s GHz across the run (%d workloads checked)", ghz(c.MinGHz), ghz(c.MaxGHz), c.Checks)
	}
	s += fmt.Sprintf("; beyond the %s noise target", percent(noise))
	if c.Marked > 0 {
		s += fmt.Sprintf(": %d result(s) taken during it are marked (clock_drift)", c.Marked)
	}
	return s + "."
}

func ghz(v float64) string { return fmt.Sprintf("%.2f", v) }

func signedPercent(f float64) string { return fmt.Sprintf("%+.1f%%", 100*f) }

func bytesF(b float64) string {
	if b <= 0 {
		return "unknown"
	}
	return peak.BytesText(int(b))
}
