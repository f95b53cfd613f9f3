// Package result is the model of a run: what was measured (Run, Result),
// the ceilings each result is a share of, what the checks recorded, and
// the saved JSON form (Load, Decode, WriteJSON), documented in
// docs/results-format.md. Summarize finds each workload's fastest result.
package result

import (
	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/peak"
)

// Format identifies the JSON document; it changes when a field changes meaning.
const Format = "peakbench/v1"

// Run is everything one invocation measured.
type Run struct {
	Format   string        `json:"format"`
	Machine  peak.Machine  `json:"machine"`
	Peaks    peak.Peaks    `json:"peaks"`
	Env      Env           `json:"env"`
	Backends []BackendInfo `json:"backends,omitempty"`
	Results  []Result      `json:"results"`
	// Interrupted is set when the run was stopped (Ctrl-C) before its end:
	// Results hold what was measured until then.
	Interrupted bool `json:"interrupted,omitempty"`
	// ModelErrors are the results above their roofline bound by more than
	// their noise (diagnose.CheckModel); absent when there is none.
	ModelErrors []ModelError `json:"model_errors,omitempty"`
	// ClockEnd is the clock of each thread count over the run: at the
	// start, between workloads and at the end (harness.Run); absent when
	// the clock was not checked.
	ClockEnd []ClockCheck `json:"clock_end,omitempty"`
	// Vs is the backend the tables show every other one's speedup over
	// (-vs); empty when none was asked for.
	Vs string `json:"vs,omitempty"`
	// MemColumn asks the tables for a memory column (-mem, bench/report/memory.go); the
	// figures themselves are always in Result.Memory.
	MemColumn bool `json:"-"`
}

// Env records how the run was made.
type Env struct {
	Start           string   `json:"start"` // RFC 3339
	Host            string   `json:"host"`
	GoVersion       string   `json:"go_version"`
	Args            []string `json:"args"`
	Seed            uint64   `json:"seed"`
	Cache           string   `json:"cache"` // hot or cold
	MinTimeNS       int64    `json:"min_time_ns"`
	NoiseTarget     float64  `json:"noise_target"`
	TimerOverheadNS float64  `json:"timer_overhead_ns"`
	// HugePages is the system's transparent huge page mode ("always",
	// "madvise", "never" or "unknown"): buffers of 2 MiB or more are
	// mapped on their own and advised for huge pages, which "madvise" and
	// "always" honour; "off" when PEAKBENCH_HUGE_PAGES=off dropped the
	// advice.
	HugePages string `json:"huge_pages,omitempty"`
	// Resumed lists when the run was continued from its journal (-resume,
	// RFC 3339); Start and Args are those of the run that began it.
	Resumed []string `json:"resumed,omitempty"`
}

// BackendInfo is a backend as the run found it.
type BackendInfo struct {
	Name      string `json:"name"`
	Device    string `json:"device,omitempty"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"` // why not available
	backend.Info
	// Findings say what the run found about the library as loaded: its
	// code path against the machine (diagnose.CheckCodePaths).
	Findings []Finding `json:"findings,omitempty"`
}

// Result is one workload measured on one backend with one thread count.
type Result struct {
	Backend string `json:"backend"`
	Device  string `json:"device"`
	Op      string `json:"op"`
	DType   string `json:"dtype"`
	Shape   string `json:"shape"`
	// AccDType and OutDType are a low-precision gemm's accumulation and
	// output types (workload.DType.Accumulator, OutputDType); absent where
	// they are the dtype itself.
	AccDType string `json:"acc_dtype,omitempty"`
	OutDType string `json:"out_dtype,omitempty"`
	Threads  int    `json:"threads"`
	Cache    string `json:"cache"`
	// BufferSets is, with a cold cache, the buffer sets the kernel rotated
	// through (harness.ColdCopies; a GPU kernel may add sets of its own),
	// and ColdPartial marks sets that touch less than twice the last-level
	// cache together: the result is then partly a hot one.
	BufferSets  int  `json:"buffer_sets,omitempty"`
	ColdPartial bool `json:"cold_partial,omitempty"`
	// Algorithm is how the backend computed it, when it has several ways
	// (conv: "im2col+gemm", "direct", "auto"); with Backend it names the
	// series the result belongs to (Series). Implementation is the
	// library's own name for the code that ran (oneDNN's impl_info_str,
	// the algorithm cuDNN chose), for information.
	Algorithm      string `json:"algorithm,omitempty"`
	Implementation string `json:"implementation,omitempty"`
	// PlanNS is the time the library took to plan the computation before
	// its first run (FFTW's planner), not part of any sample; 0 where a
	// backend does not plan or does not say.
	PlanNS float64 `json:"plan_ns,omitempty"`

	Iters     int       `json:"iters_per_sample"`
	SamplesNS []float64 `json:"samples_ns"` // per iteration, in the order taken
	MedianNS  float64   `json:"median_ns"`
	MinNS     float64   `json:"min_ns"`
	MaxNS     float64   `json:"max_ns"`
	IQRNS     float64   `json:"iqr_ns"`
	Spread    float64   `json:"spread"` // IQR / median
	Noisy     bool      `json:"noisy"`  // spread over the noise target

	FLOPs     float64 `json:"flops"`                     // per iteration
	Bytes     float64 `json:"bytes"`                     // minimum traffic per iteration
	Footprint float64 `json:"footprint_bytes,omitempty"` // working set: each operand once (decides the level)
	GFLOPS    float64 `json:"gflops"`
	GBPS      float64 `json:"gbps"`
	Intensity float64 `json:"intensity"` // FLOP per byte
	// EffectiveBytes and EffectiveGBPS are the sparse ops' traffic when x
	// is read from memory for every entry (workload.EffectiveBytes),
	// beside Bytes' x read once; absent for the other ops.
	EffectiveBytes float64 `json:"effective_bytes,omitempty"`
	EffectiveGBPS  float64 `json:"effective_gbps,omitempty"`

	Verified     bool    `json:"verified"`
	MaxRelErr    float64 `json:"max_rel_err"`
	Tolerance    float64 `json:"tolerance"`
	VerifyMethod string  `json:"verify_method"`
	VerifyDetail string  `json:"verify_detail,omitempty"`
	// QuantSQNRdB and QuantMaxAbsErr are a quantize, convert or qlinear
	// result's error against the f32 values it stands for
	// (workload.QuantError): the signal-to-quantization-noise ratio in dB
	// (absent where the output is exact) and the largest absolute error.
	// Absent for the other ops.
	QuantSQNRdB    *float64 `json:"quant_sqnr_db,omitempty"`
	QuantMaxAbsErr *float64 `json:"quant_max_abs_err,omitempty"`

	Peak  PeakRef `json:"peak"`
	Share Share   `json:"share"`

	// ClockDrift is set when the clock read just before or just after
	// this result's workload was off its start-of-run reading by more than
	// the noise target.
	ClockDrift *ClockDrift `json:"clock_drift,omitempty"`

	// Host is what the host's CPUs did during this result's samples;
	// absent where it could not be read (and in files older than it).
	Host *HostUse `json:"host,omitempty"`

	// Probe is the same op on the same backend at a tiny size, measured
	// when the run had this op at one size only: the per-call overhead
	// fit's second point (bench/diagnose/findings.go).
	Probe *Probe `json:"probe,omitempty"`

	// Findings say why the result is where it is against its bound
	// (diagnose.Diagnose); absent in files older than them.
	Findings []Finding `json:"findings,omitempty"`

	// Memory is the memory the backend took on the workload (memory.go; bench/report prints it);
	// absent where it could not be read, and in files from before it.
	Memory *Memory `json:"memory,omitempty"`

	// Error is set when the workload could not be measured at all.
	Error string `json:"error,omitempty"`
}

// Probe is a tiny-size measurement beside a result.
type Probe struct {
	Shape    string   `json:"shape"`
	MedianNS float64  `json:"median_ns"`
	Host     *HostUse `json:"host,omitempty"` // over the probe's samples
}

// HostUse is what the host's CPUs did while a result's samples ran
// (bench/internal/hostuse).
type HostUse struct {
	// BusyThreads is the CPU time of peakbench and its worker processes
	// over the samples' wall time: the threads the backend kept busy.
	BusyThreads float64 `json:"busy_threads,omitempty"`
	// Steal is the share of all CPUs' time the hypervisor took from this
	// guest during the samples (/proc/stat); absent on bare metal.
	Steal float64 `json:"steal,omitempty"`
	// OtherThreads is the CPUs the machine's other processes kept busy
	// meanwhile (its busy time in /proc/stat less peakbench's).
	OtherThreads float64 `json:"other_threads,omitempty"`
	// SampledNS is the wall time of the samples the figures cover.
	SampledNS float64 `json:"sampled_ns"`
}

// PeakRef names the ceilings a result is a share of.
type PeakRef struct {
	// ComputeUnit is the unit whose peak the compute shares are of
	// (peak.UnitFMA, peak.UnitAMXBF16, …) of a CPU result; absent for a
	// GPU's (its peak's formula names the cores), where no peak is known,
	// and in older files. ComputeUnitNote says why that unit when the
	// kernel did not name it.
	ComputeUnit              string  `json:"compute_unit,omitempty"`
	ComputeUnitNote          string  `json:"compute_unit_note,omitempty"`
	ComputeTheoreticalGFLOPS float64 `json:"compute_theoretical_gflops"`
	ComputeEmpiricalGFLOPS   float64 `json:"compute_empirical_gflops"`
	BandwidthGBPS            float64 `json:"bandwidth_gbps"`
	BandwidthLevel           string  `json:"bandwidth_level"`             // L1, L2, L3 or DRAM
	BandwidthPattern         string  `json:"bandwidth_pattern,omitempty"` // triad, update, copy, widen, read, copy-nt or widen-nt: the access mix that bandwidth was measured with
	BandwidthSpread          float64 `json:"bandwidth_spread,omitempty"`  // that bandwidth's own noise (peak.BandwidthPeak.Spread)
	BandwidthNote            string  `json:"bandwidth_note,omitempty"`    // why BandwidthLevel is not the footprint's: that level had no peak (peak.Peaks.CeilingFor)
	RooflineGFLOPS           float64 `json:"roofline_gflops"`             // min(compute, intensity × bandwidth)
	Bound                    string  `json:"bound"`                       // "compute" or "memory"
	// ReferenceGBPS is the bandwidth of a stream of the workload's pattern
	// over its bytes (by the kernel that set its level's peak), sampled
	// interleaved with the backends (-reference); Reference says what it
	// streamed.
	ReferenceGBPS float64 `json:"reference_gbps,omitempty"`
	Reference     string  `json:"reference,omitempty"`
}

// Share holds a result as fractions (0..1) of each ceiling.
type Share struct {
	ComputeTheoretical float64 `json:"compute_theoretical"`
	ComputeEmpirical   float64 `json:"compute_empirical"`
	Bandwidth          float64 `json:"bandwidth"`
	Roofline           float64 `json:"roofline"`
	Reference          float64 `json:"reference,omitempty"` // gbps / peak.reference_gbps
}

// Ceilings fills a result's PeakRef and Share from its GFLOP/s and GB/s.
// The roofline bound uses the theoretical compute peak and the measured
// bandwidth of the level the working set lives in. An op without
// arithmetic (FLOPs 0: the sparse format conversions) is bound by memory
// alone, and its roofline share is its bandwidth share.
func (r *Result) Ceilings(compute peak.ComputePeak, bw peak.BandwidthPeak) {
	p := PeakRef{
		ComputeUnit:              compute.Unit,
		ComputeTheoreticalGFLOPS: compute.TheoreticalGFLOPS,
		ComputeEmpiricalGFLOPS:   compute.EmpiricalGFLOPS,
		BandwidthGBPS:            bw.GBPS,
		BandwidthLevel:           bw.Level,
		BandwidthPattern:         bw.Pattern,
		BandwidthSpread:          bw.Spread,
		RooflineGFLOPS:           compute.TheoreticalGFLOPS,
		Bound:                    "compute",
	}
	if mem := r.Intensity * bw.GBPS; bw.GBPS > 0 && mem < p.RooflineGFLOPS {
		p.RooflineGFLOPS, p.Bound = mem, "memory"
	}
	r.Peak = p
	r.Share = Share{
		ComputeTheoretical: Ratio(r.GFLOPS, p.ComputeTheoreticalGFLOPS),
		ComputeEmpirical:   Ratio(r.GFLOPS, p.ComputeEmpiricalGFLOPS),
		Bandwidth:          Ratio(r.GBPS, p.BandwidthGBPS),
		Roofline:           Ratio(r.GFLOPS, p.RooflineGFLOPS),
	}
	if r.NoFLOPs() {
		p.RooflineGFLOPS, p.Bound = 0, "memory"
		r.Peak, r.Share.Roofline = p, r.Share.Bandwidth
	}
}

// NoFLOPs reports whether r does no floating-point work (the sparse format
// conversions): GB/s measures it, and its share of the roofline is its
// share of bandwidth (Ceilings).
func (r *Result) NoFLOPs() bool { return r.FLOPs == 0 && r.Bytes > 0 }

// Rebound gives r the bandwidth ceiling bw in place of its own (the same
// level and pattern, measured again), keeping its compute ceiling and its
// reference stream.
func (r *Result) Rebound(bw peak.BandwidthPeak) {
	old, ref := r.Peak, r.Share.Reference
	r.Ceilings(peak.ComputePeak{Unit: old.ComputeUnit, TheoreticalGFLOPS: old.ComputeTheoreticalGFLOPS, EmpiricalGFLOPS: old.ComputeEmpiricalGFLOPS}, bw)
	r.Peak.ComputeUnitNote, r.Peak.BandwidthNote = old.ComputeUnitNote, old.BandwidthNote
	r.Peak.ReferenceGBPS, r.Peak.Reference = old.ReferenceGBPS, old.Reference
	r.Share.Reference = ref
}

// Ratio is a / b, 0 when b is not positive (a ceiling not measured).
func Ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
