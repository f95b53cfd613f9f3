package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/gobackend/elem"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// The walking direction's search (tune.Walk): walk.up_above and walk.up_to
// come from one ladder. It times elem's add (f32) and axpy (f64) at 1
// thread on operands placed as pb places them (each 576 bytes further into
// a page than the one before, so that walking up the stores trail the
// loads and the offsets ask to walk down), walking down wherever the
// offsets ask (the range empty) against walking up at every size, over
// operands of 4 KiB in all, inside any L1, to 4 MiB, past most cores' L2. A
// step's speedup is walking up over walking down, the geometric mean over
// the two ops; walkRange chooses the range from the steps.
var walkTuneLadder = ladder(4<<10, 4<<20)

// walkSearch is walk.up_above's search over ladder, which sets walk.up_to
// from the same steps.
func walkSearch(ladder []int) tuneSearch {
	const field = "walk.up_above"
	top := ladder[len(ladder)-1]
	ops := walkOps(top)
	var c customSearch
	c.search = func(ctx context.Context, base tune.Params, _ int, maxTime time.Duration) ([]tune.Step, int, error) {
		down, up := base, base
		down.Walk = tune.Walk{UpAbove: tune.MaxPieceBytes, UpTo: tune.MaxPieceBytes}
		up.Walk = tune.Walk{UpAbove: 0, UpTo: tune.MaxPieceBytes}
		pairs := make([][]timedPair, len(ladder))
		for i, b := range ladder {
			for _, op := range ops {
				pairs[i] = append(pairs[i], timedPair{op.name, tuneTarget{op, b, 1, down}, tuneTarget{op, b, 1, up}})
			}
		}
		steps, err := timeLadder(ctx, ladder, pairs, maxTime)
		if steps == nil {
			return nil, 0, err
		}
		return steps, walkRange(steps).UpAbove, nil
	}
	c.others = []string{"walk.up_to"}
	c.also = func(steps []tune.Step) []int { return []int{walkRange(steps).UpTo} }
	c.describe = func(steps []tune.Step, _, _ int) string {
		w := walkRange(steps)
		to := "the offsets decide at every size"
		if w.UpAbove < w.UpTo {
			to = fmt.Sprintf("up over %s to %s of operands", units.Bytes(w.UpAbove), units.Bytes(w.UpTo))
		}
		return fmt.Sprintf("walking up over down where the offsets ask down (1 thread): %s→ %s", ladderText(steps, units.Bytes), to)
	}
	customSearches[field] = c
	return tuneSearch{field: field, ops: ops, ladder: ladder}
}

// walkRange is the range the steps give: of the runs of consecutive sizes
// at which walking up is winMargin faster, the one it gains most over (the
// sum of the logarithms of its speedups), from the size below its first to
// its last; where there is none, empty (the offsets decide everywhere). A
// lone size's win by noise, before the L1's edge say, does not outweigh a
// run across L2.
func walkRange(steps []tune.Step) tune.Walk {
	best := tune.Walk{UpAbove: tune.MaxPieceBytes, UpTo: tune.MaxPieceBytes}
	bestGain := 0.0
	for i := 0; i < len(steps); {
		if steps[i].Speedup < winMargin {
			i++
			continue
		}
		j, gain := i, 0.0
		for ; j < len(steps) && steps[j].Speedup >= winMargin; j++ {
			gain += math.Log(steps[j].Speedup)
		}
		if gain > bestGain {
			bestGain = gain
			best = tune.Walk{UpTo: steps[j-1].Bytes}
			if i > 0 {
				best.UpAbove = steps[i-1].Bytes
			}
		}
		i = j
	}
	return best
}

// walkOps are add f32 and axpy f64 at isa.Best on the first bytes of
// operands of top bytes in all, placed in slots as pb's are
// (backend.PlaceZero), made at their first run.
func walkOps(top int) []tuneOp {
	var mem hostmem.Arena
	var x, y, z []float32
	var dx, dy []float64
	return []tuneOp{
		{"add.f32", func(bytes, th int) {
			if x == nil {
				n := top / 12
				x, y, z = backend.PlaceZero[float32](&mem, n, 0), backend.PlaceZero[float32](&mem, n, 1), backend.PlaceZero[float32](&mem, n, 2)
			}
			n := bytes / 12
			elem.Add(isa.Best, x[:n], y[:n], z[:n], th)
		}},
		{"axpy.f64", func(bytes, th int) {
			if dx == nil {
				n := top / 16
				dx, dy = backend.PlaceZero[float64](&mem, n, 0), backend.PlaceZero[float64](&mem, n, 1)
			}
			n := bytes / 16
			elem.Axpy(isa.Best, 1e-9, dx[:n], dy[:n], th)
		}},
	}
}
