package peak

import (
	"context"
	"fmt"
	"strings"
)

// convertedPeaks are the bf16 and f16 peaks of the FMA unit: the f32 FMA
// peak, which a kernel that converts its inputs to f32 (VCVTPH2PS, a shift
// for bf16) and multiplies them there is a share of.
func convertedPeaks(f32 ComputePeak) []ComputePeak {
	var out []ComputePeak
	for _, dt := range []string{"bf16", "f16"} {
		c := f32
		c.DType, c.Unit = dt, UnitFMA
		c.Formula = fmt.Sprintf("the f32 FMA peak (%s inputs converted to f32): %s", dt, f32.Formula)
		out = append(out, c)
	}
	return out
}

// lowpPeaks measures the low-precision units m.ComputeUnits found on the
// crew's threads and returns their peaks, one per unit and dtype: the
// theoretical min(threads, Cores) × clock × ops/cycle/core (the issue rate
// measured on one core, rounded), the empirical the unit's kernel on every
// thread. Each unit's clock is read before and after its kernel; every
// reading of one clock kernel in this thread count counts, the highest
// kept (clocks holds those taken already, by kernel name): a busy host
// only ever makes the chain read low, and one low reading would make a
// unit's theoretical peak low and its share too high.
func lowpPeaks(ctx context.Context, c *crew, m Machine, opt Options, b budget, clocks map[string]float64) ([]ComputePeak, error) {
	type measured struct {
		u         lowpUnit
		pr        ComputeUnitProbe
		kernel    string
		clock     string // the clock kernel's name
		clockHow  string
		empirical float64
	}
	var done []measured
	for _, pr := range m.ComputeUnits {
		u, known := lowpUnitNamed(pr.Unit)
		k, ok := lowpKernel(pr.Unit)
		if !pr.OK() || !known || !ok {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ck, clockHow := unitClockKernel(u)
		clocks[ck.name] = max(clocks[ck.name], measureClock(c, ck, b.clock))
		empirical := empiricalGFLOPS(c, k, b, float64(m.cores(c.size()))*clocks[ck.name]*pr.OpsPerCycle())
		clocks[ck.name] = max(clocks[ck.name], measureClock(c, ck, b.clock))
		done = append(done, measured{u, pr, k.name, ck.name, clockHow, empirical})
	}
	var out []ComputePeak
	t := c.size()
	cores := m.cores(t)
	for _, d := range done {
		ghz, opc := clocks[d.clock], d.pr.OpsPerCycle()
		formula := fmt.Sprintf("%s × %.2f GHz (%s) × %g ops/cycle (%s: %g ops × %s per cycle; %.3g per cycle measured on one core)",
			coresText(cores, t), ghz, d.clockHow, opc, d.u.instruction, d.u.opsPerInstr, RateText(d.pr.IssueRate), d.pr.PerCycle)
		for _, dt := range d.u.dtypes {
			cp := ComputePeak{
				DType: dt, Unit: d.u.name, Threads: t,
				TheoreticalGFLOPS: float64(cores) * ghz * opc,
				EmpiricalGFLOPS:   d.empirical,
				ClockGHz:          ghz,
				FLOPsPerCycle:     opc,
				Formula:           formula + dtypeNote(d.u, dt),
				Kernel:            d.kernel,
			}
			if opt.PeakGFLOPS > 0 {
				cp.TheoreticalGFLOPS = opt.PeakGFLOPS
				cp.Formula = fmt.Sprintf("given: -peak-gflops=%g (applies to every dtype and thread count)", opt.PeakGFLOPS)
			}
			out = append(out, cp)
		}
	}
	return out, nil
}

// dtypeNote says how a dtype runs on a unit built for another: s8×s8 on
// the u8×s8 dot products (VNNI's VPDPBUSD, the AVX2 group; AMX's TDPBSSD
// runs at TDPBUSD's rate) with A shifted into u8 and the shift corrected
// after, outside the peak.
func dtypeNote(u lowpUnit, dtype string) string {
	if dtype == "i8" && !strings.HasPrefix(u.name, "amx") {
		return "; i8 (s8×s8): A shifted by 128 into u8, corrected outside the products"
	}
	return ""
}

// coresText says who runs a peak: "1 thread", "2 threads", "2 cores (4 threads)".
func coresText(cores, threads int) string {
	if cores < threads {
		return fmt.Sprintf("%d cores (%d threads)", cores, threads)
	}
	return ThreadsText(threads)
}
