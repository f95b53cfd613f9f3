package diagnose

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
)

// Findings per result: why each is where it is against its bound. Every
// rule is a function of the run's own records (the results, the peaks, the
// backends as loaded), so a recorded run can be diagnosed again (report
// does it for files older than findings) and each rule is tested on
// recorded results (findings_test.go).

// Codes of the findings Diagnose attaches to results. CodeCodePath
// (codepath.go) is one of them too.
const (
	CodeBoundCompute  = "bound_compute"     // its ceiling is the compute peak
	CodeBoundMemory   = "bound_memory"      // its ceiling is a level's bandwidth
	CodeBoundOverhead = "bound_overhead"    // a fixed cost per call is most of its time
	CodeOverhead      = "per_call_overhead" // a fixed cost per call is a large part of its time
	CodeThreadsIdle   = "threads_idle"      // fewer threads busy than asked
	CodeThreadsExtra  = "threads_extra"     // more threads busy than asked
	CodeThreadsSlower = "threads_slower"    // slower than the same backend on fewer threads
	CodeClock         = "clock_drift"       // the clock moved during its samples
	CodeLevel         = "level_mismatch"    // it streamed at a slower level's speed than its working set's
	CodeSteal         = "host_steal"        // the hypervisor took CPU time during its samples
	CodeInstructions  = "instruction_bound" // a memory-bound op slower than even DRAM: its instructions limit it
	CodeGPUThrottle   = "gpu_throttle"      // the GPU throttled while its backend ran
	CodeBehindBest    = "behind_best"       // another backend ran the same workload much faster
	CodeUnreached     = "bound_unreached"   // no backend of the run came near the bound
	CodeIdleWait      = "idle_wait"         // peakbench's short spin setting may change a small call's time
)

// Thresholds of the rules.
const (
	// overheadShare: a fixed cost above this share of a result's time is
	// a finding; overheadBound: above this, it is what bounds the result.
	overheadShare = 0.25
	overheadBound = 0.5
	// threadsSlack: busy threads below (1−slack)·asked or above
	// (1+slack)·asked are a finding.
	threadsSlack = 0.25
	// minHostSample is the least sampled wall time the thread and steal
	// rules trust: /proc/stat counts steal in 10 ms ticks.
	minHostSample = 50e6 // ns
	// threadsSlower: a result on more threads this many times as long as
	// the same backend's on fewer, its fastest sample behind their median,
	// lost more to the split than it gained.
	threadsSlower = 1.1
	// otherBusy: other processes keeping this many CPUs busy explain
	// threads that were not.
	otherBusy = 0.3
	// stealNotable is the steal share worth a finding.
	stealNotable = 0.03
	// levelShare: the level rule looks at results below this share of
	// their bound.
	levelShare = 0.5
	// levelMatch: a result streams "at a level's speed" within this
	// fraction of that level's bandwidth.
	levelMatch = 0.25
	// instructionsShare: a memory-bound result below this share of the
	// slowest level's (DRAM's) bandwidth is limited by its instructions.
	instructionsShare = 0.5
	// behindRatio: another backend this many times faster on the same
	// workload makes the gap the library's own.
	behindRatio = 1.5
	// codePathShare: the code-path finding goes on compute-bound results
	// below this share of the compute peak.
	codePathShare = 0.9
	// overheadFitSizes is how many of the smallest sizes the per-call fit
	// uses: the fixed cost shows at the small end, and large sizes stream
	// from slower levels at another cost per element.
	overheadFitSizes = 3
)

// Diagnose sets the Findings of every verified result of run from the
// rules, replacing what they held; call it after CheckModel and
// CheckCodePaths. Results that errored or failed verification get none:
// their error or verification says what happened.
func Diagnose(run *result.Run) {
	d := newDiagnosis(run)
	for i := range run.Results {
		r := &run.Results[i]
		r.Findings = nil
		if !r.Correct() {
			continue
		}
		r.Findings = d.findings(r)
	}
}

// HasFindings reports whether any result of run carries findings (files
// older than them carry none).
func HasFindings(run *result.Run) bool {
	for i := range run.Results {
		if len(run.Results[i].Findings) > 0 {
			return true
		}
	}
	return false
}

// diagnosis holds what the rules need beyond one result.
type diagnosis struct {
	run      *result.Run
	fits     map[fitKey]overheadFit
	backends map[string]*result.BackendInfo
	// streams is, per group of one op on one backend (fitKey), the GB/s
	// of its sizes not dominated by a fixed cost, and the memory levels
	// they were bound by: whether its code can stream faster than one
	// result did, and whether its speed follows the level at all.
	streams map[fitKey]*groupStreams
	// bests holds each workload's fastest correct result (Summarize).
	bests map[result.Workload]result.Best
	// byThreads holds the correct CPU results of each backend and
	// workload at every thread count measured.
	byThreads map[threadsKey][]*result.Result
}

// threadsKey is a workload on one backend, but for its thread count.
type threadsKey struct{ backend, algorithm, device, op, dtype, shape, cache string }

func threadsKeyOf(r *result.Result) threadsKey {
	return threadsKey{r.Backend, r.Algorithm, r.Device, r.Op, r.DType, r.Shape, r.Cache}
}

type groupStreams struct {
	minGBPS, maxGBPS float64
	levels           map[string]bool
}

func newDiagnosis(run *result.Run) *diagnosis {
	d := &diagnosis{run: run, fits: fitOverheads(run.Results), backends: map[string]*result.BackendInfo{}, streams: map[fitKey]*groupStreams{},
		bests: result.BestByWorkload(run), byThreads: map[threadsKey][]*result.Result{}}
	for i := range run.Results {
		if r := &run.Results[i]; r.Correct() && r.OnCPU() && r.MedianNS > 0 {
			k := threadsKeyOf(r)
			d.byThreads[k] = append(d.byThreads[k], r)
		}
	}
	for i := range run.Backends {
		d.backends[run.Backends[i].Name] = &run.Backends[i]
	}
	for i := range run.Results {
		r := &run.Results[i]
		if !r.Correct() || r.Peak.Bound != "memory" || d.fixedShare(r) >= overheadShare {
			continue
		}
		k := fitKeyOf(r)
		g := d.streams[k]
		if g == nil {
			g = &groupStreams{levels: map[string]bool{}}
			d.streams[k] = g
		}
		if g.minGBPS == 0 || r.GBPS < g.minGBPS {
			g.minGBPS = r.GBPS
		}
		g.maxGBPS = max(g.maxGBPS, r.GBPS)
		g.levels[r.Peak.BandwidthLevel] = true
	}
	return d
}

// fixedShare is the share of r's time its group's fit puts in the fixed
// per-call cost (0 without a fit).
func (d *diagnosis) fixedShare(r *result.Result) float64 {
	fit, ok := d.fits[fitKeyOf(r)]
	if !ok {
		return 0
	}
	return min(fit.FixedNS/fit.timeOf(r), 1)
}

// flat reports whether r's group streams at about r's speed at every size
// not dominated by a fixed cost, across at least two memory levels: its
// speed does not follow the level its data is in.
func (d *diagnosis) flat(r *result.Result) bool {
	g := d.streams[fitKeyOf(r)]
	return g != nil && len(g.levels) >= 2 && g.maxGBPS <= r.GBPS*(1+levelMatch) && g.minGBPS >= r.GBPS/(1+levelMatch)
}

// findings applies every rule to r, the bound first.
func (d *diagnosis) findings(r *result.Result) []result.Finding {
	fit, hasFit := d.fits[fitKeyOf(r)]
	fixedShare := d.fixedShare(r)
	out := []result.Finding{d.bound(r, fit, fixedShare)}
	if hasFit && fixedShare >= overheadShare {
		out = append(out, d.overhead(r, fit, fixedShare))
	}
	for _, rule := range []func(*result.Result, float64) (result.Finding, bool){
		d.codePath, d.threads, d.slowerThreads, d.clock, d.gpuThrottle, d.level, d.instructions, d.steal, d.idleWait,
	} {
		if f, ok := rule(r, fixedShare); ok {
			out = append(out, f)
		}
	}
	if f, ok := d.relative(r, len(out) > 1); ok {
		out = append(out, f)
	}
	return out
}

// relative compares a result below half its bound with the fastest of its
// workload: far behind it, the gap is the library's own; the fastest
// itself, with no other cause found, says no backend of the run reached
// the bound.
func (d *diagnosis) relative(r *result.Result, explained bool) (result.Finding, bool) {
	if r.Share.Roofline >= levelShare {
		return result.Finding{}, false
	}
	w := result.WorkloadOf(r)
	best := d.bests[w].Best
	if best == nil {
		return result.Finding{}, false
	}
	if ratio := r.MedianNS / best.MedianNS; ratio >= behindRatio {
		return result.Finding{
			Code: CodeBehindBest,
			Text: fmt.Sprintf("%s ran this workload %.2f× faster (%s of the bound against %s): the gap is %s's code, not the machine.",
				best.Label(), ratio, sharePercent(best.Share.Roofline), sharePercent(r.Share.Roofline), r.Backend),
			Evidence: fmt.Sprintf("%s in %s, %s in %s (medians)", r.Label(), units.Duration(r.MedianNS), best.Label(), units.Duration(best.MedianNS)),
			Remedy:   fmt.Sprintf("for this workload, use %s.", best.Label()),
		}, true
	}
	if explained || best != r {
		return result.Finding{}, false
	}
	n := d.bests[w].Correct
	f := result.Finding{
		Code:     CodeUnreached,
		Text:     fmt.Sprintf("The fastest of the %d backends that ran this workload, it reached %s of the bound, and no rule found a cause: the bound may be out of reach for this shape, or every library here leaves the same cycles idle.", n, units.Percent(r.Share.Roofline)),
		Evidence: fmt.Sprintf("%s: %s GFLOP/s, %s GB/s against %s", r.Label(), units.Sig(r.GFLOPS), units.Sig(r.GBPS), result.BoundName(r)),
	}
	if n == 1 {
		f.Text = fmt.Sprintf("It reached %s of the bound, and no rule found a cause; no other backend of the run computed this workload to compare with.", units.Percent(r.Share.Roofline))
	}
	return f, true
}

// bound says which ceiling limits r: a fixed per-call cost when it is
// most of the time, else the roofline's compute or memory bound.
func (d *diagnosis) bound(r *result.Result, fit overheadFit, fixedShare float64) result.Finding {
	reached := units.Percent(r.Share.Roofline)
	if fixedShare >= overheadBound {
		return result.Finding{
			Code: CodeBoundOverhead,
			Text: fmt.Sprintf("Bound by per-call overhead: a fixed %s%s of each call is %s of its %s.", units.Duration(fit.FixedNS), fit.of(), units.Percent(fixedShare), units.Duration(fit.timeOf(r))),
			Evidence: fmt.Sprintf("%s; %s of its roofline bound (%s)",
				fit.describe(r), reached, result.BoundName(r)),
		}
	}
	if r.Peak.Bound == "memory" {
		return result.Finding{
			Code: CodeBoundMemory,
			Text: fmt.Sprintf("Memory-bound: at %s FLOP/byte its ceiling is the %s %s bandwidth, %s GB/s; it reached %s.",
				units.Sig(r.Intensity), r.Peak.BandwidthLevel, patternOr(r.Peak.BandwidthPattern), units.Sig(r.Peak.BandwidthGBPS), reached),
			Evidence: fmt.Sprintf("%s GB/s of %s GB/s (%s, %s, working set %s)",
				units.Sig(r.GBPS), units.Sig(r.Peak.BandwidthGBPS), r.Peak.BandwidthLevel, peak.ThreadsText(r.Threads), bytesF(r.Footprint)),
		}
	}
	return result.Finding{
		Code: CodeBoundCompute,
		Text: fmt.Sprintf("Compute-bound: its ceiling is the %s compute peak, %s GFLOP/s; it reached %s.",
			computeLabel(r), units.Sig(r.Peak.ComputeTheoreticalGFLOPS), reached),
		Evidence: d.computeEvidence(r),
	}
}

// computeLabel names the peak r is a share of: its dtype, and the unit
// where that is not the FMAs ("bf16 amx-bf16").
func computeLabel(r *result.Result) string {
	if u := r.Peak.ComputeUnit; u != "" && u != peak.UnitFMA {
		return r.DType + " " + u
	}
	return r.DType
}

// computeEvidence names the compute peak's formula where the run has it:
// that of the unit r is a share of.
func (d *diagnosis) computeEvidence(r *result.Result) string {
	s := fmt.Sprintf("%s GFLOP/s of %s GFLOP/s", units.Sig(r.GFLOPS), units.Sig(r.Peak.ComputeTheoreticalGFLOPS))
	if c, ok := d.run.Peaks.ComputeForUnit(r.DType, r.Peak.ComputeUnit, r.Threads); ok && c.Formula != "" && r.OnCPU() {
		s += " (" + c.Formula + ")"
	}
	return s
}

// overhead is the per-call overhead finding: the fixed cost, its share of
// r, the size below which it dominates, and the backend with the least
// fixed cost on the same workloads.
func (d *diagnosis) overhead(r *result.Result, fit overheadFit, fixedShare float64) result.Finding {
	f := result.Finding{
		Code: CodeOverhead,
		Text: fmt.Sprintf("%s costs a fixed %s per %s call, %s of this result's %s; below %s the fixed cost is more than half of a call.",
			r.Backend, units.Duration(fit.FixedNS)+fit.of(), r.Op, units.Percent(fixedShare), units.Duration(fit.timeOf(r)), unitsText(r.Op, fit.crossover())),
		Evidence: fit.describe(r),
	}
	f.Remedy = "batch the work into fewer, larger calls."
	if best := d.bests[result.WorkloadOf(r)].Best; best != nil && best.Series() != r.Series() && best.MedianNS*behindRatio <= r.MedianNS {
		if bf, ok := d.fits[fitKeyOf(best)]; ok && bf.FixedNS < fit.FixedNS/2 {
			fixed := "no fixed cost the fit can see"
			if bf.FixedNS >= 1 {
				fixed = "a fixed cost of " + units.Duration(bf.FixedNS) + bf.of()
			}
			f.Remedy = fmt.Sprintf("batch the work into fewer, larger calls; at this size %s takes %s a call, with %s.", best.Label(), units.Duration(best.MedianNS), fixed)
		}
	}
	return f
}

// codePath carries the backend's code-path finding (CheckCodePaths) onto
// its compute-bound results that fall short of the compute peak, but for
// those faster than the path allows (BeyondPath), which it did not hold
// back.
func (d *diagnosis) codePath(r *result.Result, _ float64) (result.Finding, bool) {
	b := d.backends[r.Backend]
	if b == nil || r.Peak.Bound != "compute" || r.Share.Roofline >= codePathShare || !codePathCovers(r.Backend, r.Op) ||
		BeyondPath(d.run.Machine, *b, r) {
		return result.Finding{}, false
	}
	for _, f := range b.Findings {
		if f.Code == CodeCodePath {
			return f, true
		}
	}
	return result.Finding{}, false
}

// codePathCovers says whether the code path a backend reports ran op:
// PyTorch's is ATen's own kernels', while its matrix products and
// convolutions run in its BLAS and oneDNN.
func codePathCovers(backend, op string) bool {
	if backend == "torch" || backend == "torch-cuda" {
		k := workload.Op(op).Kind()
		return k != workload.KindMatMul && k != workload.KindMatVec && k != workload.KindConv
	}
	return true
}

// threads compares the threads busy during the samples with those asked.
func (d *diagnosis) threads(r *result.Result, fixedShare float64) (result.Finding, bool) {
	h := r.Host
	if h == nil || !r.OnCPU() || h.BusyThreads <= 0 || h.SampledNS < minHostSample {
		return result.Finding{}, false
	}
	asked := float64(r.Threads)
	evidence := fmt.Sprintf("CPU time of peakbench and its workers over %s of samples: %.2f threads busy; %d asked", units.Duration(h.SampledNS), h.BusyThreads, r.Threads)
	if h.Steal > 0 {
		evidence += fmt.Sprintf("; host steal %s", units.Percent(h.Steal))
	}
	if h.OtherThreads > 0 {
		evidence += fmt.Sprintf("; other processes kept %.2f CPUs busy", h.OtherThreads)
	}
	switch {
	case r.Threads >= 2 && h.BusyThreads < asked*(1-threadsSlack):
		f := result.Finding{
			Code:     CodeThreadsIdle,
			Text:     fmt.Sprintf("%.1f of the %d threads asked were busy during the samples.", h.BusyThreads, r.Threads),
			Evidence: evidence,
		}
		switch {
		case h.Steal >= 0.1:
			f.Text += fmt.Sprintf(" The host took %s of the CPUs' time meanwhile: the threads were descheduled, not idle by the library's choice.", units.Percent(h.Steal))
			f.Remedy = "re-run on a quiet host."
		case h.OtherThreads >= otherBusy:
			f.Text += fmt.Sprintf(" Other processes of the machine kept %.1f CPUs busy meanwhile: the threads waited for a CPU, not idle by the library's choice.", h.OtherThreads)
			f.Remedy = "re-run on a quiet machine."
		case fixedShare >= overheadShare || r.Footprint > 0 && r.Footprint < 256<<10:
			f.Text += " Libraries run small problems on fewer threads by design, where splitting costs more than it saves."
		default:
			f.Text += " The library did not use the thread count it was given, or its threads waited on each other."
			f.Remedy = "check the library's own thread variable (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS) and its threading layer."
		}
		return f, true
	case h.BusyThreads > asked*(1+threadsSlack)+0.25:
		return result.Finding{
			Code:     CodeThreadsExtra,
			Text:     fmt.Sprintf("%.1f threads were busy during the samples with %d asked: the library ignored the thread count, or its idle threads spin.", h.BusyThreads, r.Threads),
			Evidence: evidence,
			Remedy:   "set the library's own thread count (for a framework, the BLAS it loaded too) and, for OpenMP runtimes that spin, OMP_WAIT_POLICY=passive.",
		}, true
	}
	return result.Finding{}, false
}

// slowerThreads compares a CPU result on 2 or more threads with its
// backend's on the most threads below it: where it took threadsSlower
// times as long or more, and even its fastest sample was behind the
// other's median, splitting this size cost more than it saved. A busy host
// is left to the threads rule, which names it.
func (d *diagnosis) slowerThreads(r *result.Result, _ float64) (result.Finding, bool) {
	if r.Threads < 2 || !r.OnCPU() || r.MedianNS <= 0 {
		return result.Finding{}, false
	}
	if h := r.Host; h != nil && (h.Steal >= 0.1 || h.OtherThreads >= otherBusy) {
		return result.Finding{}, false
	}
	var fewer *result.Result
	for _, o := range d.byThreads[threadsKeyOf(r)] {
		if o.Threads < r.Threads && (fewer == nil || o.Threads > fewer.Threads) {
			fewer = o
		}
	}
	if fewer == nil || r.MedianNS < fewer.MedianNS*threadsSlower || r.MinNS <= fewer.MedianNS {
		return result.Finding{}, false
	}
	f := result.Finding{
		Code: CodeThreadsSlower,
		Text: fmt.Sprintf("On %s it took %.2f× as long as on %s: splitting a call of this size costs more than it saves on this machine.",
			peak.ThreadsText(r.Threads), r.MedianNS/fewer.MedianNS, peak.ThreadsText(fewer.Threads)),
		Evidence: fmt.Sprintf("medians %s on %s (fastest sample %s), %s on %s", units.Duration(r.MedianNS), peak.ThreadsText(r.Threads),
			units.Duration(r.MinNS), units.Duration(fewer.MedianNS), peak.ThreadsText(fewer.Threads)),
		Remedy: fmt.Sprintf("call this size on %s (the library's own thread setting).", peak.ThreadsText(fewer.Threads)),
	}
	if r.Backend == "asm" || r.Backend == "go" {
		f.Remedy = "run `go run ./bench -tune`: it measures from which size a second thread pays on this machine for the vector kernels, GEMM and FFT (docs/tuning.md)."
	}
	return f, true
}

// clock reports a clock that moved around r's samples (harness: the
// readings before and after its workload).
func (d *diagnosis) clock(r *result.Result, _ float64) (result.Finding, bool) {
	c := r.ClockDrift
	if c == nil {
		return result.Finding{}, false
	}
	return result.Finding{
		Code: CodeClock,
		Text: fmt.Sprintf("The clock moved %s from the start of the run around this result: its share of the peaks, measured at the start, is off by about as much.", units.SignedPercent(c.Drift)),
		Evidence: fmt.Sprintf("%s GHz at the start, %s GHz before and %s GHz after its workload",
			units.GHz(c.StartGHz), units.GHz(c.BeforeGHz), units.GHz(c.AfterGHz)),
		Remedy: "re-run on a quiet, cool machine (on a VM the host sets the clock); compare results as ratios within one run.",
	}, true
}

// gpuThrottle carries NVML's throttle reasons, read while a GPU backend
// ran (its nvml_* details), onto that backend's GPU results: their shares
// are of a peak at the full clock.
func (d *diagnosis) gpuThrottle(r *result.Result, _ float64) (result.Finding, bool) {
	b := d.backends[r.Backend]
	if b == nil || r.OnCPU() {
		return result.Finding{}, false
	}
	reasons := b.Details["nvml_throttle_reasons"]
	if reasons == "" || reasons == "none" {
		return result.Finding{}, false
	}
	f := result.Finding{
		Code:     CodeGPUThrottle,
		Text:     fmt.Sprintf("The GPU throttled (%s) while %s ran: its shares are of a peak at the full clock.", reasons, r.Backend),
		Evidence: "NVML clocks-event reasons " + reasons,
		Remedy:   "check the GPU's power and thermal limits and other users (nvidia-smi -q -d PERFORMANCE); a power-capped or shared GPU cannot reach its peak.",
	}
	lo, hi := b.Details["nvml_min_sm_clock_mhz"], b.Details["nvml_max_sm_clock_mhz"]
	if lo != "" && hi != "" && lo != hi {
		f.Text = fmt.Sprintf("The GPU throttled (%s) while %s ran, its SM clock as low as %s MHz of %s: its shares are of a peak at the full clock.", reasons, r.Backend, lo, hi)
		f.Evidence += fmt.Sprintf("; SM clock %s–%s MHz during the run", lo, hi)
	}
	return f, true
}

// levelOrder lists memory levels from the fastest.
var levelOrder = []string{"L1", "L2", "L3", "DRAM"}

// level reports a memory-bound result no faster than the level below the
// one its working set fits: its data was not where its size says. Where
// the level fades at that working set (fade), it says so instead, for any
// result below half its bound.
func (d *diagnosis) level(r *result.Result, fixedShare float64) (result.Finding, bool) {
	if r.Peak.Bound != "memory" || !r.OnCPU() || r.Cache == "cold" || r.Share.Roofline >= levelShare || fixedShare >= overheadShare {
		return result.Finding{}, false
	}
	// Its code must be able to stream faster, at another size: a kernel
	// as slow at every size is limited by its instructions (instructions).
	if g := d.streams[fitKeyOf(r)]; g == nil || g.maxGBPS < r.GBPS*(1+2*levelMatch) {
		return result.Finding{}, false
	}
	fits := r.Peak.BandwidthLevel
	if bound := d.levelBound(r.Peak.BandwidthLevel, r.Threads); bound > 0 {
		fits += fmt.Sprintf(" (up to %s on %s)", bytesF(bound), peak.ThreadsText(r.Threads))
	}
	// Where the level fades the machine explains the shortfall, whether or
	// not the result came down to the next level's speed.
	if f, ok := d.fade(r, fits); ok {
		return f, true
	}
	i := slices.Index(levelOrder, r.Peak.BandwidthLevel)
	if i < 0 || i+1 >= len(levelOrder) {
		return result.Finding{}, false
	}
	// The slowest level it was no faster than is where its data came from.
	var (
		slower string
		bw     peak.BandwidthPeak
	)
	for _, l := range levelOrder[i+1:] {
		b, ok := d.run.Peaks.PatternBandwidthFor(l, patternOr(r.Peak.BandwidthPattern), r.Threads)
		if !ok || b.GBPS <= 0 {
			continue
		}
		if r.GBPS > b.GBPS*(1+levelMatch) {
			break
		}
		slower, bw = l, b
	}
	// At that level's speed, not merely below it: a kernel slower than
	// every level is limited by its instructions (instructions).
	if slower == "" || r.GBPS < bw.GBPS*(1-levelMatch) {
		return result.Finding{}, false
	}
	return result.Finding{
		Code: CodeLevel,
		Text: fmt.Sprintf("Its %s working set fits %s, yet it streamed at %s GB/s, no faster than %s (%s GB/s): its data was not in %s while it ran.",
			bytesF(r.Footprint), fits, units.Sig(r.GBPS), slower, units.Sig(bw.GBPS), r.Peak.BandwidthLevel),
		Evidence: fmt.Sprintf("%s GB/s; %s %s %s GB/s, %s %s %s GB/s on %s",
			units.Sig(r.GBPS), r.Peak.BandwidthLevel, patternOr(r.Peak.BandwidthPattern), units.Sig(r.Peak.BandwidthGBPS), slower, patternOr(r.Peak.BandwidthPattern), units.Sig(bw.GBPS), peak.ThreadsText(r.Threads)),
		Remedy: "the library may copy or pack its operands (a larger working set than the operands), or write with non-temporal stores that bypass the cache.",
	}, true
}

// fade is level's finding where the machine explains it: the working set
// lies where the level sweep itself had slowed most of the way to the next
// level (a last-level cache that fades to DRAM over octaves: on the Zen 5
// Turin VM one thread read 75–90 GB/s up to 16 MiB, 34 at 64 MiB and DRAM's
// 24 only past 180 MiB, and every working set up to 256 MiB was compared
// with the L3). Such a working set keeps its level's peak as its ceiling,
// an upper bound the sweep does not approach there.
func (d *diagnosis) fade(r *result.Result, fits string) (result.Finding, bool) {
	swept, ok := d.run.Peaks.SweepGBPS(r.Threads, r.Footprint)
	if !ok {
		return result.Finding{}, false
	}
	read, ok := d.run.Peaks.PatternBandwidthFor(r.Peak.BandwidthLevel, peak.PatternRead, r.Threads)
	if !ok || swept > read.GBPS*(1-levelMatch) {
		return result.Finding{}, false
	}
	return result.Finding{
		Code: CodeLevel,
		Text: fmt.Sprintf("Its %s working set fits %s, but lies where that level fades: the level sweep itself read %s GB/s at this size, %s of the %s read peak (%s GB/s), and it streamed %s GB/s.",
			bytesF(r.Footprint), fits, units.Sig(swept), units.Percent(swept/read.GBPS), r.Peak.BandwidthLevel, units.Sig(read.GBPS), units.Sig(r.GBPS)),
		Evidence: fmt.Sprintf("%s GB/s; the sweep's read over %s on %s %s GB/s; %s read %s GB/s",
			units.Sig(r.GBPS), bytesF(r.Footprint), peak.ThreadsText(r.Threads), units.Sig(swept), r.Peak.BandwidthLevel, units.Sig(read.GBPS)),
		Remedy: "none from the library: its share of the level's peak understates it here; compare it with the sweep's figure at its size (peaks.sweeps in the JSON).",
	}, true
}

// instructions reports a memory-bound result slower than the slowest
// memory level: no level of memory limits it, its instructions do.
func (d *diagnosis) instructions(r *result.Result, fixedShare float64) (result.Finding, bool) {
	if r.Peak.Bound != "memory" || !r.OnCPU() || fixedShare >= overheadShare {
		return result.Finding{}, false
	}
	dram, ok := d.run.Peaks.PatternBandwidthFor("DRAM", patternOr(r.Peak.BandwidthPattern), r.Threads)
	if !ok || dram.GBPS <= 0 {
		return result.Finding{}, false
	}
	why := "memory does not limit it, its instructions do (scalar code, a transcendental function's evaluation, a dependency chain, or threads not used)."
	var text string
	switch {
	case r.GBPS < dram.GBPS*instructionsShare:
		text = fmt.Sprintf("It streamed %s GB/s, %s of even DRAM's %s GB/s: %s", units.Sig(r.GBPS), units.Percent(r.GBPS/dram.GBPS), units.Sig(dram.GBPS), why)
	case r.Share.Roofline < levelShare && d.flat(r):
		text = fmt.Sprintf("It streamed %s GB/s, %s of its %s bound, and no faster at sizes in other levels: %s", units.Sig(r.GBPS), units.Percent(r.Share.Roofline), r.Peak.BandwidthLevel, why)
	default:
		return result.Finding{}, false
	}
	f := result.Finding{
		Code: CodeInstructions,
		Text: text,
		Evidence: fmt.Sprintf("%s GB/s (%s GFLOP/s); DRAM %s %s GB/s on %s; its bound, %s %s, is %s GB/s",
			units.Sig(r.GBPS), units.Sig(r.GFLOPS), patternOr(r.Peak.BandwidthPattern), units.Sig(dram.GBPS), peak.ThreadsText(r.Threads), r.Peak.BandwidthLevel, patternOr(r.Peak.BandwidthPattern), units.Sig(r.Peak.BandwidthGBPS)),
	}
	if r.Host != nil && r.Host.BusyThreads > 0 && r.Host.BusyThreads < float64(r.Threads)*(1-threadsSlack) {
		f.Evidence += fmt.Sprintf("; %.2f of %s busy", r.Host.BusyThreads, peak.ThreadsText(r.Threads))
	}
	return f, true
}

// levelBound is the working set below which the run's sweep put level.
func (d *diagnosis) levelBound(level string, threads int) float64 {
	for _, c := range d.run.Peaks.Caches {
		if c.Level == level && c.Threads == threads && c.Found {
			return float64(c.BoundBytes)
		}
	}
	return 0
}

// steal reports the hypervisor's steal during r's samples where it
// explains a spread or a low share.
func (d *diagnosis) steal(r *result.Result, _ float64) (result.Finding, bool) {
	h := r.Host
	if h == nil || h.Steal < stealNotable || h.SampledNS < minHostSample {
		return result.Finding{}, false
	}
	if !r.Noisy && r.Share.Roofline >= levelShare {
		return result.Finding{}, false
	}
	text := fmt.Sprintf("The hypervisor took %s of the CPUs' time during the samples", units.Percent(h.Steal))
	if r.Noisy {
		text += fmt.Sprintf(", which explains their %s spread.", units.Percent(r.Spread))
	} else {
		text += ": the threads were off their CPUs for that share of the time."
	}
	return result.Finding{
		Code:     CodeSteal,
		Text:     text,
		Evidence: fmt.Sprintf("steal %s of all CPUs' ticks (/proc/stat) over %s of samples; spread %s", units.Percent(h.Steal), units.Duration(h.SampledNS), units.Percent(r.Spread)),
		Remedy:   "re-run when the host is quiet; compare backends as ratios within one run, where the steal falls on all of them.",
	}, true
}

// idleWait flags the small, threaded calls of a library peakbench runs
// with a short idle spin (KMP_BLOCKTIME=1, OPENBLAS_THREAD_TIMEOUT=22):
// their threads stay awake between the back-to-back calls of a sample,
// but a library's default spin may give a small call another time.
func (d *diagnosis) idleWait(r *result.Result, fixedShare float64) (result.Finding, bool) {
	b := d.backends[r.Backend]
	if b == nil || r.Threads < 2 || fixedShare < overheadShare || !r.OnCPU() {
		return result.Finding{}, false
	}
	setting := b.Details["idle_wait"]
	if setting == "" || !idleWaitReaches(r.Backend, r.Op) {
		return result.Finding{}, false
	}
	return result.Finding{
		Code:     CodeIdleWait,
		Text:     fmt.Sprintf("peakbench ran %s with a short idle spin (%s), so that its idle threads do not take the cores of the next backend sampled; for a call this small the library's own setting may give another time.", r.Backend, setting),
		Evidence: fmt.Sprintf("fixed cost %s of %s; %s", units.Percent(fixedShare), units.Duration(r.MedianNS), peak.ThreadsText(r.Threads)),
		Remedy:   "-idle-wait=library runs every library with its own idle-wait defaults (KMP_BLOCKTIME 200 ms, OPENBLAS_THREAD_TIMEOUT 2^28 cycles).",
	}, true
}

// idleWaitReaches says whether KMP_BLOCKTIME (Intel OpenMP, MKL's) and
// OPENBLAS_THREAD_TIMEOUT reach the threads that computed op on backend:
// every MKL and OpenBLAS call; a framework's BLAS calls only (its own
// kernels run on libgomp, which peakbench leaves alone, as it does BLIS's
// and oneDNN's).
func idleWaitReaches(backend, op string) bool {
	switch backend {
	case "mkl", "openblas":
		return true
	case "torch", "numpy", "torch-cuda":
		return slices.Contains([]string{"gemm", "gemv", "axpy", "dot"}, op)
	}
	return false
}

// sharePercent writes a share with three significant digits, so that a
// share under 0.1% does not read as 0.0%.
func sharePercent(f float64) string {
	if f > 0 && f < 0.001 {
		return units.Sig(100*f) + "%"
	}
	return units.Percent(f)
}

// Per-call overhead: time ≈ fixed + per-unit × units over the sizes of one
// op on one backend, where units is the product of the shape's dimensions
// (elements for vector ops and softmax, m·n for gemv, m·n·k for gemm): the
// op's FLOPs and bytes are proportional to it.

// fitKey groups the results one fit covers.
type fitKey struct {
	backend, algorithm, device, op, dtype, cache, variant string
	threads                                               int
}

func fitKeyOf(r *result.Result) fitKey {
	_, variant, _ := strings.Cut(r.Shape, ":")
	return fitKey{r.Backend, r.Algorithm, r.Device, r.Op, r.DType, r.Cache, variant, r.Threads}
}

// overheadFit is one fit.
type overheadFit struct {
	FixedNS, PerUnitNS float64
	Points             []fitPoint // the sizes fitted, smallest first
	// CPU says the times are CPU time (wall × busy threads), not wall.
	CPU bool
}

type fitPoint struct{ Units, NS float64 }

// timeOf is r's time in the fit's terms: CPU or wall.
func (f overheadFit) timeOf(r *result.Result) float64 {
	if c := cpuNS(r.MedianNS, r.Host); f.CPU && c > 0 {
		return c
	}
	return r.MedianNS
}

// of names the fit's time in sentences: " of CPU time", or nothing for wall
// time.
func (f overheadFit) of() string {
	if f.CPU {
		return " of CPU time"
	}
	return ""
}

// crossover is the size in units where the fixed cost equals the rest.
func (f overheadFit) crossover() float64 {
	if f.PerUnitNS <= 0 {
		return math.Inf(1)
	}
	return f.FixedNS / f.PerUnitNS
}

func (f overheadFit) describe(r *result.Result) string {
	sizes := make([]string, len(f.Points))
	for i, p := range f.Points {
		sizes[i] = fmt.Sprintf("%s in %s", unitsText(r.Op, p.Units), units.Duration(p.NS))
	}
	what := "time"
	if f.CPU {
		what = "CPU time (wall × busy threads)"
	}
	return fmt.Sprintf("fit over %d sizes (%s): %s ≈ %s + %s per %s",
		len(f.Points), strings.Join(sizes, ", "), what, units.Duration(f.FixedNS), perUnitText(f.PerUnitNS), unitName(r.Op))
}

// shapeUnits is the product of a shape's dimensions, 0 for the layer ops
// (whose shapes are geometries, not sizes of one problem).
func shapeUnits(op, shape string) float64 {
	if workload.Op(op).Layer() {
		return 0
	}
	dims, _, _ := strings.Cut(shape, ":")
	u := 1.0
	for _, s := range strings.Split(dims, "x") {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 {
			return 0
		}
		u *= v
	}
	return u
}

// fitOverheads fits every group of verified results with at least two
// sizes, a result's tiny-size probe (Result.Probe) counting as one.
func fitOverheads(results []result.Result) map[fitKey]overheadFit {
	type point struct{ wall, cpu float64 } // cpu 0: not known
	points := map[fitKey]map[float64]point{}
	for i := range results {
		r := &results[i]
		if !r.Correct() {
			continue
		}
		u := shapeUnits(r.Op, r.Shape)
		if u <= 0 {
			continue
		}
		k := fitKeyOf(r)
		if points[k] == nil {
			points[k] = map[float64]point{}
		}
		points[k][u] = point{r.MedianNS, cpuNS(r.MedianNS, r.Host)}
		if pr := r.Probe; pr != nil && pr.MedianNS > 0 {
			if pu := shapeUnits(r.Op, pr.Shape); pu > 0 && pu < u {
				if _, measured := points[k][pu]; !measured {
					points[k][pu] = point{pr.MedianNS, cpuNS(pr.MedianNS, pr.Host)}
				}
			}
		}
	}
	fits := map[fitKey]overheadFit{}
	for k, byUnits := range points {
		// CPU time where every size has it: a library that runs small
		// sizes on one thread and large ones on two costs the same CPU time
		// per element at both, while its wall time per element halves (a
		// fit over wall time would call the difference a fixed cost).
		cpu := true
		for _, p := range byUnits {
			cpu = cpu && p.cpu > 0
		}
		var pts []fitPoint
		for u, p := range byUnits {
			ns := p.wall
			if cpu {
				ns = p.cpu
			}
			pts = append(pts, fitPoint{u, ns})
		}
		if f, ok := fitOverhead(pts); ok {
			f.CPU = cpu
			fits[k] = f
		}
	}
	return fits
}

// cpuNS is a call's CPU time: its wall time × the threads busy during its
// samples; 0 when those were not measured, or when other processes or the
// hypervisor took CPUs meanwhile: the library's threads then waited for a
// CPU, and their CPU time no longer counts the threads it used.
func cpuNS(wall float64, h *result.HostUse) float64 {
	if h == nil || h.BusyThreads <= 0 || h.OtherThreads >= otherBusy || h.Steal >= stealNotable {
		return 0
	}
	return wall * h.BusyThreads
}

// fitOverhead fits time = fixed + perUnit × units to the smallest
// overheadFitSizes points by least squares on relative error (the times
// span orders of magnitude), with both terms at least 0. It needs two
// sizes, and a time that grows with size.
func fitOverhead(pts []fitPoint) (overheadFit, bool) {
	slices.SortFunc(pts, func(a, b fitPoint) int { return cmp.Compare(a.Units, b.Units) })
	if len(pts) > overheadFitSizes {
		pts = pts[:overheadFitSizes]
	}
	if len(pts) < 2 {
		return overheadFit{}, false
	}
	var s, sx, sxx, st, sxt float64
	for _, p := range pts {
		w := 1 / (p.NS * p.NS)
		s += w
		sx += w * p.Units
		sxx += w * p.Units * p.Units
		st += w * p.NS
		sxt += w * p.Units * p.NS
	}
	det := s*sxx - sx*sx
	if det <= 0 {
		return overheadFit{}, false
	}
	a := (st*sxx - sx*sxt) / det
	b := (s*sxt - sx*st) / det
	if a < 0 { // no fixed cost: a line through the origin
		a, b = 0, sxt/sxx
	}
	if b <= 0 {
		return overheadFit{}, false
	}
	return overheadFit{FixedNS: a, PerUnitNS: b, Points: slices.Clone(pts)}, true
}

// unitName is what one unit of an op's size is.
func unitName(op string) string {
	switch workload.Op(op).Kind() {
	case workload.KindMatMul:
		return "m·n·k"
	case workload.KindMatVec:
		return "matrix element"
	}
	return "element"
}

// unitsText writes a size in units as its op names sizes: a cube side for
// gemm, elements otherwise.
func unitsText(op string, u float64) string {
	if math.IsInf(u, 0) || u <= 0 {
		return "any size"
	}
	if workload.Op(op).Kind() == workload.KindMatMul {
		n := math.Cbrt(u)
		return fmt.Sprintf("%.0f×%.0f×%.0f", n, n, n)
	}
	return elementsText(u) + " elements"
}

// elementsText writes a count with binary suffixes, as -size takes them.
func elementsText(v float64) string {
	switch {
	case v >= 1<<20:
		return fmt.Sprintf("%.3g Mi", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.3g Ki", v/(1<<10))
	}
	return fmt.Sprintf("%.0f", v)
}

func perUnitText(ns float64) string {
	switch {
	case ns >= 1:
		return fmt.Sprintf("%.3g ns", ns)
	case ns >= 1e-3:
		return fmt.Sprintf("%.3g ps", ns*1e3)
	}
	return fmt.Sprintf("%.3g fs", ns*1e6)
}

// WhyLabel is the short reason a table shows beside a result: its most
// specific finding, else its bound.
func WhyLabel(r *result.Result) string {
	var bound string
	for _, f := range r.Findings {
		switch f.Code {
		case CodeBoundCompute:
			bound = "compute"
		case CodeBoundMemory:
			bound = "memory"
		case CodeBoundOverhead:
			bound = "overhead"
		}
	}
	var specific []string
	for _, f := range r.Findings {
		if l, ok := whyLabels[f.Code]; ok && l != bound {
			specific = append(specific, l)
		}
	}
	if len(specific) > 0 {
		return strings.Join(specific, ",")
	}
	return bound
}

var whyLabels = map[string]string{
	CodeOverhead:      "overhead",
	CodeCodePath:      "code-path",
	CodeThreadsIdle:   "threads-idle",
	CodeThreadsExtra:  "threads-extra",
	CodeThreadsSlower: "threads-slower",
	CodeClock:         "clock",
	CodeGPUThrottle:   "throttle",
	CodeLevel:         "level",
	CodeInstructions:  "instructions",
	CodeBehindBest:    "behind",
	CodeUnreached:     "unreached",
	CodeSteal:         "steal",
	CodeIdleWait:      "idle-wait",
}
