package main

import (
	"io"

	"github.com/peakbench/peakbench/bench/compare"
	"github.com/peakbench/peakbench/bench/result"
)

// Exit statuses (documented in README.md and docs/reports.md):
//
//	0  every result verified (and no regression beyond -threshold)
//	1  a significant regression beyond -threshold, or the run could not
//	   finish (interrupted, peaks not measured, output not written)
//	2  bad usage: a flag, a value, a file, a size too large for the machine
//	3  a result failed verification or its backend reported an error (in
//	   a run, or in the new file of compare); -allow-failures makes it 0
const (
	exitRegression = 1
	exitUsage      = 2
	exitFailed     = 3
)

// failedResults is a run, or a comparison's new run, with results that
// failed verification or errored: exit status 3.
type failedResults struct{ msg string }

func (e failedResults) Error() string { return e.msg }

// checkResults returns failedResults when run has failed results, or when
// it has none at all (nothing was measured); with allow it reports the
// failures on stderr instead and returns nil.
func checkResults(stderr io.Writer, run *result.Run, allow bool) error {
	fs := compare.Failures(run)
	if len(fs) == 0 {
		if len(run.Results) == 0 {
			return failedResults{"no result: no backend computes the selected workloads (see -list)"}
		}
		return nil
	}
	text := compare.FailuresText(fs, len(run.Results))
	if allow {
		progressf(stderr, "%s (exit status 0: -allow-failures)", text)
		return nil
	}
	return failedResults{text + " (-allow-failures exits 0 all the same)"}
}

// joinExit combines a failure (status 3) with a gate's error (status 1):
// the failure's status wins, and the message says both.
func joinExit(failed, gate error) error {
	switch {
	case failed == nil:
		return gate
	case gate == nil:
		return failed
	}
	return failedResults{failed.Error() + "; also " + gate.Error()}
}
