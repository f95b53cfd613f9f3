package harness

import (
	"context"
	"time"

	"github.com/peakbench/peakbench/bench/report"
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
	if w.Op.Layer() {
		return w, false
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

// singleSizes lists the workloads whose op and dtype the plan measures at
// one size only.
func singleSizes(ws []workload.Workload) []workload.Workload {
	count := map[probeKey]int{}
	for _, w := range ws {
		count[probeKey{w.Op, w.DType}]++
	}
	var out []workload.Workload
	for _, w := range ws {
		if count[probeKey{w.Op, w.DType}] == 1 {
			out = append(out, w)
		}
	}
	return out
}

// probe measures the tiny size of each single-size workload at threads and
// attaches each backend's median to its result of that workload in rs.
func (p Plan) probe(ctx context.Context, threads int, rs []report.Result) error {
	q := p
	q.Reference = false
	q.Measure.MinTime = probeMinTime
	for _, w := range singleSizes(p.Workloads) {
		tiny, ok := tinyShape(w)
		if !ok {
			continue
		}
		probes, err := q.runOne(ctx, tiny, threads)
		if err != nil {
			return err
		}
		shape := w.Shape.Format(w.Op)
		for _, pr := range probes {
			if pr.Error != "" || !pr.Verified || pr.MedianNS <= 0 {
				continue
			}
			for i := range rs {
				r := &rs[i]
				if r.Op == pr.Op && r.DType == pr.DType && r.Shape == shape && r.Threads == threads && r.Series() == pr.Series() {
					r.Probe = &report.Probe{Shape: pr.Shape, MedianNS: pr.MedianNS}
				}
			}
		}
	}
	return nil
}
