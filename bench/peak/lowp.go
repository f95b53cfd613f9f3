package peak

import (
	"fmt"
	"math"
)

// lowpUnit is a low-precision compute unit the model measures: the
// instruction its kernel issues, what one instruction computes, and what
// the CPU must have for it to run.
type lowpUnit struct {
	name        string   // computeunit.go
	dtypes      []string // the gemm dtypes it computes
	instruction string
	opsPerInstr float64 // two per multiply-add, like FLOPs
	// clockBits is the vector width whose FMA clock the peak takes (a core
	// may slow down for wide vectors, and a zmm dot product loads the core
	// as a zmm FMA does); 0 takes the integer clock (AMX: a unit of its own).
	clockBits int
	// minRate and maxRate bound the instructions per cycle a core can
	// issue: a rate below minRate is no hardware unit's (an instruction the
	// VM traps and emulates), one above maxRate no real one either.
	minRate, maxRate float64
	amx              bool // needs Linux's permission for tile data
	needs            []requirement
}

// Issue rates a vector unit may have (one to four per cycle, halves on
// cores that split wide vectors), and an AMX unit (one TDP* per 16 cycles
// on Sapphire Rapids; a slower or faster generation within a factor of 4).
const (
	vectorMinRate, vectorMaxRate = 0.25, 4
	amxMinRate, amxMaxRate       = 1.0 / 64, 1.0 / 4
)

var (
	int8DTypes = []string{"i8", "u8s8"}
	amxNeeds   = []requirement{needAMXTile, osAMX}
)

// lowpUnits are the units measured, each dtype's fastest kind first.
var lowpUnits = []lowpUnit{
	{UnitAMXBF16, []string{"bf16"}, "TDPBF16PS (16×16×32 bf16 products)", 16 * 16 * 32 * 2, 0, amxMinRate, amxMaxRate, true,
		append([]requirement{needAMXBF16}, amxNeeds...)},
	{UnitAVX512BF16, []string{"bf16"}, "VDPBF16PS zmm (32 bf16 products)", 32 * 2, 512, vectorMinRate, vectorMaxRate, false,
		[]requirement{needAVX512BF16, needAVX512F, osZMM}},
	{UnitAMXFP16, []string{"f16"}, "TDPFP16PS (16×16×32 f16 products)", 16 * 16 * 32 * 2, 0, amxMinRate, amxMaxRate, true,
		append([]requirement{needAMXFP16}, amxNeeds...)},
	{UnitAVX512FP16, []string{"f16"}, "VFMADD213PH zmm (32 f16 FMAs)", 32 * 2, 512, vectorMinRate, vectorMaxRate, false,
		[]requirement{needAVX512FP16, needAVX512F, osZMM}},
	{UnitAMXInt8, int8DTypes, "TDPBUSD (16×16×64 u8×s8 products)", 16 * 16 * 64 * 2, 0, amxMinRate, amxMaxRate, true,
		append([]requirement{needAMXInt8}, amxNeeds...)},
	{UnitAVX512VNNI, int8DTypes, "VPDPBUSD zmm (64 u8×s8 products)", 64 * 2, 512, vectorMinRate, vectorMaxRate, false,
		[]requirement{needAVX512VNNI, needAVX512F, osZMM}},
	{UnitAVXVNNI, int8DTypes, "VPDPBUSD ymm, VEX (32 u8×s8 products)", 32 * 2, 256, vectorMinRate, vectorMaxRate, false,
		[]requirement{needAVXVNNI, osYMM}},
	{UnitInt8FMA, int8DTypes, "VPMADDUBSW + VPMADDWD + VPADDD ymm (32 u8×s8 products per group)", 32 * 2, 256, vectorMinRate, vectorMaxRate, false,
		[]requirement{needAVX2, osYMM}},
}

func lowpUnitNamed(name string) (lowpUnit, bool) {
	for _, u := range lowpUnits {
		if u.name == name {
			return u, true
		}
	}
	return lowpUnit{}, false
}

// ComputeUnitProbe is what one low-precision unit did on one core
// (MeasureUnits), or why it was not measured: the unit's peaks
// (Peaks.Compute, Unit set) take its issue rate.
type ComputeUnitProbe struct {
	Unit              string   `json:"unit"`
	DTypes            []string `json:"dtypes"`
	Instruction       string   `json:"instruction"`
	OpsPerInstruction float64  `json:"ops_per_instruction"` // two per multiply-add
	// Missing says why the unit was not measured: the CPUID bit or OS
	// state it lacks, the permission Linux refused, a rate no hardware has.
	Missing  string  `json:"missing,omitempty"`
	ClockGHz float64 `json:"clock_ghz,omitempty"` // the clock of its peak, on one thread
	GOPS     float64 `json:"gops,omitempty"`      // its kernel on one thread
	// PerCycle is GOPS ÷ (ClockGHz × OpsPerInstruction): the instructions
	// the core completed per cycle; IssueRate rounds it to a whole count,
	// or below one to a power-of-two fraction (AMX: 1/16), the model's figure.
	PerCycle  float64 `json:"per_cycle,omitempty"`
	IssueRate float64 `json:"issue_rate,omitempty"`
	Note      string  `json:"note,omitempty"`
}

// OK reports whether the unit was measured.
func (u ComputeUnitProbe) OK() bool { return u.Missing == "" && u.IssueRate > 0 }

// OpsPerCycle is the unit's peak per core and cycle: OpsPerInstruction × IssueRate.
func (u ComputeUnitProbe) OpsPerCycle() float64 { return u.OpsPerInstruction * u.IssueRate }

// issueRate rounds a measured instructions-per-cycle figure the way the
// FMA model rounds to pipes: to a whole count from ¾ up, below that to a
// power-of-two fraction (one AMX instruction per 16 cycles), leaning up:
// a figure down to 0.59× a fraction counts as that fraction, one from
// 1.19× a rate (2^¼) as the next. Noise only slows a probe, and a rate
// rounded down makes a ceiling the unit's own kernels then beat: an AMX
// probe slowed to 0.044 per cycle, nearer 1/32 than 1/16 in octaves, would
// have counted 1/32, and the tile kernel measured right after ran at 170%
// of it; on the Ice Lake VM a VNNI probe read 1.42 per cycle (two units, a
// neighbour on the host), which rounded to 1 made its own kernel measure
// 177% of the ceiling.
func issueRate(perCycle float64) float64 {
	if perCycle >= 0.75 {
		return max(1, math.Ceil(perCycle/rateLean))
	}
	return math.Exp2(math.Ceil(math.Log2(perCycle) - 0.25))
}

// rateLean is how far above a rate a measured figure counts as the next.
var rateLean = math.Exp2(0.25)

// RateText writes an issue rate: "2", "1/16".
func RateText(r float64) string {
	if r >= 1 || r <= 0 {
		return fmt.Sprintf("%g", r)
	}
	return fmt.Sprintf("1/%g", math.Round(1/r))
}

// lowpProber measures one unit on one core; tests stand in recorded figures.
type lowpProber interface {
	// probe returns the clock the unit's peak takes and its kernel's
	// GOP/s, on one thread.
	probe(u lowpUnit) (clockGHz, gops float64, err error)
}

// probeComputeUnits lists every unit of lowpUnits with what it did on one
// core, or why it did not run: a feature the CPU or the OS lacks, no
// kernel in this build (hasKernel), AMX permission refused (permitAMX), a
// rate no hardware has. Nothing runs that could fault: a unit runs only
// with its CPUID bits set and its register state enabled in XCR0, and
// AMX only once Linux granted tile data.
func probeComputeUnits(f cpuFeatures, permitAMX func() error, hasKernel func(unit string) bool, p lowpProber) []ComputeUnitProbe {
	var out []ComputeUnitProbe
	for _, u := range lowpUnits {
		pr := ComputeUnitProbe{Unit: u.name, DTypes: u.dtypes, Instruction: u.instruction, OpsPerInstruction: u.opsPerInstr}
		pr.Missing = missing(f, u.needs)
		if pr.Missing == "" && !hasKernel(u.name) {
			pr.Missing = "no kernel in this build (assembly: amd64, without -tags purego)"
		}
		if pr.Missing == "" && u.amx {
			if err := permitAMX(); err != nil {
				pr.Missing = "the OS refused AMX tile data: " + err.Error()
			}
		}
		if pr.Missing == "" {
			clock, gops, err := p.probe(u)
			if err == nil {
				err = pr.derive(u, clock, gops)
			}
			if err != nil {
				pr.Missing = err.Error()
			}
		}
		out = append(out, pr)
	}
	return out
}

// derive sets the probe's figures from a clock and a rate, or says why they
// are not a unit's.
func (pr *ComputeUnitProbe) derive(u lowpUnit, clock, gops float64) error {
	if !(clock > 0) || !(gops > 0) || math.IsInf(clock, 0) || math.IsInf(gops, 0) {
		return fmt.Errorf("probe measured clock %g GHz, %g GOP/s: not a usable figure", clock, gops)
	}
	per := gops / (clock * u.opsPerInstr)
	switch {
	case per < 0.75*u.minRate:
		return fmt.Errorf("%s ran at %.3g per cycle (%.3g GOP/s at %.2f GHz): slower than any hardware unit; CPUID claims the feature, yet the instruction looks emulated", u.instruction, per, gops, clock)
	case per > 1.5*u.maxRate:
		return fmt.Errorf("%s ran at %.3g per cycle (%.3g GOP/s at %.2f GHz): faster than any hardware unit; the clock read low?", u.instruction, per, gops, clock)
	}
	pr.ClockGHz, pr.GOPS, pr.PerCycle = clock, gops, per
	pr.IssueRate = min(max(issueRate(per), u.minRate), u.maxRate)
	if math.Abs(per-pr.IssueRate) > 0.15*pr.IssueRate {
		pr.Note = fmt.Sprintf("ran at %.2f per cycle, counted as %s (a noisy probe, or a unit its kernel does not saturate)", per, RateText(pr.IssueRate))
	}
	return nil
}

// ComputeUnit returns the probe of a unit, false when the machine has no
// record of it (a machine from before units, or not measured).
func (m Machine) ComputeUnit(unit string) (ComputeUnitProbe, bool) {
	for _, u := range m.ComputeUnits {
		if u.Unit == unit {
			return u, true
		}
	}
	return ComputeUnitProbe{}, false
}

// unitClockKernel is the clock a unit's peak takes: under FMAs of its
// width, else the integer chain.
func unitClockKernel(u lowpUnit) (clockKernel, string) {
	if u.clockBits > 0 {
		if k, ok := asmClockUnderKernel(u.clockBits); ok {
			return k, fmt.Sprintf("clock under %d-bit FMAs", u.clockBits)
		}
	}
	return clockKernelFor(), "integer clock"
}

// hostLowpProber probes the units of the CPU at hand, one thread.
type hostLowpProber struct{ b budget }

func (h hostLowpProber) probe(u lowpUnit) (float64, float64, error) {
	k, ok := lowpKernel(u.name)
	if !ok {
		return 0, 0, errNoProbe
	}
	ck, _ := unitClockKernel(u)
	c := newCrew(1)
	defer c.close()
	round := h.b
	round.reps = 2
	var clock, gops float64
	for range probeRounds { // the best of rounds spread over time, as the FMA probes
		clock = max(clock, measureClock(c, ck, h.b.clock/probeRounds))
		gops = max(gops, fmaGFLOPS(c, k, round))
	}
	return clock, gops, nil
}
