package chart

import (
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

// TestAccuracyChart: a quantization op's results that carry their SQNR get
// an accuracy-against-speed chart beside their share chart, a point per
// verified result; an op without SQNR gets none.
func TestAccuracyChart(t *testing.T) {
	run := resulttest.Fixture()
	sqnr := []float64{38.7, 55.6}
	for i, dt := range []string{"i8", "bf16"} {
		r := result.Result{Backend: "asm", Device: "cpu", Op: "quantize", DType: dt, Shape: "1048576", Threads: 1,
			MedianNS: 1e5, GBPS: 20 + float64(i), GFLOPS: 10, Verified: true, QuantSQNRdB: &sqnr[i]}
		run.Results = append(run.Results, r)
	}
	failed := 10.0
	run.Results = append(run.Results, result.Result{Backend: "go", Device: "cpu", Op: "quantize", DType: "i8", Shape: "1048576",
		Threads: 1, MedianNS: 1e5, GBPS: 2, QuantSQNRdB: &failed}) // not verified: not drawn
	rc := ForRun(run, NewPalette(run), "")
	var titles []string
	var acc *Chart
	for i, c := range rc.Shares {
		titles = append(titles, c.Title)
		if strings.HasPrefix(c.Title, "quantize: accuracy") {
			acc = &rc.Shares[i]
		}
	}
	if acc == nil {
		t.Fatalf("no accuracy chart among %q", titles)
	}
	for _, title := range titles {
		if strings.Contains(title, "accuracy") && !strings.HasPrefix(title, "quantize") {
			t.Errorf("accuracy chart for an op without SQNR: %q", title)
		}
	}
	svg, err := acc.SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SQNR", "GB/s", "i8 1048576", "bf16 1048576", ">asm<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("accuracy chart lacks %q", want)
		}
	}
	if strings.Contains(svg, ">go<") {
		t.Error("an unverified result is drawn")
	}
}
