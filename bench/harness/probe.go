package harness

import (
	"context"
	"time"

	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
)

// The per-call overhead of an op on a backend is fitted over the sizes a
// run measured (report: findings). An op measured at one size only gets a
// tiny-size probe: the same op and dtype at a size whose time is almost
// all fixed cost, measured on every backend but reported only beside the
// real result (Result.Probe), never as a result of its own.

// probeMinTime is the least sample time of a probe: its calls last
// microseconds.
const probeMinTime = 2 * time.Millisecond

// tinyShape is a size of op small enough that a call is mostly its fixed
// cost, and false for the layer ops (a geometry, not a size).
func tinyShape(w workload.Workload) (workload.Workload, bool) {
	if w.Op.Layer() || w.Op.Sparse() {
		return w, false // a geometry or a matrix, not a size
	}
	t := w
	switch w.Op.Kind() {
	case workload.KindMatMul:
		t.Shape.M, t.Shape.N, t.Shape.K = 8, 8, 8
	case workload.KindMatVec:
		t.Shape.M, t.Shape.N = 8, 8
	case workload.KindRows:
		t.Shape.M, t.Shape.N = 1, 64
	default:
		t.Shape.N = 64
	}
	if t.Shape == w.Shape {
		return w, false
	}
	return t, true
}

type probeKey struct {
	op    workload.Op
	dtype workload.DType
}

// singleSizes says which workloads of ws are their op and dtype's only
// size: none unless probes is set.
func singleSizes(ws []workload.Workload, probes bool) map[workload.Workload]bool {
	if !probes {
		return nil
	}
	count := map[probeKey]int{}
	for _, w := range ws {
		count[probeKey{w.Op, w.DType}]++
	}
	out := map[workload.Workload]bool{}
	for _, w := range ws {
		if count[probeKey{w.Op, w.DType}] == 1 {
			out[w] = true
		}
	}
	return out
}

// probe measures the tiny size of w at threads, when w is its op and
// dtype's only size in single, and attaches each backend's median to its
// result of w in rs.
func (p Plan) probe(ctx context.Context, w workload.Workload, threads int, single map[workload.Workload]bool, rs []result.Result) error {
	if !single[w] {
		return nil
	}
	tiny, ok := tinyShape(w)
	if !ok {
		return nil
	}
	q := p
	q.Reference = false
	q.Measure.MinTime = probeMinTime
	probes, err := q.runOne(ctx, tiny, threads)
	if err != nil {
		return err
	}
	for _, pr := range probes {
		if !pr.Correct() {
			continue
		}
		for i := range rs {
			if r := &rs[i]; r.Series() == pr.Series() {
				r.Probe = &result.Probe{Shape: pr.Shape, MedianNS: pr.MedianNS, Host: pr.Host}
			}
		}
	}
	return nil
}
