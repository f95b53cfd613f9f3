package report

import (
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result"
)

// TestQuantColumn: the accuracy column appears with the first result that
// has a quantization error, reads SQNR and max error, "exact" without
// noise, and nothing for the other results.
func TestQuantColumn(t *testing.T) {
	sqnr, maxErr, zero := 48.07, 0.0039, 0.0
	run := &result.Run{Results: []result.Result{
		{Backend: "asm", Op: "quantize", DType: "i8", Shape: "1024", Verified: true, QuantSQNRdB: &sqnr, QuantMaxAbsErr: &maxErr},
		{Backend: "asm", Op: "widen", DType: "bf16", Shape: "1024", Verified: true, QuantMaxAbsErr: &zero},
		{Backend: "asm", Op: "exp", DType: "f32", Shape: "1024", Verified: true},
	}}
	if h, ok := quantCell(run, nil); !ok || h != "accuracy" {
		t.Fatalf("header %q, %v", h, ok)
	}
	for i, want := range []string{"48.1 dB, max 0.00390", "exact", ""} {
		if got, _ := quantCell(run, &run.Results[i]); got != want {
			t.Errorf("result %d: %q, want %q", i, got, want)
		}
	}
	if _, ok := quantCell(&result.Run{Results: run.Results[2:]}, nil); ok {
		t.Error("accuracy column in a run without quantization results")
	}
	var b strings.Builder
	if err := writeCSV(&b, run); err != nil || !strings.Contains(b.String(), ",48.07,0.0039") {
		t.Errorf("CSV lacks the quantization fields: %v\n%s", err, b.String())
	}
}
