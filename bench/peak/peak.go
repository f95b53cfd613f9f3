// Package peak models the machine a benchmark runs on: what the CPU is (read
// from CPUID, sysfs and /proc, never measured), its theoretical compute peak
// (cores × GHz × FLOP/cycle/core from a micro-architecture table and a measured
// clock), and empirical peaks from its own kernels: an FMA-throughput loop and a
// STREAM-triad-like loop per memory level.
//
// Every benchmark result is reported as a share of these peaks, so the peaks
// must be honest: the theoretical figure counts only what the hardware can
// issue per cycle, and the empirical figures are what a hand-tuned loop reaches
// on the same cores, at the same time, under the same noise.
package peak

import (
	"fmt"
	"strconv"
	"strings"
)

// Machine describes the CPU: what was read (identity, features, reported
// caches) and, once MeasureUnits ran, what its FP units do.
type Machine struct {
	Vendor    string   `json:"vendor"`   // "AuthenticAMD", "GenuineIntel", ..., or runtime.GOARCH when unknown
	Model     string   `json:"model"`    // brand string, e.g. "AMD EPYC 7B13 64-Core Processor"
	Family    int      `json:"family"`   // CPUID display family
	ModelID   int      `json:"model_id"` // CPUID display model
	Microarch string   `json:"microarch"`
	Arch      string   `json:"arch"` // runtime.GOARCH
	OS        string   `json:"os"`
	CPUs      int      `json:"cpus"`  // logical CPUs usable (runtime.NumCPU)
	Cores     int      `json:"cores"` // physical cores among CPUs (SMT siblings share FMA pipes); = CPUs when unknown
	Features  []string `json:"features"`
	SIMDBits  int      `json:"simd_bits"` // vector width the FP units execute at full rate
	FMAUnits  int      `json:"fma_units"` // FMA pipes per core at that width
	// UnitsSource says where SIMDBits and FMAUnits come from: "measured"
	// (Units) or "table" (Table, when no probe could run). UnitsNote is one
	// line on where the two disagree, or why nothing was measured.
	UnitsSource string       `json:"units_source"`
	UnitsNote   string       `json:"units_note,omitempty"`
	Table       UnitClaim    `json:"table"`           // what the micro-architecture table claims
	Units       []WidthUnits `json:"units,omitempty"` // what each vector width did (MeasureUnits)
	// ComputeUnits are the low-precision units (AMX, VNNI, AVX512-BF16/FP16,
	// the AVX2 int8 group): what each did on one core, or why it was not
	// measured (MeasureUnits; lowp.go).
	ComputeUnits []ComputeUnitProbe `json:"compute_units,omitempty"`
	Caches       []Cache            `json:"caches"` // data and unified caches, by level
	NominalGHz   float64            `json:"nominal_ghz"`
}

// Cache is one data or unified cache level.
type Cache struct {
	Level    int `json:"level"`     // 1, 2, 3
	Bytes    int `json:"bytes"`     // size of one instance
	SharedBy int `json:"shared_by"` // logical CPUs sharing one instance, 0 if unknown
}

// defaultLLC is assumed when no cache is known: large enough that a working set
// sized "4 × LLC" really leaves the caches of today's server parts (one CCD or
// one socket slice).
const defaultLLC = 32 << 20

// CacheBytes returns the size of one instance of the cache at level, 0 if unknown.
func (m Machine) CacheBytes(level int) int {
	for _, c := range m.Caches {
		if c.Level == level {
			return c.Bytes
		}
	}
	return 0
}

// LastLevelCacheBytes returns the size of one instance of the highest cache level
// known, or 32 MiB when none is.
func (m Machine) LastLevelCacheBytes() int {
	best, size := 0, 0
	for _, c := range m.Caches {
		if c.Level > best && c.Bytes > 0 {
			best, size = c.Level, c.Bytes
		}
	}
	if size == 0 {
		return defaultLLC
	}
	return size
}

// elemBits is the width of one element of dtype, 0 for a dtype the model does not cover.
func elemBits(dtype string) int {
	switch dtype {
	case "f32":
		return 32
	case "f64":
		return 64
	}
	return 0
}

// lanes is the number of dtype elements in one full-rate vector (at least 1).
func (m Machine) lanes(dtype string) int {
	b := elemBits(dtype)
	if b == 0 {
		return 0
	}
	return max(m.SIMDBits/b, 1)
}

// FLOPsPerCycle returns the peak FLOP/cycle of one core for dtype "f32" or
// "f64": FMAUnits × (SIMDBits/elementBits) × 2 (an FMA is two FLOPs). It is 0
// for any other dtype: this model covers only what the FMA pipes compute.
func (m Machine) FLOPsPerCycle(dtype string) float64 {
	return float64(m.FMAUnits * m.lanes(dtype) * 2)
}

// flopsFormula spells out FLOPsPerCycle, e.g. "2 FMA × 8 f32 lanes × 2".
func (m Machine) flopsFormula(dtype string) string {
	return fmt.Sprintf("%d FMA × %d %s lanes × 2", m.FMAUnits, m.lanes(dtype), dtype)
}

// cores returns how many physical cores `threads` threads occupy when the OS
// spreads them one per core first: min(threads, Cores).
func (m Machine) cores(threads int) int {
	c := m.Cores
	if c <= 0 {
		c = m.CPUs
	}
	if c <= 0 || threads < c {
		return threads
	}
	return c
}

// LevelFor names the memory level a working set of `bytes` (per run, all
// threads together) lives in when hot by the reported sizes: the smallest
// cache level whose capacity available to `threads` threads holds it, else
// "DRAM". Results are classified by the measured levels (Peaks.LevelFor);
// this is its fallback for peaks without a sweep.
//
// A cache of one core (L1, L2; shared at most with the core's SMT siblings,
// which in a run are its own threads, counted by instancesUsed, or idle)
// counts whole: a stream that fits it stays in it (measured on Zen 4: a sum
// over 32 KiB ran at the L1 read peak, over 48 KiB at the L2 one), and
// triadLevels measures L1 and L2 within it. One shared between cores (L3:
// other processes, on a VM other tenants) counts half. Either counts once per
// instance the threads use (see instancesUsed).
func (m Machine) LevelFor(bytes float64, threads int) string {
	for _, c := range m.sortedCaches() {
		if c.Bytes > 0 && bytes <= m.usable(c)*float64(m.instancesUsed(c, threads)) {
			return levelName(c.Level)
		}
	}
	return "DRAM"
}

// usable is the part of one instance of c that LevelFor counts: all of a
// core's own cache, half of one shared between cores.
func (m Machine) usable(c Cache) float64 {
	smt := 1 // CPUs per core
	if m.Cores > 0 && m.CPUs > m.Cores {
		smt = m.CPUs / m.Cores
	}
	if m.sharedBy(c) > smt {
		return 0.5 * float64(c.Bytes)
	}
	return float64(c.Bytes)
}

// instancesUsed returns how many instances of cache c `threads` threads use
// when the OS spreads them over cores and cache domains first, as Linux's
// scheduler does: min(threads, instances in the machine = CPUs / SharedBy).
// Unknown sharing counts L1 and L2 as private and higher levels as shared by
// all CPUs.
func (m Machine) instancesUsed(c Cache, threads int) int {
	threads = max(threads, 1)
	if m.CPUs <= 0 {
		return threads
	}
	return min(threads, max(m.CPUs/m.sharedBy(c), 1))
}

// sharedBy is how many CPUs share one instance of c; unknown sharing counts
// L1 and L2 as private and higher levels as shared by all CPUs.
func (m Machine) sharedBy(c Cache) int {
	switch {
	case c.SharedBy > 0:
		return c.SharedBy
	case c.Level >= 3:
		return max(m.CPUs, 2)
	}
	return 1
}

// sortedCaches returns the caches by ascending level (detection already
// produces that order; a hand-built Machine may not).
func (m Machine) sortedCaches() []Cache {
	cs := append([]Cache(nil), m.Caches...)
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Level < cs[j-1].Level; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	return cs
}

func levelName(level int) string { return fmt.Sprintf("L%d", level) }

// ThreadsText is "1 thread" or "n threads".
func ThreadsText(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}

// ThreadCountsText is "1 thread", "2 threads" or "1,2 threads".
func ThreadCountsText(threads []int) string {
	if len(threads) == 1 {
		return ThreadsText(threads[0])
	}
	s := make([]string, len(threads))
	for i, n := range threads {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",") + " threads"
}

// Options says what Measure measures.
type Options struct {
	Threads    []int   // thread counts to measure for (each ≥ 1); empty means {1, CPUs}
	PeakGFLOPS float64 // -peak-gflops: when > 0, replaces the theoretical compute peak of every dtype and thread count
	PeakGBPS   float64 // -peak-bw: when > 0, replaces the DRAM bandwidth (not measured then)
	Quick      bool    // shorter measurements and smaller DRAM arrays (tests, -suite=quick)
}

// Peaks are the compute and bandwidth peaks per thread count.
type Peaks struct {
	Compute   []ComputePeak   `json:"compute"`
	Bandwidth []BandwidthPeak `json:"bandwidth"`
	// Caches are the cache levels each thread count's working-set sweep
	// found (levels.go), with the sizes reported beside them: what
	// LevelFor classifies hot working sets by. Sweeps are those curves.
	Caches []CacheLevel `json:"caches,omitempty"`
	Sweeps []Sweep      `json:"sweeps,omitempty"`
	GPUs   []GPUPeaks   `json:"gpus,omitempty"` // the GPUs of GPU backends opened (gpu.go)
	// Clocks is the integer clock of each thread count at the start of the
	// run (MeasureClock's dependent-add chain): what a later MeasureClock
	// is compared with to find a clock that drifted during the run.
	Clocks []ClockReading `json:"clocks,omitempty"`
}

// ClockReading is the clock of `Threads` busy threads, measured with Kernel.
type ClockReading struct {
	Threads int     `json:"threads"`
	GHz     float64 `json:"ghz"`
	Kernel  string  `json:"kernel"`
}

// ClockFor returns the start-of-run clock reading of `threads` threads.
func (p Peaks) ClockFor(threads int) (ClockReading, bool) {
	for _, c := range p.Clocks {
		if c.Threads == threads {
			return c, true
		}
	}
	return ClockReading{}, false
}

// ComputePeak is the FLOP/s peak of one dtype on one compute unit on
// `Threads` threads (integer types: operations per second, two per
// multiply-add, like FLOPs).
type ComputePeak struct {
	DType             string  `json:"dtype"`          // "f32", "f64", "bf16", "i8", …
	Unit              string  `json:"unit,omitempty"` // computeunit.go; "" in older files: UnitFMA
	Threads           int     `json:"threads"`
	TheoreticalGFLOPS float64 `json:"theoretical_gflops"`
	EmpiricalGFLOPS   float64 `json:"empirical_gflops"`
	ClockGHz          float64 `json:"clock_ghz"`       // measured clock (mean over the threads)
	FLOPsPerCycle     float64 `json:"flops_per_cycle"` // per core
	Formula           string  `json:"formula"`         // how TheoreticalGFLOPS was obtained
	Kernel            string  `json:"kernel"`          // which empirical kernel ran
}

// BandwidthPeak is the triad bandwidth of one memory level on `Threads` threads.
type BandwidthPeak struct {
	Level      string  `json:"level"`             // "L1", "L2", "L3", "DRAM"
	Pattern    string  `json:"pattern,omitempty"` // "triad", "copy", "read" (PatternFor); empty in files older than patterns: triad
	Threads    int     `json:"threads"`
	GBPS       float64 `json:"gbps"`
	WorkingSet int     `json:"working_set_bytes"` // per thread (a, b and c together); 0 when given
	Source     string  `json:"source"`
	// Kernel is the name of the stream kernel that set GBPS, the fastest
	// of the pattern's (streamKernelsFor); empty where the figure was
	// given and in older files.
	Kernel string `json:"kernel,omitempty"`
	// Disturbed is set when no repetition ran with every thread on a CPU
	// throughout (another process or a VM's steal took one): the figure
	// may read low.
	Disturbed bool `json:"disturbed,omitempty"`
	// Spread is the figure's own noise: (median − best) / best of its
	// repetitions' times. A result may pass the figure by as much without
	// the model being wrong (the roofline check allows it).
	Spread float64 `json:"spread,omitempty"`
}

// ComputeFor returns the compute peak of dtype on exactly `threads`
// threads: its fastest unit's (f32 and f64 have one, the FMAs), the
// conservative ceiling for a result that does not say which unit ran it.
func (p Peaks) ComputeFor(dtype string, threads int) (ComputePeak, bool) {
	var best ComputePeak
	found := false
	for _, c := range p.Compute {
		if c.DType == dtype && c.Threads == threads && (!found || c.TheoreticalGFLOPS > best.TheoreticalGFLOPS) {
			best, found = c, true
		}
	}
	return best, found
}

// BandwidthFor returns the triad bandwidth of level ("L1", "L2", "L3",
// "DRAM") on exactly `threads` threads.
func (p Peaks) BandwidthFor(level string, threads int) (BandwidthPeak, bool) {
	return p.PatternBandwidthFor(level, PatternTriad, threads)
}

// PatternBandwidthFor returns the bandwidth of level for one access pattern
// (PatternFor) on exactly `threads` threads; the triad's when that pattern
// was not measured (peaks read from older files), the copy's for a widen
// (measured in L1 and L2 only). For a mix of two
// patterns (MixPattern) it is the faster of the two measured, its Source
// saying so: a stream between two patterns is bound by neither, and on
// the Zen 5 VM the one-thread L3 read and triad each came first in some
// run (read 109–127 GB/s, triad 110–115), the triad at L1 (532 against
// 525): no fixed one of the two, nor an interpolation between them, bounds
// it in every run.
func (p Peaks) PatternBandwidthFor(level, pattern string, threads int) (BandwidthPeak, bool) {
	if a, b, mix := MixParts(pattern); mix {
		var best BandwidthPeak
		found := false
		for _, part := range []string{a, b} {
			bw, ok := p.PatternBandwidthFor(level, part, threads)
			if ok && bw.PatternName() == part && (!found || bw.GBPS > best.GBPS) {
				best, found = bw, true
			}
		}
		if !found { // neither measured: an older file's triad
			return p.PatternBandwidthFor(level, PatternTriad, threads)
		}
		best.Source = fmt.Sprintf("the faster of %s and %s (a stored share between theirs): %s", a, b, best.Source)
		return best, true
	}
	var triad BandwidthPeak
	found := false
	for _, b := range p.Bandwidth {
		if b.Level != level || b.Threads != threads {
			continue
		}
		if b.PatternName() == pattern {
			return b, true
		}
		if b.PatternName() == PatternTriad {
			triad, found = b, true
		}
	}
	if pattern == PatternWiden { // past L2, and in files older than the widen: the copy
		return p.PatternBandwidthFor(level, PatternCopy, threads)
	}
	return triad, found
}

// PatternName is the peak's pattern, "triad" for peaks from files older
// than patterns.
func (b BandwidthPeak) PatternName() string {
	if b.Pattern == "" {
		return PatternTriad
	}
	return b.Pattern
}
