package compare

import (
	"fmt"
	"strings"

	"github.com/peakbench/peakbench/bench/result"
)

// Failure is a result that did not produce a verified measurement: it
// failed verification, or its backend reported an error.
type Failure struct {
	Key
	Reason string // "FAILED verification" or "error: …"
}

func (f Failure) String() string { return f.Key.String() + ": " + f.Reason }

// Failures lists the results of run that failed verification or errored.
func Failures(run *result.Run) []Failure {
	var out []Failure
	for i := range run.Results {
		r := &run.Results[i]
		switch {
		case r.Error != "":
			out = append(out, Failure{KeyOf(r), "error: " + r.Error})
		case !r.Verified:
			out = append(out, Failure{KeyOf(r), "FAILED verification"})
		}
	}
	return out
}

// FailuresText says in one line how many of total results failed and
// names the first few.
func FailuresText(fs []Failure, total int) string {
	var names []string
	for i, f := range fs {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(fs)-3))
			break
		}
		names = append(names, f.String())
	}
	return fmt.Sprintf("%d of %d result(s) failed: %s", len(fs), total, strings.Join(names, "; "))
}
