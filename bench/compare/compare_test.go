package compare

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result/resulttest"
)

func TestCompareIdentical(t *testing.T) {
	c := Compare(resulttest.Sampled(1), resulttest.Sampled(1)).Gate(0.05)
	if len(c.Rows) != 2 { // gemm and axpy of "go"; the failed and the errored result are skipped
		t.Fatalf("%d rows, want 2: %+v", len(c.Rows), c.Rows)
	}
	for _, d := range c.Rows {
		if d.Significant || d.DeltaString() != "~" || d.Change != 0 {
			t.Errorf("%s: identical samples give %s (p=%v)", d.Key, d.DeltaString(), d.P)
		}
	}
	if err := c.GateError(); err != nil {
		t.Errorf("gate fails on identical runs: %v", err)
	}
	if len(c.Skipped) != 2 || len(c.OnlyOld) != 0 || len(c.OnlyNew) != 0 {
		t.Errorf("skipped %q, only old %v, only new %v", c.Skipped, c.OnlyOld, c.OnlyNew)
	}
	var buf bytes.Buffer
	if err := WriteComparison(&buf, c, "old.json", "new.json"); err != nil {
		t.Fatal(err)
	}
	resulttest.CheckGolden(t, "compare-same.golden", buf.Bytes())
}

func TestComparePlantedSlowdown(t *testing.T) {
	old, slow := resulttest.Sampled(1), resulttest.Sampled(1.1)
	c := Compare(old, slow).Gate(0.05)
	for _, d := range c.Rows {
		if !d.Significant || math.Abs(d.Change-0.10) > 1e-9 || d.DeltaString() != "+10.00%" {
			t.Errorf("%s: a 10%% slowdown gives %s, significant %v (p=%v)", d.Key, d.DeltaString(), d.Significant, d.P)
		}
	}
	if regs := c.Regressions(); len(regs) != 2 {
		t.Errorf("%d regressions beyond 5%%, want 2", len(regs))
	}
	err := c.GateError()
	if err == nil || !strings.Contains(err.Error(), "2 significant regression(s) beyond the 5% threshold") || strings.Contains(err.Error(), "\n") {
		t.Errorf("gate error %v", err)
	}
	if math.Abs(c.GeomeanChange-0.10) > 1e-9 {
		t.Errorf("geomean change %v, want 0.10", c.GeomeanChange)
	}
	// A threshold above the change passes; no threshold never fails.
	if err := Compare(old, slow).Gate(0.15).GateError(); err != nil {
		t.Errorf("15%% threshold: %v", err)
	}
	if err := Compare(old, slow).GateError(); err != nil {
		t.Errorf("no threshold: %v", err)
	}
	// Faster is not a regression.
	if regs := Compare(slow, old).Gate(0).Regressions(); len(regs) != 0 {
		t.Errorf("a speed-up counted as %d regressions", len(regs))
	}
	var buf bytes.Buffer
	if err := WriteComparison(&buf, c, "old.json", "slow.json"); err != nil {
		t.Fatal(err)
	}
	resulttest.CheckGolden(t, "compare-slow.golden", buf.Bytes())
}

func TestCompareUnmatchedAndTooFewSamples(t *testing.T) {
	old, new := resulttest.Sampled(1), resulttest.Sampled(1)
	new.Results[1].Shape = "1000" // axpy now another workload
	new.Results[0].SamplesNS = new.Results[0].SamplesNS[:3]
	c := Compare(old, new)
	if len(c.OnlyOld) != 1 || len(c.OnlyNew) != 1 || c.OnlyOld[0].Shape != "16777216" || c.OnlyNew[0].Shape != "1000" {
		t.Errorf("only old %v, only new %v", c.OnlyOld, c.OnlyNew)
	}
	if len(c.Rows) != 1 || len(c.Rows[0].Notes) == 0 {
		t.Fatalf("rows %+v: want one, with a note about too few samples", c.Rows)
	}
	var buf bytes.Buffer
	WriteComparison(&buf, c, "a", "b")
	for _, want := range []string{"only in old: go axpy f32 16777216 threads=2", "only in new: go axpy f32 1000 threads=2",
		"not compared: gonum gemm", "note: need"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestKeyString(t *testing.T) {
	k := Key{Backend: "go", Op: "gemm", DType: "f32", Shape: "64", Threads: 1, Cache: "cold"}
	if got := k.String(); got != "go gemm f32 64 threads=1 cache=cold" {
		t.Errorf("key %q", got)
	}
}
