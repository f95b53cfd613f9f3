package harness

import (
	"time"

	"github.com/peakbench/peakbench/bench/workload"
)

// estimateShare is the share of the machine's peak a backend is assumed to
// reach at worst before it has been timed: the reference BLAS's GEMM runs
// at a few percent of a vector machine's peak, and a first call pays for
// thread start-up and page faults besides.
const estimateShare = 0.01

// estimate bounds one iteration of w at threads threads before any is
// measured, for the watchdogs of backends in other processes
// (backend.Config.Estimate): its time at the CPU's roofline (theoretical
// compute, DRAM bandwidth) divided by estimateShare. A GPU runs faster
// than the CPU's roofline, so the bound holds there too. 0 when no peak
// is known.
func (p Plan) estimate(w workload.Workload, threads int) time.Duration {
	var ns float64
	if c, ok := p.Peaks.ComputeFor(string(w.ComputeDType()), threads); ok && c.TheoreticalGFLOPS > 0 {
		ns = w.FLOPs() / c.TheoreticalGFLOPS // FLOP / (GFLOP/s) = ns
	}
	if bw, ok := p.Peaks.PatternBandwidthFor("DRAM", workloadPattern(w), threads); ok && bw.GBPS > 0 {
		ns = max(ns, w.Bytes()/bw.GBPS)
	}
	return time.Duration(ns / estimateShare)
}
