package peak

import (
	"errors"
	"fmt"
	"math"
	"strings"

	goisa "github.com/peakbench/peakbench/gobackend/isa"
)

// Where a machine's FP units (SIMDBits, FMAUnits) come from.
const (
	UnitsMeasured  = "measured" // the unit probes (MeasureUnits)
	UnitsFromTable = "table"    // the micro-architecture table: no probe ran
)

// UnitClaim is what the micro-architecture table (microarch.go) says of a
// core, from its CPUID family and model, clamped to the features software
// can use. A hypervisor can report the family/model of another part, so it
// is a claim to cross-check, not a fact.
type UnitClaim struct {
	Microarch string `json:"microarch"`
	SIMDBits  int    `json:"simd_bits"`
	FMAUnits  int    `json:"fma_units"`
}

// WidthUnits is what one core did at one vector width: its FMA throughput
// and the clock it kept meanwhile, and the FMA pipes these imply.
type WidthUnits struct {
	Bits      int     `json:"bits"`       // 128 (xmm), 256 (ymm), 512 (zmm)
	ClockGHz  float64 `json:"clock_ghz"`  // while FMAs of this width run (a core may slow down for wide vectors)
	F32GFLOPS float64 `json:"f32_gflops"` // the FMA-throughput kernel of this width on one thread
	F64GFLOPS float64 `json:"f64_gflops"`
	// FMAPerCycle is F32GFLOPS ÷ (ClockGHz × f32 lanes × 2): the FMA
	// instructions of this width the core completed per cycle; Pipes rounds
	// it to a whole count, the model's figure.
	FMAPerCycle float64 `json:"fma_per_cycle"`
	Pipes       int     `json:"pipes"`
	// Error says why the width could not be probed (then the rest is zero).
	Error string `json:"error,omitempty"`
}

// OK reports whether the width was probed.
func (w WidthUnits) OK() bool { return w.Error == "" && w.Pipes > 0 }

// FLOPsPerCycle is the peak FLOP/cycle of one core at this width: Pipes ×
// lanes × 2.
func (w WidthUnits) FLOPsPerCycle(dtype string) float64 {
	return Machine{SIMDBits: w.Bits, FMAUnits: w.Pipes}.FLOPsPerCycle(dtype)
}

// gflops is the width's theoretical f32 GFLOP/s on one core.
func (w WidthUnits) gflops() float64 { return w.ClockGHz * w.FLOPsPerCycle("f32") }

// unitProber measures the FP units of one core; tests stand in recorded
// figures for the CPU at hand.
type unitProber interface {
	// widths lists the vector widths this CPU runs and a probe exists for,
	// widest first.
	widths() []int
	// probe measures one width: ClockGHz, F32GFLOPS and F64GFLOPS.
	probe(bits int) (WidthUnits, error)
}

// maxPipes bounds the plausible FMA pipes of one core at one width (Apple
// and Neoverse V cores have four 128-bit pipes).
const maxPipes = 4

// tieShare: widths whose theoretical peaks are this close count as equal,
// and the narrowest of them names the units (Zen 4 issues one 512-bit FMA
// per cycle, as two 256-bit halves: 2 × 256, as the table says).
const tieShare = 0.03

// MeasureUnits measures what each vector width of this CPU does on one core
// (the FMA throughput and the clock while it runs), and sets the machine's
// SIMDBits and FMAUnits to the width with the highest peak and its pipe
// count, replacing the table's claim; UnitsNote says where the two
// disagree. Where no probe can run (no assembly for this GOARCH, -tags
// purego, a CPU without FMA) the table's figures stay, and UnitsNote says
// so.
//
// It also measures the low-precision units the CPU has (lowp.go): each
// one's instruction throughput on one core, or why it was not measured.
func MeasureUnits(m Machine, quick bool) Machine {
	m = applyUnits(m, probeUnits(hostProber{budgetFor(quick)}))
	m.ComputeUnits = probeComputeUnits(readFeatures(hostCPUID, hostXCR0), goisa.RequestAMX, hasLowpKernel, hostLowpProber{budgetFor(quick)})
	return m
}

// probeUnits probes every width p offers, widest first. A width whose probe
// fails or returns no usable figure is kept with its Error, and the model
// falls back to the narrower ones.
func probeUnits(p unitProber) []WidthUnits {
	var out []WidthUnits
	for _, bits := range p.widths() {
		w, err := p.probe(bits)
		w.Bits = bits
		if err == nil {
			err = w.derive()
		}
		if err != nil {
			w = WidthUnits{Bits: bits, Error: err.Error()}
		}
		out = append(out, w)
	}
	return out
}

// derive sets FMAPerCycle and Pipes from the measured figures.
func (w *WidthUnits) derive() error {
	for _, v := range []float64{w.ClockGHz, w.F32GFLOPS, w.F64GFLOPS} {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%d-bit probe measured clock %g GHz, %g / %g GFLOP/s: not a usable figure", w.Bits, w.ClockGHz, w.F32GFLOPS, w.F64GFLOPS)
		}
	}
	lanes := float64(max(w.Bits/32, 1))
	w.FMAPerCycle = w.F32GFLOPS / (w.ClockGHz * lanes * 2)
	// Below ¾ FMA per cycle the clock loop's 12 FMAs could have paced it
	// instead of its 16 adds: its clock, and so these pipes, are not
	// measured.
	if w.FMAPerCycle < 0.75 {
		return fmt.Errorf("%d-bit FMAs ran at %.2f per cycle (%.3g GFLOP/s at %.2f GHz): below one pipe, not a unit count", w.Bits, w.FMAPerCycle, w.F32GFLOPS, w.ClockGHz)
	}
	w.Pipes = min(int(math.Round(w.FMAPerCycle)), maxPipes)
	return nil
}

// between reports whether the measured rate lies between two whole pipe
// counts, more than 15% off the one it rounds to. On a shared host a
// sibling thread or the hypervisor takes a share of the probe's cycles:
// the Ice Lake VM's two 512-bit pipes once ran 1.49 FMAs a cycle, which
// rounded to one pipe, halved the compute peak below what the probe itself
// had run at. There the table's count for the width decides, where CPUID
// names one within the two (applyUnits); a rate near a whole count is
// taken as measured, whatever CPUID says (a VM's CPUID may lie).
func (w WidthUnits) between() bool {
	return math.Abs(w.FMAPerCycle-float64(w.Pipes)) > 0.15*float64(w.Pipes)
}

// best returns the width with the highest theoretical peak (clock × FLOP
// per cycle), the narrowest of those within tieShare of it; false when no
// width was probed.
func best(ws []WidthUnits) (WidthUnits, bool) {
	var top float64
	for _, w := range ws {
		if w.OK() {
			top = max(top, w.gflops())
		}
	}
	var b WidthUnits
	found := false
	for _, w := range ws {
		if w.OK() && w.gflops() >= (1-tieShare)*top && (!found || w.Bits < b.Bits) {
			b, found = w, true
		}
	}
	return b, found
}

// applyUnits sets m's units from the probes and says how they compare with
// the table's claim.
func applyUnits(m Machine, ws []WidthUnits) Machine {
	m.Units = ws
	var notes []string
	for i := range ws {
		w := &ws[i]
		if !w.OK() {
			notes = append(notes, fmt.Sprintf("%d-bit probe skipped: %s", w.Bits, w.Error))
			continue
		}
		if !w.between() {
			continue
		}
		if t := m.Table.FMAUnits; m.Table.SIMDBits == w.Bits && t >= int(math.Floor(w.FMAPerCycle)) && t <= int(math.Ceil(w.FMAPerCycle)) {
			w.Pipes = t
			notes = append(notes, fmt.Sprintf("%d-bit FMAs ran at %.2f per cycle, between two pipe counts: counted as %d, CPUID's (a noisy probe?)", w.Bits, w.FMAPerCycle, w.Pipes))
			continue
		}
		notes = append(notes, fmt.Sprintf("%d-bit FMAs ran at %.2f per cycle, counted as %d pipes (a noisy probe?)", w.Bits, w.FMAPerCycle, w.Pipes))
	}
	b, ok := best(ws)
	if !ok {
		m.UnitsSource = UnitsFromTable
		why := "no unit probe for this CPU and build"
		if len(ws) > 0 {
			why = "no unit probe ran"
		}
		notes = append(notes, fmt.Sprintf("%s: FP units from the table (%s, %s pipes)", why, m.Table.Microarch, unitsText(m.Table.FMAUnits, m.Table.SIMDBits)))
		m.UnitsNote = strings.Join(notes, "; ")
		return m
	}
	m.SIMDBits, m.FMAUnits, m.UnitsSource = b.Bits, b.Pipes, UnitsMeasured
	claim := Machine{SIMDBits: m.Table.SIMDBits, FMAUnits: m.Table.FMAUnits}
	switch {
	case m.Table.Microarch == "" || m.Table.Microarch == "generic":
		notes = append(notes, fmt.Sprintf("CPUID family %d model %d is not in the table: the core issues %ss per cycle, from measurement alone",
			m.Family, m.ModelID, unitsText(b.Pipes, b.Bits)))
	case claim.FLOPsPerCycle("f32") != m.FLOPsPerCycle("f32"):
		notes = append(notes, fmt.Sprintf("CPUID says %s (%s pipes), the core issues %ss per cycle: using the measurement",
			m.Table.Microarch, unitsText(m.Table.FMAUnits, m.Table.SIMDBits), unitsText(b.Pipes, b.Bits)))
	}
	m.UnitsNote = strings.Join(notes, "; ")
	return m
}

// unitsText writes a unit count as "2 × 512-bit FMA".
func unitsText(pipes, bits int) string {
	return fmt.Sprintf("%d × %d-bit FMA", pipes, bits)
}

// errNoProbe is a width this build has no probe for.
var errNoProbe = errors.New("no probe for this width")

// hostProber probes the CPU at hand with the assembly kernels, one thread.
type hostProber struct{ b budget }

func (hostProber) widths() []int {
	var ws []int
	for _, bits := range []int{512, 256, 128} {
		_, fma := asmFMAKernel("f32", bits)
		_, clock := asmClockUnderKernel(bits)
		if fma && clock {
			ws = append(ws, bits)
		}
	}
	return ws
}

// probeRounds is how many rounds of (clock, f32 FMAs, f64 FMAs) a probe
// takes at least, and at most when its figures do not settle on a whole
// pipe count. Each figure is the best over the rounds: a busy host only ever
// slows a loop down, and rounds spread over time keep one busy stretch
// (another tenant on the core for 30 ms, seen on the shared development VM:
// a zmm clock read 1.99 GHz, 4 "pipes") from spoiling one figure alone.
const probeRounds, probeMaxRounds = 3, 6

func (h hostProber) probe(bits int) (WidthUnits, error) {
	ck, ok := asmClockUnderKernel(bits)
	k32, ok32 := asmFMAKernel("f32", bits)
	k64, ok64 := asmFMAKernel("f64", bits)
	if !ok || !ok32 || !ok64 {
		return WidthUnits{}, errNoProbe
	}
	c := newCrew(1)
	defer c.close()
	round := h.b
	round.reps = 2
	w := WidthUnits{Bits: bits}
	for r := 0; r < probeRounds || (r < probeMaxRounds && !w.settled()); r++ {
		w.ClockGHz = max(w.ClockGHz, measureClock(c, ck, h.b.clock/probeRounds))
		w.F32GFLOPS = max(w.F32GFLOPS, fmaGFLOPS(c, k32, round))
		w.F64GFLOPS = max(w.F64GFLOPS, fmaGFLOPS(c, k64, round))
	}
	return w, nil
}

// settled reports whether the figures so far give a pipe count within 10%
// of a whole number.
func (w WidthUnits) settled() bool {
	d := w
	if d.derive() != nil {
		return false
	}
	return math.Abs(d.FMAPerCycle-float64(d.Pipes)) <= 0.1*float64(d.Pipes)
}

// empiricalGFLOPS is fmaGFLOPS, run up to lowRetries times more while
// it reads under lowEmpirical of expect (the theoretical figure of the
// same threads and clock), keeping the best. Every thread of the crew
// runs the kernel, so a figure far under the threads' theoretical sum is
// a host that held some back for a while, where the guest's own CPU
// times cannot tell (runClean): on the 2-vCPU Zen 5 Turin VM one `-peak`
// read the two-thread f32 FMA figure at one thread's rate, 232 of 448
// GFLOP/s, and the next three at 99%. A unit whose issue rate rounded up
// reads under it every time and only costs the retries.
func empiricalGFLOPS(c *crew, k fmaKernel, b budget, expect float64) float64 {
	g := fmaGFLOPS(c, k, b)
	for try := 0; try < lowRetries && g < lowEmpirical*expect; try++ {
		g = max(g, fmaGFLOPS(c, k, b))
	}
	return g
}

// lowEmpirical and lowRetries: see empiricalGFLOPS.
const (
	lowEmpirical = 0.75
	lowRetries   = 2
)

// fmaGFLOPS runs an FMA kernel on every member of c at once and returns
// their total GFLOP/s, the best of b.reps repetitions.
func fmaGFLOPS(c *crew, k fmaKernel, b budget) float64 {
	runners := make([]func(int) float64, c.size())
	for w := range runners {
		runners[w] = k.newRunner()
	}
	rounds, wall := c.best(b.target, b.reps, 1000, func(w, rounds int) { consume(runners[w](rounds)) })
	return float64(c.size()) * float64(rounds) * k.flopsPerRound / wall.Seconds() / 1e9
}
