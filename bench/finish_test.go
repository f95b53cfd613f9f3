package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

// TestFinishRunChecksCodePathsWithResults: the code paths are checked at
// the run's end, with its results, which can show a path's reach wrong (a
// check before anything is measured, as main made one, cannot). MKL's def
// path on the Zen 5 VM allows 12.5% of the FMA peak, and its SGEMM reached
// 35%.
func TestFinishRunChecksCodePathsWithResults(t *testing.T) {
	rep := &result.Run{
		Machine:  peak.Machine{Vendor: "AuthenticAMD", Arch: "amd64", SIMDBits: 512, FMAUnits: 2, Features: []string{"fma"}},
		Backends: []result.BackendInfo{{Name: "mkl", Device: "cpu", Available: true, Info: backend.Info{Details: map[string]string{"code_path": "def"}}}},
	}
	diagnose.CheckCodePaths(rep) // a finding made without results, to be replaced
	r := result.Result{Backend: "mkl", Device: "cpu", Op: "gemm", DType: "f32", Shape: "1024x1024x1024", Threads: 2, Verified: true, FLOPs: 2 << 30, Intensity: 170, GFLOPS: 170, MedianNS: (2 << 30) / 170.0}
	r.Ceilings(peak.ComputePeak{DType: "f32", Unit: peak.UnitFMA, Threads: 2, TheoreticalGFLOPS: 480}, peak.BandwidthPeak{Level: "L3", GBPS: 100})
	rep.Results = []result.Result{r}
	var out, stderr bytes.Buffer
	if err := finishRun(&out, &stderr, &config{format: "json"}, rep); err != nil {
		t.Fatal(err)
	}
	if f := rep.Backends[0].Findings; len(f) != 1 || !strings.Contains(f[0].Text, "Not every routine is held to it: gemm f32 1024x1024x1024 on 2 threads reached 35.4%") {
		t.Errorf("mkl's finding: %+v", f)
	}
	for _, f := range rep.Results[0].Findings {
		if f.Code == diagnose.CodeCodePath {
			t.Errorf("a result past its path's reach has the code-path finding: %s", f.Text)
		}
	}
}
