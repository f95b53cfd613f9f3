// Package journal keeps a run's results on disk as they are measured, so
// that a run stopped by Ctrl-C, SIGKILL or a crash loses nothing it
// finished, and can be continued (-resume).
//
// A journal is a JSON-lines file: a header (the configuration, the machine
// and the peaks measured at the start), then one line per workload and
// thread count with the results of every backend on it (the harness
// measures a workload's backends interleaved, so they finish together),
// each line written with one write and synced before the next workload
// starts. A line cut short by a crash is ignored on reading and cut off
// when the journal is continued.
package journal

import "github.com/peakbench/peakbench/bench/result"

// Format names the journal's layout; it changes when a line changes
// meaning.
const Format = "peakbench-journal/v1"

// Header is a journal's first line.
type Header struct {
	Journal string `json:"journal"` // Format
	// Config is what a run resuming this one must match (-resume), as
	// flag names and values ("-threads": "1,2"; "version": …).
	Config map[string]string `json:"config"`
	// Workloads are the run's workloads in order (workload.String), to
	// match whatever the flags expand to.
	Workloads []string `json:"workloads"`
	// Run is the run without its results: machine, peaks, environment
	// and backends as measured and opened at its start.
	Run result.Run `json:"run"`
}

// Line is every line after the header: one of a workload's results, a
// resumption, or the end of the run.
type Line struct {
	// Workload (workload.String) and Threads name a finished workload;
	// Results are its results, one per backend (and algorithm), none when
	// no backend computes it.
	Workload string          `json:"workload,omitempty"`
	Threads  int             `json:"threads,omitempty"`
	Results  []result.Result `json:"results,omitempty"`
	// Resumed is when a run continued this journal (RFC 3339).
	Resumed string `json:"resumed,omitempty"`
	// Finished marks a run that measured every workload and wrote its
	// output.
	Finished bool `json:"finished,omitempty"`
}

// Key names a workload at a thread count.
type Key struct {
	Workload string
	Threads  int
}
