package result

import (
	"fmt"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
)

// What the run's checks (bench/diagnose) record in it: findings on results
// and backends, model errors, the clock over the run.

// Finding is something a run found that a reader should act on: a code
// naming the rule that found it, one sentence, the figures behind it and,
// where one exists, the remedy.
type Finding struct {
	Code     string `json:"code"`
	Text     string `json:"text"`
	Evidence string `json:"evidence,omitempty"`
	Remedy   string `json:"remedy,omitempty"`
}

// ModelError is a result above its roofline bound by more than its noise
// (diagnose.OverBound): the peaks or the level it was compared with are wrong, and
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
	Limit  float64 `json:"limit"`  // diagnose.ModelLimit: 1 + max(spread, ModelNoiseFloor) (+ the bandwidth peak's spread)
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

	Cause string `json:"cause"` // diagnose.CauseComputePeak, CauseMemoryLevel, CauseBandwidthPeak or CauseClock
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
	if !platform.NamesHost(e.Device) {
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
		return fmt.Sprintf("%s %s bandwidth %s GB/s", e.Level, pat, units.Sig(e.BandwidthGBPS))
	}
	return fmt.Sprintf("%s compute peak %s GFLOP/s", e.DType, units.Sig(e.BoundGFLOPS))
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
