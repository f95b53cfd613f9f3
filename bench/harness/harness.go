// Package harness runs a plan: every workload on every backend at every
// thread count, verified, measured interleaved, and expressed as shares of
// the machine's peaks.
package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/measure"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
)

// Plan is what to run.
type Plan struct {
	Workloads []workload.Workload
	Backends  []backend.Backend
	Threads   []int
	Cache     string // "hot" or "cold"
	Seed      uint64
	Measure   measure.Options
	Machine   peak.Machine
	Peaks     peak.Peaks
	// Reference samples, beside the backends of each memory-bound workload
	// on the CPU (hot cache), the bandwidth pattern of its mix over the same
	// bytes (peak.StreamTarget): results then carry their share of a plain
	// stream measured at the same moments, besides their share of the peak.
	Reference bool
	// Progress, when set, is called after each workload at each thread
	// count with the results just measured.
	Progress func(done, total int, latest []result.Result)
	// Finished, when set, is called with each workload's results as soon
	// as they are complete, before Progress (main: the journal).
	Finished func(w workload.Workload, threads int, results []result.Result)
	// Skip, when set, says which workloads a resumed run has already
	// measured: they are counted done and not run.
	Skip func(w workload.Workload, threads int) bool
	// Refused, when set, is told of each workload a backend declares but
	// refused to prepare as a shape or configuration it cannot run
	// (backend.ErrUnsupportedShape: the reference BLAS asked for two
	// threads), and of each in a dtype it does not compute (SupportsDType),
	// so that a backend without results can say why.
	Refused func(backend string, w workload.Workload, threads int, err error)
	// Clock reads the clock in GHz of `threads` busy threads over about d
	// (main: peak.MeasureClock, the kernel of Peaks.Clocks). When set, Run
	// reads it before the first workload of each thread count, after every
	// workload (ClockCheck) and at the end (ClockEnd), and marks the
	// results taken while it was off the start-of-run reading by more than
	// the noise target (result.Result.ClockDrift). Nil: no clock checks.
	Clock func(threads int, d time.Duration) float64
	// ProbeOverhead measures, for an op and dtype the plan has at one
	// size only, a tiny size on every backend (probe.go), for the
	// per-call overhead finding.
	ProbeOverhead bool
}

// How long the clock readings last: between workloads, a few milliseconds
// (on the 2-vCPU development VM, 4 ms readings of an unchanged clock agreed
// within 1.2%, 2 ms ones within 6%); at the end, as long as the
// start-of-run reading.
const (
	ClockCheck = 4 * time.Millisecond
	ClockEnd   = 30 * time.Millisecond
)

// Outcome is what Run returns: the results and the clock of each thread
// count over the run.
type Outcome struct {
	Results []result.Result
	Clocks  []result.ClockCheck
}

// maxColdBytes bounds the memory the cold-cache buffer copies may take.
const maxColdBytes = 2 << 30

// Execute runs the plan and returns its results (Run without the clocks).
// When ctx ends it returns the results completed so far with
// measure.ErrInterrupted.
func Execute(ctx context.Context, p Plan) ([]result.Result, error) {
	o, err := Run(ctx, p)
	return o.Results, err
}

// Run runs the plan: every workload at every thread count, with the clock
// checks of Plan.Clock. When ctx ends it returns what was completed so far
// (no end-of-run clock reading) with measure.ErrInterrupted.
func Run(ctx context.Context, p Plan) (o Outcome, err error) {
	total := len(p.Workloads) * len(p.Threads)
	done := 0
	prevProcs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prevProcs)
	watches := make([]*clockWatch, len(p.Threads))
	defer func() {
		for _, cw := range watches {
			if cw != nil {
				o.Clocks = append(o.Clocks, cw.check)
			}
		}
	}()
	single := singleSizes(p.Workloads, p.ProbeOverhead)
	for i, threads := range p.Threads {
		// Pure-Go backends use as many threads as the scheduler has
		// processors; C libraries are told their count in Prepare.
		runtime.GOMAXPROCS(threads)
		cw := p.newClockWatch(threads)
		watches[i] = cw
		for _, w := range p.Workloads {
			if p.Skip != nil && p.Skip(w, threads) {
				done++
				continue
			}
			var rs []result.Result
			if rs, err = p.runOne(ctx, w, threads); err != nil {
				return o, err
			}
			if err = p.probe(ctx, w, threads, single, rs); err != nil { // probe.go
				return o, err
			}
			cw.after(rs)
			o.Results = append(o.Results, rs...)
			if p.Finished != nil {
				p.Finished(w, threads, rs)
			}
			done++
			if p.Progress != nil {
				p.Progress(done, total, rs)
			}
		}
	}
	for i, threads := range p.Threads {
		if ctx.Err() != nil {
			return o, measure.ErrInterrupted
		}
		runtime.GOMAXPROCS(threads)
		watches[i].end()
	}
	return o, nil
}

// clockWatch follows the clock of one thread count through a run.
type clockWatch struct {
	p       *Plan
	threads int
	noise   float64
	last    float64 // the reading before the next workload
	seen    bool    // check.MinGHz and MaxGHz hold a reading
	check   result.ClockCheck
}

// newClockWatch takes the first reading of a thread count, before its
// first workload; nil without Plan.Clock.
func (p *Plan) newClockWatch(threads int) *clockWatch {
	if p.Clock == nil {
		return nil
	}
	cw := &clockWatch{p: p, threads: threads, noise: p.Measure.NoiseTarget}
	if cw.noise <= 0 {
		cw.noise = measure.DefaultOptions().NoiseTarget
	}
	cw.check = result.ClockCheck{Threads: threads}
	if c, ok := p.Peaks.ClockFor(threads); ok && c.GHz > 0 {
		cw.check.StartGHz, cw.check.Kernel = c.GHz, c.Kernel
	}
	cw.last = cw.read(ClockCheck)
	if cw.check.StartGHz <= 0 { // no start-of-run reading: this one stands for it
		cw.check.StartGHz = cw.last
	}
	return cw
}

// read reads the clock over d. A reading low by more than the noise target
// is taken again and the higher kept: a clock reading errs only low (a
// thread descheduled, an interrupt), never high.
func (cw *clockWatch) read(d time.Duration) float64 {
	g := cw.p.Clock(cw.threads, d)
	if cw.check.StartGHz > 0 && g < cw.check.StartGHz*(1-cw.noise) {
		g = max(g, cw.p.Clock(cw.threads, d))
	}
	cw.note(g)
	return g
}

func (cw *clockWatch) note(g float64) {
	if !cw.seen {
		cw.check.MinGHz, cw.check.MaxGHz, cw.seen = g, g, true
	}
	cw.check.MinGHz, cw.check.MaxGHz = min(cw.check.MinGHz, g), max(cw.check.MaxGHz, g)
}

// after reads the clock after a workload and marks its CPU results when
// the reading before it or this one is off the start beyond the noise
// target.
func (cw *clockWatch) after(rs []result.Result) {
	if cw == nil {
		return
	}
	before := cw.last
	now := cw.read(ClockCheck)
	cw.check.Checks++
	cw.last = now
	start := cw.check.StartGHz
	if start <= 0 {
		return
	}
	drift := before/start - 1
	if d := now/start - 1; math.Abs(d) > math.Abs(drift) {
		drift = d
	}
	if math.Abs(drift) <= cw.noise {
		return
	}
	for i := range rs {
		if r := &rs[i]; r.Error == "" && r.OnCPU() {
			r.ClockDrift = &result.ClockDrift{StartGHz: start, BeforeGHz: before, AfterGHz: now, Drift: drift}
			cw.check.Marked++
		}
	}
}

// end takes the end-of-run reading, as long as the start-of-run one.
func (cw *clockWatch) end() {
	if cw == nil {
		return
	}
	g := cw.read(ClockEnd)
	cw.check.EndGHz = g
	if cw.check.StartGHz > 0 {
		cw.check.Drift = g/cw.check.StartGHz - 1
	}
}

// runOne prepares w on every backend, verifies each kernel, measures them
// interleaved and turns the timings into results.
func (p Plan) runOne(ctx context.Context, w workload.Workload, threads int) ([]result.Result, error) {
	data := w.NewData(p.Seed)
	cfg := backend.Config{Threads: threads, Copies: p.copies(w), Estimate: p.estimate(w, threads)}
	coldPartial := p.cache() == "cold" && ColdShortfall(w, p.Peaks.LastLevelBytes(p.Machine))
	var (
		results []result.Result
		kernels []backend.Kernel
		owners  []int       // index into results for each kernel
		watches []*memWatch // each kernel's memory (memory.go)
	)
	defer func() {
		for _, k := range kernels {
			k.Close()
		}
	}()
	for _, v := range variants(p.Backends, w) { // each backend, once per algorithm it lists (algorithm.go)
		b := v.backend
		cfg.Algorithm = v.algorithm
		if ctx.Err() != nil {
			return nil, measure.ErrInterrupted
		}
		if !SupportsDType(b, w.DType) {
			// A low-precision dtype on a backend that does not declare it:
			// said, so `-dtype=bf16 -backend=x` is not a silent nothing.
			if p.Refused != nil {
				err := fmt.Errorf("%s computes no %s %s here", b.Name(), w.Op, w.DType)
				if e, ok := b.(backend.Explainer); ok && e.WhyNot(w) != "" {
					err = fmt.Errorf("%s computes no %s %s here: %s", b.Name(), w.Op, w.DType, e.WhyNot(w))
				}
				p.Refused(b.Name(), w, threads, err)
			}
			continue
		}
		r := p.newResult(b, w, threads)
		r.Algorithm = v.algorithm
		if cfg.Copies > 1 {
			r.BufferSets, r.ColdPartial = cfg.Copies, coldPartial
		}
		mw := startMemory(b)
		k, err := b.Prepare(w, data, cfg)
		if errors.Is(err, backend.ErrUnsupported) {
			if p.Refused != nil && errors.Is(err, backend.ErrUnsupportedShape) {
				p.Refused(b.Name(), w, threads, err)
			}
			continue
		}
		if err != nil {
			r.Error = oneLine(err)
			results = append(results, r)
			continue
		}
		r.Algorithm, r.Implementation = backend.AlgorithmOf(k, v.algorithm), backend.ImplementationOf(k)
		r.Peak.ComputeUnit = backend.ComputeUnitOf(k) // fill picks the ceiling of this unit
		if backend.NonTemporalOf(k) {
			r.Peak.BandwidthPattern = nonTemporalPattern(w) // and of non-temporal stores
		}
		r.PlanNS = float64(backend.PlanTimeOf(k).Nanoseconds())
		p.verify(&r, k, w, data, mw.prepared)
		if r.Error != "" {
			k.Close()
			r.Memory = mw.result()
			results = append(results, r)
			continue
		}
		kernels = append(kernels, k)
		watches = append(watches, mw)
		owners = append(owners, len(results))
		results = append(results, r)
	}
	if cfg.Copies > 1 {
		// Every buffer set once before the samples: a set's output is first
		// written, its pages faulted in, here. Left to the warm-up, which
		// stops once two batches agree in time per iteration, they were not:
		// a fault at every set is steady too, and cold ReLU and add of 64 Ki
		// f32 on asm timed 20–40× their speed until all ~860 sets had been
		// written once. A kernel that fails here fails again in the warm-up,
		// which reports it.
		for _, k := range kernels {
			k.Run(cfg.Copies)
		}
	}
	targets := make([]measure.Target, len(kernels))
	usage := make([]*usageTarget, len(kernels))
	for i, k := range kernels {
		// The Go heap's counters closest to the kernel, then the host
		// readings: the resident-memory readings around them are
		// peakbench's own work, not the backend's, and the host readings
		// allocate.
		usage[i] = &usageTarget{Target: heapTarget{k, watches[i]}}
		targets[i] = memTarget{usage[i], watches[i]}
	}
	ref, err := p.reference(w, threads, results, owners)
	if err != nil {
		return nil, err
	}
	if ref != nil {
		defer ref.Close()
		targets = append(targets, ref)
	}
	opt := p.Measure
	opt.Seed = p.Seed
	if opt.Quiet == nil {
		opt.Quiet = waitQuiet
	}
	ms, err := measure.Interleaved(ctx, targets, opt)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		// Stopped while a kernel was verified or measured (a worker
		// interrupted mid-call): the workload is not finished.
		return nil, measure.ErrInterrupted
	}
	for i, m := range ms[:len(kernels)] {
		r := &results[owners[i]]
		r.Memory = watches[i].result()
		if m.Err != nil {
			r.Error = oneLine(m.Err)
			continue
		}
		p.fill(r, w, threads, m)
		r.Host = usage[i].host()
	}
	if ref != nil && ms[len(kernels)].Err == nil && ms[len(kernels)].Stats.Median > 0 {
		gbps := ref.Bytes() / ms[len(kernels)].Stats.Median // bytes per ns = GB/s
		for _, o := range owners {
			if r := &results[o]; r.Error == "" && r.OnCPU() {
				r.Peak.ReferenceGBPS, r.Peak.Reference = gbps, ref.Describe()
				r.Share.Reference = r.GBPS / gbps
			}
		}
	}
	return results, nil
}

// reference returns the stream target to sample beside a workload's
// kernels (Plan.Reference), or nil: when off, when the cache is cold (the
// target's arrays would be hot), when no CPU kernel runs, or when the
// workload is bound by compute rather than memory at the start-of-run peaks.
func (p Plan) reference(w workload.Workload, threads int, results []result.Result, owners []int) (*peak.StreamTarget, error) {
	if !p.Reference || p.cache() != "hot" {
		return nil, nil
	}
	cpu := false
	for _, o := range owners {
		cpu = cpu || results[o].OnCPU()
	}
	if !cpu {
		return nil, nil
	}
	pattern := workloadPattern(w)
	level := p.Peaks.LevelFor(p.Machine, w.Footprint(), threads)
	bw, _, ok := p.Peaks.CeilingFor(level, pattern, threads)
	compute, _ := p.Peaks.ComputeFor(string(w.ComputeDType()), threads)
	if !ok || w.Intensity()*bw.GBPS >= compute.TheoreticalGFLOPS {
		return nil, nil
	}
	// The reference's arrays and the workload's share the caches. Where
	// both together outgrow the cache the workload runs from, each evicts
	// the other between samples and both read low, in two states from run
	// to run (quantize of 16 Mi, 80 MiB, on the Intel VM's ~150 MiB of L3:
	// 98% of the L3 triad without the reference, 63–66% with it).
	if eff, found := p.Peaks.EffectiveBytes(level, threads); found && w.Footprint()+w.Bytes() > float64(eff) {
		return nil, nil
	}
	return peak.NewStreamTarget(p.Machine, pattern, int(w.Bytes()), threads, bw.Kernel)
}

// workloadPattern is the bandwidth pattern of a workload's mix of loads and
// stores: a reduction's a read-only stream, an element-wise function's a
// copy, add's the triad, axpy's an in-place update.
func workloadPattern(w workload.Workload) string {
	return peak.PatternFor(w.Bytes()-w.WrittenBytes(), w.WrittenBytes(), w.InPlace(), w.OneInput())
}

// nonTemporalPattern is the pattern with non-temporal stores a kernel that
// stores so is compared with: the one nearest its share of stored bytes
// (peak.NonTemporalPatternFor; dequantize, ⅘ stored, widen-nt).
func nonTemporalPattern(w workload.Workload) string {
	return peak.NonTemporalPatternFor(w.Bytes()-w.WrittenBytes(), w.WrittenBytes())
}

func (p Plan) newResult(b backend.Backend, w workload.Workload, threads int) result.Result {
	r := result.Result{
		Backend: b.Name(), Device: b.Device().String(),
		Op: string(w.Op), DType: string(w.DType), Shape: w.Shape.Format(w.Op),
		Threads: threads, Cache: p.cache(),
		FLOPs: w.FLOPs(), Bytes: w.Bytes(), Footprint: w.Footprint(), Intensity: w.Intensity(),
		EffectiveBytes: w.EffectiveBytes(),
	}
	if acc := w.AccumulatorDType(); acc != "" && acc != w.DType {
		r.AccDType = string(acc)
	}
	if out := w.OutputDType(); out != w.DType {
		r.OutDType = string(out)
	}
	return r
}

// verify runs the kernel once on its fresh inputs and checks the output.
// ran is called right after that run, before the output is copied back
// and checked: what the check allocates is not the backend's memory.
func (p Plan) verify(r *result.Result, k backend.Kernel, w workload.Workload, data workload.Data, ran func()) {
	_, err := k.Run(1)
	ran()
	if err != nil {
		r.Error = oneLine(err)
		return
	}
	out, err := k.Output()
	if err != nil {
		r.Error = oneLine(err)
		return
	}
	c := w.Verify(data, out)
	r.Verified, r.MaxRelErr, r.Tolerance = c.OK, c.MaxRelErr, c.Tolerance
	r.VerifyMethod, r.VerifyDetail = c.Method, c.Detail
	if acc, ok := w.QuantError(data, out); ok {
		if !math.IsInf(acc.MaxAbsErr, 0) && !math.IsNaN(acc.MaxAbsErr) { // JSON has neither
			r.QuantMaxAbsErr = &acc.MaxAbsErr
		}
		if !math.IsInf(acc.SQNRdB, 0) && !math.IsNaN(acc.SQNRdB) {
			r.QuantSQNRdB = &acc.SQNRdB
		}
	}
}

// fill completes a result from its measurement.
func (p Plan) fill(r *result.Result, w workload.Workload, threads int, m measure.Result) {
	s := m.Stats
	r.Iters, r.SamplesNS = m.Iters, m.Samples
	r.MedianNS, r.MinNS, r.MaxNS, r.IQRNS = s.Median, s.Min, s.Max, s.IQR()
	r.Spread, r.Noisy = s.Spread(), m.Noisy
	if s.Median > 0 {
		r.GFLOPS = w.FLOPs() / s.Median // FLOP per ns = GFLOP/s
		r.GBPS = w.Bytes() / s.Median
		r.EffectiveGBPS = r.EffectiveBytes / s.Median
	}
	if !r.OnCPU() {
		p.fillGPU(r, w)
		return
	}
	level := "DRAM"
	if p.cache() == "hot" {
		level = p.Peaks.LevelFor(p.Machine, w.Footprint(), threads)
	}
	compute, note := p.computeCeiling(w, r.Peak.ComputeUnit, threads)
	// The ceiling is the bandwidth measured with the workload's own mix of
	// loads and stores (workloadPattern), or, for a kernel that stores
	// non-temporally, that of the non-temporal pattern nearest its stored
	// share (nonTemporalPattern: copy-nt or widen-nt) where that is
	// higher: such stores skip the read for ownership the others pay.
	pattern := workloadPattern(w)
	bw, bwNote, ok := p.Peaks.CeilingFor(level, pattern, threads)
	if ok {
		level = bw.Level // a larger level's where level has no peak (bwNote says so)
	}
	if nt := r.Peak.BandwidthPattern; peak.NonTemporal(nt) {
		// Peaks files older than widen-nt have copy-nt alone.
		for _, pat := range []string{nt, peak.PatternCopyNT} {
			if b, ok := p.Peaks.PatternBandwidthFor(level, pat, threads); ok && b.Pattern == pat {
				if b.GBPS > bw.GBPS {
					bw = b
				}
				break
			}
		}
	}
	r.Ceilings(compute, bw)
	r.Peak.ComputeUnitNote, r.Peak.BandwidthNote = note, bwNote
}

// computeCeiling is the compute peak a CPU result is a share of: that of
// the unit its kernel named, else the fastest unit of its dtype — for a
// low-precision dtype the note says so, since a kernel on a slower unit
// then reads low rather than passing its ceiling.
func (p Plan) computeCeiling(w workload.Workload, unit string, threads int) (peak.ComputePeak, string) {
	dt := string(w.ComputeDType())
	if c, ok := p.Peaks.ComputeForUnit(dt, unit, threads); ok && unit != "" {
		return c, ""
	}
	c, ok := p.Peaks.ComputeFor(dt, threads)
	switch {
	case !ok:
		return c, ""
	case unit != "":
		return c, fmt.Sprintf("the kernel runs on %s, whose %s peak was not measured: share of %s, the fastest %s unit", unit, dt, c.Unit, dt)
	case w.DType.GEMMOnly():
		return c, fmt.Sprintf("the kernel does not say which unit runs it: share of %s, the fastest %s unit", c.Unit, dt)
	}
	return c, ""
}

// fillGPU sets the ceilings of a result measured on a GPU: the GPU's
// theoretical peak for the dtype (bench/peak/gpu.go), and the measured
// copy bandwidth of the level the working set lives in (L2 when hot and it
// fits in half the L2, else DRAM; the theoretical DRAM figure when nothing
// was measured). The empirical compute ceiling, the best GEMM of the run,
// is known only at the end: GPUEmpirical sets it.
func (p Plan) fillGPU(r *result.Result, w workload.Workload) {
	g, ok := p.Peaks.GPU(r.Device)
	if !ok {
		r.Ceilings(peak.ComputePeak{}, peak.BandwidthPeak{})
		return
	}
	compute, _ := g.ComputeFor(string(w.DType))
	level := "DRAM"
	if p.cache() == "hot" {
		level = g.LevelFor(w.Footprint())
	}
	bw, ok := g.BandwidthFor(level)
	if !ok {
		bw, ok = g.BandwidthFor("DRAM")
	}
	if !ok {
		bw = peak.BandwidthPeak{Level: "DRAM", GBPS: g.TheoreticalGBPS, Source: "theoretical"}
	}
	r.Ceilings(compute, bw)
}

// SupportsDType reports whether b computes dt: whether it declares an op
// in dt (backend.Declarer: cuBLAS its f16, bf16 and tf32 gemm); a backend
// that declares nothing is given f32 and f64 only, which any library's
// adapter computes in its own types.
func SupportsDType(b backend.Backend, dt workload.DType) bool {
	d := backend.DeclaredBy(b)
	if d == nil {
		return !dt.GEMMOnly()
	}
	for _, dts := range d {
		if slices.Contains(dts, dt) {
			return true
		}
	}
	return false
}

// GPUEmpirical completes a run's GPU ceilings once every result is in: each
// GPU's empirical compute peak of a dtype is the fastest verified gemm of
// that dtype measured on it in the run (recorded in peaks.GPUs), and every
// GPU result's compute_empirical share is taken against it. Call it after
// Execute (main does).
func GPUEmpirical(peaks *peak.Peaks, results []result.Result) {
	for _, r := range results {
		if r.OnCPU() || r.Op != string(workload.GEMM) || !r.Verified || r.Error != "" || r.GFLOPS <= 0 {
			continue
		}
		peaks.SetEmpirical(r.Device, r.DType, r.GFLOPS, fmt.Sprintf("%s gemm %s %s", r.Backend, r.DType, r.Shape))
	}
	for i := range results {
		r := &results[i]
		g, ok := peaks.GPU(r.Device)
		if !ok || r.Error != "" {
			continue
		}
		c, _ := g.ComputeFor(r.DType)
		r.Peak.ComputeEmpiricalGFLOPS = c.EmpiricalGFLOPS
		r.Share.ComputeEmpirical = 0
		if c.EmpiricalGFLOPS > 0 {
			r.Share.ComputeEmpirical = r.GFLOPS / c.EmpiricalGFLOPS
		}
	}
}

func (p Plan) cache() string {
	if p.Cache == "" {
		return "hot"
	}
	return p.Cache
}

// copies is the number of buffer sets a kernel rotates through: one when
// hot; ColdCopies when cold.
func (p Plan) copies(w workload.Workload) int {
	if p.cache() != "cold" {
		return 1
	}
	return ColdCopies(w, p.Peaks.LastLevelBytes(p.Machine))
}

// ColdCopies is the number of buffer sets of w that a cold-cache run
// rotates through, with a last-level cache of llc bytes: enough that
// consecutive iterations never find their data there (the bytes they
// touch together ≥ 2 × LLC), within MaxColdCopies and, counted as
// allocated (coldSetBytes), maxColdBytes. A workload of a few KiB, whose
// sets would number in the hundreds of thousands, gets MaxColdCopies: its
// data then stays partly in the caches (ColdShortfall).
func ColdCopies(w workload.Workload, llc int) int {
	n := int(math.Ceil(2*float64(llc)/w.Bytes())) + 1
	n = min(n, MaxColdCopies, int(maxColdBytes/coldSetBytes(w)))
	return max(n, 1)
}

// MaxColdCopies bounds the buffer sets of a cold kernel: the most the C
// layers rotate through (native.MaxCopies; a larger count was an error of
// every oneDNN and CBLAS kernel).
const MaxColdCopies = 1 << 16

// coldSetBytes is what one buffer set of w takes in memory: its operands
// and ColdPadBytes.
func coldSetBytes(w workload.Workload) float64 {
	return math.Max(w.Footprint(), w.Bytes()) + ColdPadBytes
}

// ColdPadBytes is what a buffer set takes beyond its operands: for each
// buffer, the page hostmem.Slice allocates beyond it to place it at its
// offset (a set of a 128-element exp took 4.6 KB for 1 KiB of data, and
// its 1.5 million sets 7.3 GB). Four buffers are counted, the most a set
// has.
const ColdPadBytes = 4 * hostmem.Page

// ColdShortfall reports whether the buffer sets ColdCopies gives w
// together touch less than twice llc: too few for its iterations to find
// their data evicted, so its cold result is partly a hot one.
func ColdShortfall(w workload.Workload, llc int) bool {
	return float64(ColdCopies(w, llc))*w.Bytes() < 2*float64(llc)
}

// oneLine keeps an error to its first line, as tables and JSON show it.
func oneLine(err error) string {
	s := err.Error()
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

// Describe opens nothing: it says what a plan will run, for -v.
func (p Plan) Describe() string {
	return fmt.Sprintf("%d workloads × %d thread counts × %d backends, cache %s", len(p.Workloads), len(p.Threads), len(p.Backends), p.cache())
}
