package result_test

import (
	"testing"

	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

func TestSummarize(t *testing.T) {
	run := resulttest.Fixture()
	faster := run.Results[0]
	faster.Backend, faster.MedianNS = "blis", 1e6
	run.Results = append(run.Results, faster)
	bs := result.Summarize(run)
	if len(bs) != 3 {
		t.Fatalf("%d workloads, want 3", len(bs))
	}
	g := bs[0]
	if g.Best.Backend != "blis" || g.Next.Backend != "go" || g.Correct != 2 || g.Tried != 3 || g.Speedup() != 2.1 {
		t.Errorf("gemm best %s next %s, %d/%d correct, %.2f×", g.Best.Backend, g.Next.Backend, g.Correct, g.Tried, g.Speedup())
	}
	if bs[2].Best != nil {
		t.Errorf("dot: best %v, want none (it could not run)", bs[2].Best.Backend)
	}
}
