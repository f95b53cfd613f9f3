package peak

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	goisa "github.com/peakbench/peakbench/gobackend/isa"
)

// fakeCPUID answers leaves 0, 1 and 7 (subleaves 0 and 1) from the given
// registers, as a recorded CPU would.
func fakeCPUID(leaf1ECX, leaf7EBX, leaf7ECX, leaf7EDX, leaf71EAX uint32) cpuidFunc {
	return func(eax, ecx uint32) (uint32, uint32, uint32, uint32) {
		switch {
		case eax == 0:
			return 7, 0, 0, 0
		case eax == 1:
			return 0, 0, leaf1ECX, 0
		case eax == 7 && ecx == 0:
			return 1, leaf7EBX, leaf7ECX, leaf7EDX
		case eax == 7 && ecx == 1:
			return leaf71EAX, 0, 0, 0
		}
		return 0, 0, 0, 0
	}
}

const (
	bitOSXSAVE = 1 << 27
	bitAVX     = 1 << 28
	bitAVX2    = 1 << 5
	bitAVX512F = 1 << 16
	bitVNNI512 = 1 << 11 // leaf 7 ECX
	bitAMXBF16 = 1 << 22 // leaf 7 EDX
	bitFP16    = 1 << 23
	bitAMXTile = 1 << 24
	bitAMXInt8 = 1 << 25
	bitAVXVNNI = 1 << 4 // leaf 7.1 EAX
	bitBF16    = 1 << 5
	bitAMXFP16 = 1 << 21
)

// The feature sets of the project's machines: AMD Zen 3 (AVX2 alone), Zen 4
// (AVX-512 with VNNI and BF16, no AMX, no AVX-VNNI), and Sapphire Rapids.
var (
	zen3 = readFeatures(fakeCPUID(bitOSXSAVE|bitAVX, bitAVX2, 0, 0, 0), func() uint64 { return xcr0YMM })
	zen4 = readFeatures(fakeCPUID(bitOSXSAVE|bitAVX, bitAVX2|bitAVX512F, bitVNNI512, 0, bitBF16),
		func() uint64 { return xcr0YMM | xcr0ZMM })
	sprBits = fakeCPUID(bitOSXSAVE|bitAVX, bitAVX2|bitAVX512F, bitVNNI512, bitAMXBF16|bitFP16|bitAMXTile|bitAMXInt8, bitAVXVNNI|bitBF16)
	spr     = readFeatures(sprBits, func() uint64 { return xcr0All })
)

// rateProber measures every unit at a given issue rate and clock.
type rateProber struct {
	ghz  float64
	rate map[string]float64 // instructions per cycle per unit; absent: the unit's usual
}

func (p rateProber) probe(u lowpUnit) (float64, float64, error) {
	r, ok := p.rate[u.name]
	if !ok {
		r = 1
		if u.amx {
			r = 1.0 / 16
		}
	}
	return p.ghz, p.ghz * r * u.opsPerInstr, nil
}

func granted() error         { return nil }
func allKernels(string) bool { return true }

func probeByUnit(ps []ComputeUnitProbe) map[string]ComputeUnitProbe {
	out := map[string]ComputeUnitProbe{}
	for _, p := range ps {
		out[p.Unit] = p
	}
	return out
}

// TestComputeUnitsFeatures: which units each machine's features give, and
// what a missing one says (its feature and CPUID bit, the OS state, the
// OS's refusal, an instruction too slow to be hardware).
func TestComputeUnitsFeatures(t *testing.T) {
	sprNoAMXState := readFeatures(sprBits, func() uint64 { return xcr0YMM | xcr0ZMM })
	sprNoZMMState := readFeatures(sprBits, func() uint64 { return xcr0YMM })
	refused := func() error { return errors.New("ENOSPC") }
	for _, tc := range []struct {
		name   string
		f      cpuFeatures
		permit func() error
		prober rateProber
		want   map[string]string // unit → "" (measured) or a part of why not
	}{
		{"zen3", zen3, granted, rateProber{ghz: 3.5}, map[string]string{
			UnitInt8FMA: "", UnitAVX512BF16: "no AVX512-BF16 (CPUID.7.1:EAX[5])", UnitAVX512VNNI: "no AVX512-VNNI (CPUID.7.0:ECX[11])",
			UnitAVXVNNI: "no AVX-VNNI (CPUID.7.1:EAX[4])", UnitAVX512FP16: "no AVX512-FP16 (CPUID.7.0:EDX[23])",
			UnitAMXBF16: "no AMX-BF16 (CPUID.7.0:EDX[22])", UnitAMXInt8: "no AMX-INT8 (CPUID.7.0:EDX[25])", UnitAMXFP16: "no AMX-FP16 (CPUID.7.1:EAX[21])"}},
		{"zen4", zen4, granted, rateProber{ghz: 3.7}, map[string]string{
			UnitInt8FMA: "", UnitAVX512BF16: "", UnitAVX512VNNI: "", UnitAVXVNNI: "no AVX-VNNI",
			UnitAVX512FP16: "no AVX512-FP16", UnitAMXBF16: "no AMX-BF16", UnitAMXInt8: "no AMX-INT8"}},
		{"sapphire rapids", spr, granted, rateProber{ghz: 3.8}, map[string]string{
			UnitInt8FMA: "", UnitAVX512BF16: "", UnitAVX512VNNI: "", UnitAVXVNNI: "", UnitAVX512FP16: "",
			UnitAMXBF16: "", UnitAMXInt8: "", UnitAMXFP16: "no AMX-FP16 (CPUID.7.1:EAX[21])"}},
		{"AMX state not enabled", sprNoAMXState, granted, rateProber{ghz: 3.8}, map[string]string{
			UnitAVX512BF16: "", UnitAMXBF16: "the OS does not enable AMX tile state (XCR0 bits 17–18)"}},
		{"AVX-512 state not enabled", sprNoZMMState, granted, rateProber{ghz: 3.8}, map[string]string{
			UnitAVXVNNI: "", UnitAVX512VNNI: "the OS does not enable AVX-512 state (XCR0 bits 5–7)"}},
		{"AMX permission refused", spr, refused, rateProber{ghz: 3.8}, map[string]string{
			UnitAVX512BF16: "", UnitAMXInt8: "the OS refused AMX tile data: ENOSPC"}},
		{"emulated instruction", spr, granted, rateProber{ghz: 3.8, rate: map[string]float64{UnitAVX512FP16: 0.01, UnitAMXBF16: 0.001}}, map[string]string{
			UnitAVX512BF16: "", UnitAVX512FP16: "looks emulated", UnitAMXBF16: "looks emulated"}},
		{"no CPUID", readFeatures(nil, nil), granted, rateProber{ghz: 3}, map[string]string{UnitInt8FMA: "no CPUID to read"}},
	} {
		got := probeByUnit(probeComputeUnits(tc.f, tc.permit, allKernels, tc.prober))
		if len(got) != len(lowpUnits) {
			t.Errorf("%s: %d units listed, want all %d", tc.name, len(got), len(lowpUnits))
		}
		for unit, why := range tc.want {
			p := got[unit]
			switch {
			case why == "" && !p.OK():
				t.Errorf("%s: %s not measured: %s", tc.name, unit, p.Missing)
			case why != "" && (p.OK() || !strings.Contains(p.Missing, why)):
				t.Errorf("%s: %s missing %q, want it to say %q", tc.name, unit, p.Missing, why)
			}
		}
	}
	noKernel := probeByUnit(probeComputeUnits(spr, granted, func(string) bool { return false }, rateProber{ghz: 3}))
	if p := noKernel[UnitAVX512BF16]; !strings.Contains(p.Missing, "no kernel in this build") {
		t.Errorf("without kernels: %q", p.Missing)
	}
}

// TestComputeUnitRates: the measured rate is rounded to the model's issue
// rate, whole or a power-of-two fraction, and ops/cycle follow from it.
func TestComputeUnitRates(t *testing.T) {
	for _, tc := range []struct {
		per, want float64
	}{{1.97, 2}, {1.02, 1}, {0.8, 1}, {0.52, 0.5}, {0.0641, 1.0 / 16}, {0.058, 1.0 / 16}, {0.034, 1.0 / 32},
		{1.42, 2},           // a slowed probe of two VNNI units (Ice Lake VM): up, not to 1
		{1.18, 1}, {1.2, 2}, // 1.19× a whole rate: the next
		{2.3, 2}, {3.1, 3},
		{0.0437, 1.0 / 16}, // a slowed AMX probe: up, not to 1/32
		{0.036, 1.0 / 32},  // 1.15× 1/32: still 1/32
		{0.0375, 1.0 / 16}, // 1.2× 1/32: the next
	} {
		if got := issueRate(tc.per); got != tc.want {
			t.Errorf("issueRate(%g) = %g, want %g", tc.per, got, tc.want)
		}
	}
	if RateText(1.0/16) != "1/16" || RateText(2) != "2" {
		t.Errorf("RateText: %s, %s", RateText(1.0/16), RateText(2))
	}
	ps := probeByUnit(probeComputeUnits(spr, granted, allKernels, rateProber{ghz: 3.8, rate: map[string]float64{UnitAVX512VNNI: 1.6}}))
	amx := ps[UnitAMXBF16]
	if amx.IssueRate != 1.0/16 || amx.OpsPerCycle() != 1024 {
		t.Errorf("amx-bf16 at 1/16 per cycle: issue rate %g, %g ops/cycle; want 1/16, 1024", amx.IssueRate, amx.OpsPerCycle())
	}
	vnni := ps[UnitAVX512VNNI]
	if vnni.IssueRate != 2 || vnni.OpsPerCycle() != 256 || !strings.Contains(vnni.Note, "counted as 2") {
		t.Errorf("avx512-vnni at 1.6 per cycle: %+v; want 2 per cycle, 256 ops/cycle, a note", vnni)
	}
}

// unitHere returns the unit's kernel and its clock kernel where the CPU at
// hand runs it, and skips the test with the missing feature otherwise.
func unitHere(t *testing.T, name string) (lowpUnit, fmaKernel) {
	t.Helper()
	u, _ := lowpUnitNamed(name)
	f := readFeatures(hostCPUID, hostXCR0)
	if why := missing(f, u.needs); why != "" {
		t.Skipf("%s: %s", name, why)
	}
	if u.amx {
		if err := goisa.RequestAMX(); err != nil {
			t.Skipf("%s: %v", name, err)
		}
	}
	k, ok := lowpKernel(name)
	if !ok {
		t.Skipf("%s: no kernel in this build", name)
	}
	return u, k
}

// TestLowpKernelsHere runs each unit's kernel where the CPU has the unit:
// its instructions compute what they are counted for (the accumulators of
// a few rounds are checked exactly), and it runs at a rate a core issues.
func TestLowpKernelsHere(t *testing.T) {
	for _, u := range lowpUnits {
		t.Run(u.name, func(t *testing.T) {
			u, k := unitHere(t, u.name)
			checkLowpResult(t, u.name)
			c := newCrew(1)
			defer c.close()
			b := budgetFor(true)
			ck, how := unitClockKernel(u)
			ghz := measureClock(c, ck, b.clock)
			gops := fmaGFLOPS(c, k, b)
			per := gops / (ghz * u.opsPerInstr)
			t.Logf("%s: %.4g GOP/s at %.2f GHz (%s): %.3g %s per cycle", u.name, gops, ghz, how, per, u.instruction)
			// Loose: a shared host slows a kernel down, never speeds it up.
			if per < 0.5*u.minRate || per > 1.5*u.maxRate {
				t.Errorf("%s ran at %.3g per cycle, outside what a core issues (%g–%g)", u.instruction, per, u.minRate, u.maxRate)
			}
		})
	}
}

// TestMeasureLowp measures the peaks of the units this CPU has on one
// thread: each measured unit has a peak per dtype with its Unit, the
// theoretical figure is clock × ops/cycle, and the kernel reaches it
// (within a shared host's noise); ComputeFor gives the fastest unit.
func TestMeasureLowp(t *testing.T) {
	m := MeasureUnits(DetectMachine(), true)
	measured := 0
	for _, u := range m.ComputeUnits {
		t.Logf("%-12s %s", u.Unit, func() string {
			if u.OK() {
				return fmt.Sprintf("%.3g per cycle → %s, %.4g GOP/s at %.2f GHz %s", u.PerCycle, RateText(u.IssueRate), u.GOPS, u.ClockGHz, u.Note)
			}
			return "missing: " + u.Missing
		}())
		if u.OK() {
			measured++
		}
	}
	if measured == 0 {
		t.Skip("no low-precision unit here")
	}
	p, err := Measure(context.Background(), m, Options{Threads: []int{1}, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range m.ComputeUnits {
		for _, dt := range u.DTypes {
			c, ok := p.ComputeForUnit(dt, u.Unit, 1)
			if ok != u.OK() {
				t.Errorf("%s %s: peak found %v, unit measured %v", dt, u.Unit, ok, u.OK())
			}
			if !ok {
				continue
			}
			t.Logf("%s %s: theoretical %.4g, measured %.4g GOP/s (%.0f%%) [%s] %s", dt, u.Unit, c.TheoreticalGFLOPS, c.EmpiricalGFLOPS,
				100*c.EmpiricalGFLOPS/c.TheoreticalGFLOPS, c.Formula, c.Kernel)
			if want := c.ClockGHz * u.OpsPerCycle(); math.Abs(c.TheoreticalGFLOPS-want) > 1e-9*want || c.FLOPsPerCycle != u.OpsPerCycle() {
				t.Errorf("%s %s: theoretical %g, want clock × ops/cycle = %g", dt, u.Unit, c.TheoreticalGFLOPS, want)
			}
			if r := c.EmpiricalGFLOPS / c.TheoreticalGFLOPS; r < 0.4 || r > 1.5 {
				t.Errorf("%s %s: measured/theoretical = %.2f, want within (0.4, 1.5)", dt, u.Unit, r)
			}
		}
	}
	for _, dt := range []string{"bf16", "f16", "i8", "u8s8"} {
		best, ok := p.ComputeFor(dt, 1)
		if !ok {
			continue
		}
		for _, c := range p.Compute {
			if c.DType == dt && c.Threads == 1 && c.TheoreticalGFLOPS > best.TheoreticalGFLOPS {
				t.Errorf("ComputeFor(%s) = %s, but %s is faster", dt, best.Unit, c.Unit)
			}
		}
	}
}
