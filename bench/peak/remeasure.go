package peak

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/peakbench/peakbench/bench/internal/units"
)

// Raised is one bandwidth figure Remeasure raised.
type Raised struct {
	Level, Pattern string
	Threads        int
	From, To       float64 // GB/s
}

// Remeasure measures the bandwidth of each of threads again, every level
// and pattern at the working set it was measured at first (p's caches and
// DRAM triad), and raises each figure of p that an undisturbed new one
// passes; the levels stay as they were. A peak measured at the start of a
// run may read low through no fault the guest can see: on the 2-vCPU Zen
// 5 Turin VM one run's two-thread figures all came out at half (L1 448
// GB/s against 800–925 in other runs, L3 97 against 160–190), every
// repetition undisturbed by the threads' own CPU time, while its
// workloads ran at full speed and passed them by 20–36%.
//
// It returns the figures raised, also on cancellation (with ctx.Err()).
func Remeasure(ctx context.Context, m Machine, p *Peaks, threads []int, quick bool) ([]Raised, error) {
	if len(threads) == 0 {
		return nil, nil
	}
	b := budgetFor(quick)
	bufs := make([]triadBuf, slices.Max(threads))
	defer func() {
		for w := range bufs {
			bufs[w].free()
		}
		debug.FreeOSMemory()
	}()
	var raised []Raised
	for _, t := range threads {
		plan, ok := p.planOf(t)
		if !ok {
			continue
		}
		c := newCrew(t)
		allocDRAM(m, b, c, bufs)
		var fresh Peaks
		err := measureLevels(ctx, m, Options{Quick: quick}, b, c, bufs, plan, &fresh)
		c.close()
		raised = append(raised, p.raise(fresh, t)...)
		if err != nil {
			return raised, err
		}
	}
	return raised, nil
}

// planOf is the plan p's bandwidth figures of t threads were measured by:
// its cache levels, and the DRAM triad's working set. False where p has
// no measured DRAM triad of t threads.
func (p Peaks) planOf(t int) (levelPlan, bool) {
	var plan levelPlan
	for _, c := range p.Caches {
		if c.Threads == t {
			plan.caches = append(plan.caches, c)
		}
	}
	for _, bw := range p.Bandwidth {
		if bw.Threads == t && bw.Level == "DRAM" && bw.Pattern == PatternTriad {
			plan.dramBytes = bw.WorkingSet * t
		}
	}
	return plan, plan.dramBytes > 0
}

// raise replaces each figure of t threads in p that an undisturbed figure
// of fresh, of the same level and pattern, passes, and returns what it
// raised.
func (p *Peaks) raise(fresh Peaks, t int) []Raised {
	var out []Raised
	for _, f := range fresh.Bandwidth {
		if f.Threads != t || f.Disturbed {
			continue
		}
		for i := range p.Bandwidth {
			o := &p.Bandwidth[i]
			if o.Threads != t || o.Level != f.Level || o.Pattern != f.Pattern || f.GBPS <= o.GBPS {
				continue
			}
			out = append(out, Raised{Level: o.Level, Pattern: o.Pattern, Threads: t, From: o.GBPS, To: f.GBPS})
			f.Source += fmt.Sprintf("; measured again after the workloads, some of which passed the first figure, %s GB/s", units.Sig(o.GBPS))
			*o = f
		}
	}
	return out
}

// RaisedCompute is one empirical compute figure RemeasureCompute raised:
// Kernel's on Threads threads, the figure of every dtype it measures
// (f32, bf16 and f16 on the FMA unit; i8 and u8s8 on a VNNI unit).
type RaisedCompute struct {
	Unit, Kernel string
	Threads      int
	From, To     float64 // GFLOP/s
}

// ComputeKernel names one empirical compute figure: the throughput kernel
// (ComputePeak.Kernel) on a thread count.
type ComputeKernel struct {
	Kernel  string
	Threads int
}

// RemeasureCompute runs each of want's throughput kernels again on its
// thread count and raises the empirical figure of every peak of p it set
// that the new run passes, saying so in the peak's Kernel; the theoretical
// figures stay. The empirical figures come from the start of the run, and a
// host can slow a guest for a while where the guest cannot see it: on the
// 2-vCPU Zen 5 Turin VM one run's two-thread VNNI kernel read 731 GOP/s,
// under half of the 1696 of other runs and of a gemm of the same run (1556),
// while its clock read full.
//
// It returns the figures raised, also on cancellation (with ctx.Err()).
func RemeasureCompute(ctx context.Context, m Machine, p *Peaks, want []ComputeKernel, quick bool) ([]RaisedCompute, error) {
	b := budgetFor(quick)
	byThreads := map[int][]string{}
	var threads []int
	for _, w := range want {
		if !slices.Contains(threads, w.Threads) {
			threads = append(threads, w.Threads)
		}
		if !slices.Contains(byThreads[w.Threads], w.Kernel) {
			byThreads[w.Threads] = append(byThreads[w.Threads], w.Kernel)
		}
	}
	slices.Sort(threads)
	var raised []RaisedCompute
	for _, t := range threads {
		c := newCrew(t)
		for _, name := range byThreads[t] {
			if err := ctx.Err(); err != nil {
				c.close()
				return raised, err
			}
			k, ok := throughputKernel(m, name)
			if !ok {
				continue
			}
			raised = append(raised, p.raiseCompute(k.name, t, fmaGFLOPS(c, k, b))...)
		}
		c.close()
	}
	return raised, nil
}

// throughputKernel is the empirical kernel named name among those Measure
// runs on m: the FMA kernels of f32 and f64 and each low-precision unit's.
func throughputKernel(m Machine, name string) (fmaKernel, bool) {
	for _, dtype := range []string{"f32", "f64"} {
		if k := fmaKernelFor(dtype, m.SIMDBits); k.name == name {
			return k, true
		}
	}
	for _, pr := range m.ComputeUnits {
		if k, ok := lowpKernel(pr.Unit); ok && pr.OK() && k.name == name {
			return k, true
		}
	}
	return fmaKernel{}, false
}

// raiseCompute sets gflops as the empirical figure of every peak of
// `threads` threads that kernel set and that it passes, and returns one
// RaisedCompute per unit raised.
func (p *Peaks) raiseCompute(kernel string, threads int, gflops float64) []RaisedCompute {
	var out []RaisedCompute
	for i := range p.Compute {
		c := &p.Compute[i]
		if c.Threads != threads || c.Kernel != kernel || gflops <= c.EmpiricalGFLOPS {
			continue
		}
		if !slices.ContainsFunc(out, func(r RaisedCompute) bool { return r.Unit == c.UnitName() }) {
			out = append(out, RaisedCompute{Unit: c.UnitName(), Kernel: kernel, Threads: threads, From: c.EmpiricalGFLOPS, To: gflops})
		}
		c.Kernel += fmt.Sprintf("; measured again after the workloads, some of which passed the first figure, %s GFLOP/s", units.Sig(c.EmpiricalGFLOPS))
		c.EmpiricalGFLOPS = gflops
	}
	return out
}
