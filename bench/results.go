package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/internal/atomicfile"
	"github.com/peakbench/peakbench/bench/report"
	"github.com/peakbench/peakbench/bench/result"
)

// -results-dir: every run also leaves DIR/<machine>-<date>.json (the
// record: report, compare and -baseline read it) and .html (the report a
// person opens), as Criterion leaves its report; make bench writes them
// under results/ (git-ignored).

// checkResultsDir creates dir when missing and refuses one that cannot
// take files, before anything is measured.
func checkResultsDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %v", dir, oneLineErr(err))
	}
	f, err := os.CreateTemp(dir, ".peakbench-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %v", dir, oneLineErr(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// oneLineErr drops the path an *os.PathError repeats.
func oneLineErr(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// machineSlug names the machine in a file name: the CPU's model without
// trademarks, and its CPU count ("intel-xeon-processor-2cpu").
func machineSlug(run *result.Run) string {
	m := strings.ToLower(run.Machine.Model)
	for _, tm := range []string{"(r)", "(tm)", "cpu @", " cpu ", "processor"} {
		m = strings.ReplaceAll(m, tm, " ")
	}
	m = strings.Trim(nonSlug.ReplaceAllString(m, "-"), "-")
	if m == "" {
		m = "machine"
	}
	return fmt.Sprintf("%s-%dcpu", m, run.Machine.CPUs)
}

// resultsBase is DIR/<machine>-<date>, the date the run's start to the
// second (UTC), so runs of one day do not overwrite each other.
func resultsBase(dir string, run *result.Run) string {
	start, err := time.Parse(time.RFC3339, run.Env.Start)
	if err != nil {
		start = time.Now()
	}
	return filepath.Join(dir, machineSlug(run)+"-"+start.UTC().Format("2006-01-02T150405Z"))
}

// writeResultsDir writes the run's JSON and HTML under dir and returns
// their paths.
func writeResultsDir(dir string, run *result.Run) ([]string, error) {
	base := resultsBase(dir, run)
	var paths []string
	for _, f := range []struct{ ext, format string }{{".json", "json"}, {".html", "html"}} {
		path := base + f.ext
		err := atomicfile.WriteFileAtomic(path, func(out *os.File) error { return report.Write(out, run, f.format) })
		if err != nil {
			return paths, fmt.Errorf("-results-dir: %v", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
