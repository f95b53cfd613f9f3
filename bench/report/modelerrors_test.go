package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

// checkedFixture is resulttest.Fixture() with what the checks find planted in it: a
// gemm above its compute bound, a result marked for clock drift, a clock
// that drifted by the end, and a library on a path narrower than the
// machine. The golden files are written from it.
func checkedFixture() *result.Run {
	run := resulttest.Fixture()
	run.Machine.Features = []string{"avx2", "fma"}
	run.Peaks.Clocks = []peak.ClockReading{{Threads: 2, GHz: 3.05, Kernel: "add-chain"}}
	over := run.Results[0]
	over.Backend, over.Spread = "asm", 0.005
	over.SamplesNS, over.MedianNS = []float64{9.8e5, 9.82e5, 9.85e5}, 9.82e5
	over.GFLOPS, over.GBPS = over.FLOPs/over.MedianNS, over.Bytes/over.MedianNS
	over.Ceilings(run.Peaks.Compute[0], run.Peaks.Bandwidth[0])
	over.Footprint = over.Bytes
	results := []result.Result{run.Results[0], over}
	results = append(results, run.Results[1:]...)
	run.Results = results
	run.Results[2].ClockDrift = &result.ClockDrift{StartGHz: 3.05, BeforeGHz: 3.04, AfterGHz: 2.81, Drift: 2.81/3.05 - 1}
	run.ClockEnd = []result.ClockCheck{{Threads: 2, Kernel: "add-chain", StartGHz: 3.05, EndGHz: 2.83, Drift: 2.83/3.05 - 1,
		MinGHz: 2.81, MaxGHz: 3.06, Checks: 4, Marked: 1}}
	run.Backends = append(run.Backends, result.BackendInfo{Name: "openblas", Device: "cpu", Available: true,
		Info: backend.Info{Version: "0.3.21", Details: map[string]string{"code_path": "Nehalem", "config": "OpenBLAS 0.3.21 DYNAMIC_ARCH Nehalem"}}})
	diagnose.CheckCodePaths(run)
	run.ModelErrors = diagnose.CheckModel(run)
	return run
}

// TestModelErrorsInEveryOutput checks that a planted model error reaches
// the JSON, the table, Markdown and HTML, and that a clean run says nothing.
func TestModelErrorsInEveryOutput(t *testing.T) {
	run := checkedFixture()
	if len(run.ModelErrors) != 1 || run.ModelErrors[0].Backend != "asm" {
		t.Fatalf("model errors %+v, want the planted asm gemm", run.ModelErrors)
	}
	var buf bytes.Buffer
	if err := Write(&buf, run, "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ModelErrors []map[string]any `json:"model_errors"`
		ClockEnd    []map[string]any `json:"clock_end"`
		Backends    []struct {
			Name     string           `json:"name"`
			Findings []result.Finding `json:"findings"`
		} `json:"backends"`
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.ModelErrors) != 1 {
		t.Fatalf("JSON has %d model_errors", len(doc.ModelErrors))
	}
	for _, k := range []string{"backend", "op", "dtype", "shape", "threads", "share", "limit", "spread", "bound", "bound_gflops", "compute_formula", "cause", "text"} {
		if _, ok := doc.ModelErrors[0][k]; !ok {
			t.Errorf("model_errors[0] lacks %q", k)
		}
	}
	if len(doc.ClockEnd) != 1 || doc.ClockEnd[0]["end_ghz"] != 2.83 {
		t.Errorf("clock_end %v", doc.ClockEnd)
	}
	if _, ok := doc.Results[2]["clock_drift"]; !ok {
		t.Errorf("result 2 lacks clock_drift: %v", doc.Results[2])
	}
	if f := doc.Backends[2].Findings; doc.Backends[2].Name != "openblas" || len(f) != 1 || f[0].Code != diagnose.CodeCodePath || !strings.Contains(f[0].Remedy, "OPENBLAS_CORETYPE=Zen") {
		t.Errorf("openblas findings %+v", f)
	}
	for _, format := range []string{"table", "md", "html"} {
		buf.Reset()
		if err := Write(&buf, run, format); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{"MODEL ERROR", "asm gemm f32 512x512x512, 2 threads", "CLOCK DRIFT", "OPENBLAS_CORETYPE=Zen"} {
			if format == "html" {
				want = strings.NewReplacer("MODEL ERROR", "Model error", "CLOCK DRIFT", "drifted beyond the noise target").Replace(want)
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q", format, want)
			}
		}
	}

	clean := resulttest.Fixture()
	clean.ModelErrors = diagnose.CheckModel(clean)
	if len(clean.ModelErrors) != 0 || len(diagnose.CheckLines(clean)) != 0 {
		t.Errorf("a clean run has checks to report: %+v %q", clean.ModelErrors, diagnose.CheckLines(clean))
	}
	buf.Reset()
	Write(&buf, clean, "json")
	if strings.Contains(buf.String(), "model_errors") || strings.Contains(buf.String(), "clock_drift") {
		t.Error("a clean run's JSON has model_errors or clock_drift")
	}
}
