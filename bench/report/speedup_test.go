package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result"
)

// The -vs column and section: the speedups (bench/compare) as the table
// and Markdown show them, and nothing without -vs.
func TestSpeedupsPrinted(t *testing.T) {
	res := func(backend, op string, ns float64, verified bool) result.Result {
		return result.Result{Backend: backend, Op: op, DType: "f32", Shape: "8", Threads: 1, Cache: "hot", MedianNS: ns, Verified: verified}
	}
	run := &result.Run{Vs: "torch", Results: []result.Result{
		res("torch", "add", 200, true), res("asm", "add", 100, true), res("numpy", "add", 400, true),
		res("torch", "exp", 300, true), res("asm", "exp", 100, true), res("numpy", "exp", 300, false),
		res("torch", "dot", 100, false), res("asm", "dot", 50, true), // no verified base: no speedup
	}}
	var b bytes.Buffer
	if err := writeTable(&b, run); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"VS TORCH", "2.00×", "base", "Speedup over torch", "geometric mean", "2.45× (2)", "0.50× (1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := writeMarkdown(&b, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "### Speedup over torch") || !strings.Contains(b.String(), "| vs torch |") {
		t.Errorf("markdown lacks the -vs section or column:\n%s", b.String())
	}
	run.Vs = ""
	b.Reset()
	writeTable(&b, run)
	if strings.Contains(b.String(), "VS ") || strings.Contains(b.String(), "Speedup") {
		t.Error("a run without -vs shows speedups")
	}
}
