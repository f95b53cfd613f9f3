package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

func TestFailures(t *testing.T) {
	fs := Failures(resulttest.Fixture())
	if len(fs) != 2 || fs[0].Reason != "FAILED verification" || fs[1].Reason != "error: out of memory" {
		t.Fatalf("Failures = %v", fs)
	}
	text := FailuresText(fs, 4)
	if !strings.HasPrefix(text, "2 of 4 result(s) failed: gonum gemm f32 512x512x512 threads=2: FAILED verification; ") {
		t.Errorf("FailuresText = %q", text)
	}
	many := append(append(fs, fs...), fs...)
	if text := FailuresText(many, 9); !strings.HasSuffix(text, "; and 3 more") {
		t.Errorf("FailuresText of 6 = %q", text)
	}
}

// TestGateWithNothingToCompare: an empty new run, or one whose every
// result failed, fails the gate instead of passing it.
func TestGateWithNothingToCompare(t *testing.T) {
	old := resulttest.Sampled(1)
	empty := resulttest.Sampled(1)
	empty.Results = nil
	allFailed := resulttest.Sampled(1)
	for i := range allFailed.Results {
		allFailed.Results[i].Verified = false
	}
	for name, nw := range map[string]*result.Run{"empty": empty, "all failed": allFailed} {
		c := Compare(old, nw).Gate(0.05)
		err := c.GateError()
		if err == nil || !strings.Contains(err.Error(), "no result could be compared") {
			t.Errorf("%s: GateError = %v", name, err)
		}
		var buf bytes.Buffer
		WriteComparison(&buf, c, "old", "new")
		if !strings.Contains(buf.String(), "FAIL: no result compared") {
			t.Errorf("%s: output lacks the verdict:\n%s", name, buf.String())
		}
		if c := Compare(old, nw); c.GateError() != nil {
			t.Errorf("%s: ungated comparison fails: %v", name, c.GateError())
		}
	}
	if c := Compare(old, allFailed); len(c.NewFailures) != 4 || c.NewTotal != 4 {
		t.Errorf("all failed: %d failures of %d", len(c.NewFailures), c.NewTotal)
	}
}
