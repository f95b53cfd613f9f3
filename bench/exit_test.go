package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/compare"
	"github.com/peakbench/peakbench/bench/internal/atomicfile"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/report"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
)

// faultyBackend gets axpy wrong (zeros) and cannot prepare dot.
type faultyBackend struct{}

func (faultyBackend) Name() string            { return "faultytest" }
func (faultyBackend) Device() platform.Device { return platform.HostCPU() }
func (faultyBackend) Info() backend.Info      { return backend.Info{Version: "test"} }
func (faultyBackend) Close() error            { return nil }
func (faultyBackend) Prepare(w workload.Workload, _ workload.Data, _ backend.Config) (backend.Kernel, error) {
	switch w.Op {
	case workload.AXPY:
		return zeroKernel{w.OutputLen()}, nil
	case workload.Dot:
		return nil, errors.New("faultytest: dot failed")
	}
	return nil, backend.Unsupported("faultytest", w)
}

type zeroKernel struct{ n int }

func (k zeroKernel) Run(iters int) (time.Duration, error) {
	return time.Duration(iters) * time.Microsecond, nil
}
func (k zeroKernel) Output() ([]float64, error) { return make([]float64, k.n), nil }
func (k zeroKernel) Close() error               { return nil }

var registerFaulty sync.Once

// TestFailedResultsExitThree runs a backend that computes a wrong answer
// and one that errors: exit status 3, one line naming them, the JSON
// written with every result, and no baseline saved.
func TestFailedResultsExitThree(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	registerFaulty.Do(func() {
		backend.Register(backend.Factory{Name: "faultytest", Description: "test only",
			Open: func(backend.OpenOptions) (backend.Backend, error) { return faultyBackend{}, nil }})
	})
	dir := t.TempDir()
	t.Setenv(compare.BaselineEnv, dir)
	path := filepath.Join(dir, "out.json")
	_, stderr, code := runArgs(t, "-backend=go,faultytest", "-op=axpy,dot", "-dtype=f32", "-size=1000",
		"-threads=1", "-min-time=1ms", "-suite=quick", "-format=json", "-o="+path, "-save-baseline=main")
	last := lastLine(stderr)
	if code != 3 || !strings.Contains(last, "2 of 4 result(s) failed") || !strings.Contains(last, "faultytest axpy f32 1000 threads=1: FAILED verification") ||
		!strings.Contains(last, "faultytest dot f32 1000 threads=1: error: faultytest: dot failed") {
		t.Fatalf("exit %d, last line %q", code, last)
	}
	if !strings.Contains(stderr, "baseline main not saved") {
		t.Errorf("stderr does not say the baseline was not saved:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "main.json")); err == nil {
		t.Error("a failed run was saved as baseline")
	}
	var run result.Run
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &run); err != nil || len(run.Results) != 4 {
		t.Fatalf("output: %d results, %v", len(run.Results), err)
	}
	// compare: the same failures in the new file exit 3, or 0 when allowed.
	_, stderr, code = runArgs(t, "compare", path, path)
	if code != 3 || !strings.Contains(lastLine(stderr), "2 of 4 result(s) failed") {
		t.Errorf("compare with failures in new: exit %d, %q", code, stderr)
	}
	if _, stderr, code = runArgs(t, "compare", "-allow-failures", path, path, "-threshold=5%"); code != 0 {
		t.Errorf("compare -allow-failures: exit %d, %q", code, stderr)
	}
}

// TestAfterRun: the exit status of a finished run and when its baseline is
// saved, without measuring anything.
func TestAfterRun(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(compare.BaselineEnv, dir)
	load := func(name string) *result.Run {
		run, err := result.Load(savedRun(t, dir, name, map[string]float64{"good.json": 1, "slow.json": 1.2}[name]))
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	good, slow := load("good.json"), load("slow.json")
	broken := load("good.json")
	broken.Results[1].Verified = false
	for _, c := range []struct {
		name     string
		run      *result.Run
		allow    bool
		baseline bool // compare with good, -threshold 5%
		code     int
		saved    bool
	}{
		{"verified", good, false, false, 0, true},
		{"verified, gate passes", good, false, true, 0, true},
		{"regression", slow, false, true, 1, false},
		{"failed", broken, false, false, 3, false},
		{"failed, allowed", broken, true, false, 0, true},
		{"failed and gate", broken, false, true, 3, false},
		{"empty", &result.Run{Format: result.Format}, false, false, 3, false},
		{"empty, allowed and gated", &result.Run{Format: result.Format}, true, true, 3, false},
	} {
		os.Remove(filepath.Join(dir, "new.json"))
		cfg := &config{format: "table", allowFail: c.allow}
		b := &baselineFlags{save: "new"}
		if c.baseline {
			b.compare, b.old, b.gate, b.gated = "good", good, 0.05, true
		}
		var stderr strings.Builder
		code := exitCode(&stderr, b.after(io.Discard, &stderr, cfg, c.run))
		_, err := os.Stat(filepath.Join(dir, "new.json"))
		if code != c.code || (err == nil) != c.saved {
			t.Errorf("%s: exit %d (want %d), saved %v (want %v); stderr:\n%s", c.name, code, c.code, err == nil, c.saved, stderr.String())
		}
	}
}

// TestCompareGateFailsWithoutComparableResults: compare -threshold fails
// when the new run is empty (1), or all its results errored or failed (3).
func TestCompareGateFailsWithoutComparableResults(t *testing.T) {
	dir := t.TempDir()
	old := savedRun(t, dir, "old.json", 1)
	write := func(name string, edit func(r *result.Result)) string {
		run, err := result.Load(old)
		if err != nil {
			t.Fatal(err)
		}
		if edit == nil {
			run.Results = nil
		}
		for i := range run.Results {
			edit(&run.Results[i])
		}
		path := filepath.Join(dir, name)
		if err := atomicfile.WriteFileAtomic(path, func(f *os.File) error { return report.Write(f, run, "json") }); err != nil {
			t.Fatal(err)
		}
		return path
	}
	empty := write("empty.json", nil)
	failed := write("failed.json", func(r *result.Result) { r.Verified = false })
	errored := write("errored.json", func(r *result.Result) { r.Error, r.SamplesNS = "crashed", nil })
	for _, c := range []struct {
		file string
		code int
		want string
	}{
		{empty, 1, "no result could be compared"},
		{failed, 3, "2 of 2 result(s) failed"},
		{errored, 3, "error: crashed"},
	} {
		out, stderr, code := runArgs(t, "compare", old, c.file, "-threshold=5%")
		if code != c.code || !strings.Contains(lastLine(stderr), c.want) || !strings.Contains(out, "FAIL: no result compared") {
			t.Errorf("%s: exit %d (want %d), stderr %q, output:\n%s", filepath.Base(c.file), code, c.code, stderr, out)
		}
	}
}

// TestSayStopping: a signal is answered at once, before the call in
// progress ends, and gives the signals their default back (a second
// Ctrl-C ends the process); a run that ends by itself says nothing.
func TestSayStopping(t *testing.T) {
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	cancel()
	defer noteStop(stopNothingYet)
	noteStop(stopJournal, "x.journal")
	sayStopping(ctx, make(chan struct{}), func() { close(stopped) }, &out)
	select {
	case <-stopped:
	default:
		t.Error("the signals' default was not given back")
	}
	if !strings.HasPrefix(out.String(), "peakbench: stopping: the call in progress finishes") || !strings.Contains(out.String(), "a second Ctrl-C ends it now") {
		t.Errorf("said %q", out.String())
	}
	out.Reset()
	finished := make(chan struct{})
	close(finished)
	sayStopping(context.Background(), finished, func() { t.Error("stop called for a run that finished") }, &out)
	// main closes finished, then cancels the context (its stop): both are
	// ready when the goroutine looks.
	sayStopping(ctx, finished, func() { t.Error("stop called for a run that finished") }, &out)
	if out.Len() != 0 {
		t.Errorf("a finished run said %q", out.String())
	}
}

// stopLine is what a signal's line says at this moment of the run.
func stopLine() string {
	var b bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sayStopping(ctx, make(chan struct{}), func() {}, &b)
	return b.String()
}

// TestStopLineSaysWhatIsTrue: the line a signal prints promises -resume
// and a journal only while the run has one; -tune names its tune file, and
// a run stopped before its first workload (the peaks being measured) says
// there is nothing to resume. It promised the journal in every case.
func TestStopLineSaysWhatIsTrue(t *testing.T) {
	defer noteStop(stopNothingYet)
	cfg := tuneConfig(t, 2*time.Second)
	var stderr bytes.Buffer
	var during string
	if err := tuneWith(context.Background(), &stderr, cfg, func() []tuneSearch { return tinySearches()[:1] }, func(string) { during = stopLine() }); err != nil {
		t.Fatalf("%v\n%s", err, &stderr)
	}
	if !strings.Contains(during, "written to "+cfg.tuneFile) || strings.Contains(during, "journal") || strings.Contains(during, "-resume") {
		t.Errorf("during -tune: %q", during)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the peaks are the first thing a run measures
	var out, errb bytes.Buffer
	err := run(ctx, &out, &errb, []string{"-backend=go", "-op=axpy", "-dtype=f32", "-size=1000", "-threads=1", "-min-time=1ms", "-suite=quick"})
	if err == nil || !strings.Contains(err.Error(), "measuring peaks") {
		t.Fatalf("err = %v, want the peaks interrupted\n%s", err, &errb)
	}
	if l := stopLine(); !strings.Contains(l, "no journal to resume") || strings.Contains(l, "-resume") {
		t.Errorf("before the first workload: %q", l)
	}

	if testing.Short() {
		return // the rest measures peaks
	}
	path := filepath.Join(t.TempDir(), "out.json")
	var measuring string
	progressHook = func() { measuring = stopLine() }
	defer func() { progressHook = nil }()
	out.Reset()
	errb.Reset()
	if err := run(context.Background(), &out, &errb, []string{"-backend=go", "-op=axpy", "-dtype=f32", "-size=1000", "-threads=1", "-min-time=1ms", "-suite=quick", "-format=json", "-o=" + path}); err != nil {
		t.Fatalf("%v\n%s", err, &errb)
	}
	if !strings.Contains(measuring, "-resume "+path+".journal continues") {
		t.Errorf("while measuring: %q", measuring)
	}
}

// TestSaveBaselineFolderCheckedFirst: a baseline folder that cannot be
// made is a usage error before anything is measured, naming the folder and
// the variable that sets it; it failed after the whole run.
func TestSaveBaselineFolderCheckedFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PEAKBENCH_BASELINES", filepath.Join(file, "baselines")) // below a file
	_, stderr, code := runArgs(t, "-backend=go", "-op=dot", "-size=1Ki", "-save-baseline=x")
	if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "-save-baseline: mkdir "+file) ||
		!strings.Contains(stderr, "PEAKBENCH_BASELINES sets the folder") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
