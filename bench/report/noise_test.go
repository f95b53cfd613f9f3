package report

import (
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

// TestNoisyFooterNamesSteal: the footer's count of noisy results says how
// many of them the hypervisor's steal explains (the steal finding), with
// its range, and says nothing of it where none has the finding.
func TestNoisyFooterNamesSteal(t *testing.T) {
	run := resulttest.Fixture()
	for i := range run.Results[:3] {
		run.Results[i].Noisy = true
	}
	noisyLine := func() string {
		for _, l := range footer(run) {
			if strings.Contains(l, "noisy") {
				return l
			}
		}
		return ""
	}
	if l := noisyLine(); !strings.HasPrefix(l, "3 result(s) noisy") || strings.Contains(l, "hypervisor") {
		t.Errorf("without steal: %q", l)
	}
	steal := func(r *result.Result, share float64) {
		r.Host = &result.HostUse{Steal: share}
		r.Findings = append(r.Findings, result.Finding{Code: diagnose.CodeSteal})
	}
	steal(&run.Results[0], 0.12)
	steal(&run.Results[1], 0.441)
	steal(&run.Results[3], 0.9) // not noisy: not counted
	want := "The hypervisor took 12.0–44.1% of the CPUs' time during 2 of them (finding steal)"
	if l := noisyLine(); !strings.Contains(l, want) {
		t.Errorf("footer line %q, want it to contain %q", l, want)
	}
}
