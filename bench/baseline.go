package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/peakbench/peakbench/bench/compare"
	"github.com/peakbench/peakbench/bench/internal/atomicfile"
	"github.com/peakbench/peakbench/bench/result"
)

// baselineFlags are -save-baseline, -baseline and -threshold: save this run
// for later, and compare it with a run saved before.
type baselineFlags struct {
	save, compare string
	threshold     string
	gate          float64 // parsed -threshold
	gated         bool
	old           *result.Run // the baseline, loaded before the run
	oldPath       string
}

func registerBaselineFlags(fs *flag.FlagSet) *baselineFlags {
	b := &baselineFlags{}
	dir, err := compare.BaselineDir()
	if err != nil {
		dir = "$" + compare.BaselineEnv
	}
	fs.StringVar(&b.save, "save-baseline", "", "also save this run's JSON as baseline `NAME` (letters, digits, . _ -) in "+dir+" ($"+compare.BaselineEnv+" overrides)")
	fs.StringVar(&b.compare, "baseline", "", "after the run, compare it with the baseline saved as `NAME` (Mann-Whitney U per result)")
	fs.StringVar(&b.threshold, "threshold", "", "with -baseline: exit 1 when a significant slowdown exceeds this `PERCENT` (e.g. 5%)")
	return b
}

// check validates the flags (bad input: a usage error).
func (b *baselineFlags) check(cfg *config) error {
	for _, f := range []struct{ flag, name string }{{"-save-baseline", b.save}, {"-baseline", b.compare}} {
		if f.name == "" {
			continue
		}
		if err := compare.CheckBaselineName(f.name); err != nil {
			return usagef("%s: %v", f.flag, err)
		}
		if cfg.peak || cfg.list {
			return usagef("%s needs a benchmark run, not -peak or -list", f.flag)
		}
	}
	if b.threshold != "" {
		if b.compare == "" {
			return usagef("-threshold needs -baseline NAME (or use: peakbench compare OLD.json NEW.json -threshold %s)", b.threshold)
		}
		t, err := parseThreshold(b.threshold)
		if err != nil {
			return usagef("-threshold: %v", err)
		}
		b.gate, b.gated = t, true
	}
	return nil
}

// load reads the baseline to compare with before the run, so that a
// missing one fails at once rather than after the measurements.
func (b *baselineFlags) load() error {
	if b.save != "" {
		// Where the run will be saved is checked now, as -o is: a folder
		// that cannot be made or written failed only after the run.
		path, err := compare.BaselinePath(b.save)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o755)
			if err == nil {
				err = atomicfile.CheckWritable(path)
			}
		}
		if err != nil {
			return usagef("-save-baseline: %v (%s sets the folder)", err, compare.BaselineEnv)
		}
	}
	if b.compare == "" {
		return nil
	}
	old, path, err := compare.LoadBaseline(b.compare)
	if err != nil {
		return usagef("-baseline: %v", err)
	}
	b.old, b.oldPath = old, path
	return nil
}

// after judges the finished run and saves and compares it. The run fails
// when a result failed (exit status 3, unless -allow-failures) or when the
// comparison with -baseline fails -threshold (exit status 1); a run that
// fails is not saved as a baseline, so a regressed or broken run never
// replaces the good one it was checked against. The comparison follows the
// normal output on standard output, or goes to standard error when
// standard output carries a machine-readable format (json, csv, gobench,
// html).
func (b *baselineFlags) after(stdout, stderr io.Writer, cfg *config, run *result.Run) error {
	failed := checkResults(stderr, run, cfg.allowFail) // exit.go
	var gate error
	if b.old != nil {
		w := stdout
		if cfg.output == "" && cfg.format != "table" && cfg.format != "md" {
			w = stderr
		}
		c := compare.Compare(b.old, run)
		if b.gated {
			c.Gate(b.gate)
		}
		fmt.Fprintln(w)
		if err := compare.WriteComparison(w, c, "baseline "+b.compare+": "+compare.RunLabel(b.old, b.oldPath),
			"this run: "+compare.RunLabel(run, "")); err != nil {
			return err
		}
		gate = c.GateError()
	}
	if b.save != "" {
		if failed != nil || gate != nil {
			progressf(stderr, "baseline %s not saved: this run failed", b.save)
		} else {
			path, err := compare.SaveBaseline(b.save, run)
			if err != nil {
				return err
			}
			progressf(stderr, "saved baseline %s to %s", b.save, path)
		}
	}
	return joinExit(failed, gate)
}

// parseThreshold reads "5%" or "0.05" (a fraction); 0 fails on any
// significant slowdown.
func parseThreshold(s string) (float64, error) {
	v, isPct := strings.CutSuffix(strings.TrimSpace(s), "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || math.IsNaN(f) || f > 1e6 {
		return 0, fmt.Errorf("%q is not a percentage such as 5%% or a fraction such as 0.05", s)
	}
	if isPct {
		return f / 100, nil
	}
	if f >= 1 {
		return 0, fmt.Errorf("%q is ambiguous: write %s%% for a percentage, or a fraction below 1", s, v)
	}
	return f, nil
}
