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
