package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/journal"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
)

// resumeBackends are the backends of the SIGKILL test: a C library and the
// Go kernels when OpenBLAS is installed, else two Go backends.
func resumeBackends() string {
	if f, err := backend.Lookup("openblas"); err == nil {
		if b, err := f.Open(backend.OpenOptions{}); err == nil {
			b.Close()
			return "go,openblas"
		}
	}
	return "go,gonum"
}

// A run killed with SIGKILL after some workloads keeps them in its
// journal; -resume measures the rest, and the output holds every
// (backend, workload) exactly once, those from before the kill as they
// were measured.
func TestResumeAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds peakbench and measures peaks")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "peakbench")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out.json")
	journalFile := out + ".journal"
	args := []string{"-suite=quick", "-backend=" + resumeBackends(), "-op=axpy,gemm", "-threads=1", "-min-time=5ms", "-format=json", "-o=" + out}

	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	const killAfter = 2 // workloads in the journal
	deadline := time.After(3 * time.Minute)
poll:
	for {
		select {
		case err := <-exited:
			t.Fatalf("the run ended (%v) before %d workloads were in its journal: nothing to resume\n%s", err, killAfter, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("no %d workloads in the journal after 3 minutes\n%s", killAfter, stderr.String())
		case <-time.After(50 * time.Millisecond):
			if j, err := journal.Read(journalFile); err == nil && len(j.Done) >= killAfter {
				cmd.Process.Signal(syscall.SIGKILL)
				break poll
			}
		}
	}
	<-exited
	before, err := journal.Read(journalFile)
	if err != nil {
		t.Fatalf("journal after SIGKILL: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the killed run wrote its output: it was not killed mid-suite")
	}
	sel := workload.Selection{Suite: "quick", Ops: []workload.Op{workload.AXPY, workload.GEMM}}
	all, err := workload.Expand(sel)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Done) >= len(all) {
		t.Fatalf("the journal holds all %d workloads: the kill came too late", len(all))
	}
	t.Logf("killed with %d of %d workloads in the journal", len(before.Done), len(all))

	resume := exec.Command(bin, append(args, "-resume="+journalFile)...)
	resume.Env = cmd.Env
	if b, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, b)
	} else if !strings.Contains(string(b), fmt.Sprintf("%d of %d workloads done", len(before.Done), len(all))) {
		t.Errorf("resume did not say what it kept:\n%s", b)
	}
	run, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ backend, workload string }
	seen := map[key]int{}
	for _, r := range run.Results {
		seen[key{r.Backend, r.Op + " " + r.DType + " " + r.Shape}]++
	}
	backends := strings.Split(resumeBackends(), ",")
	if len(seen) != len(backends)*len(all) {
		t.Errorf("%d distinct (backend, workload) results, want %d × %d", len(seen), len(backends), len(all))
	}
	for _, w := range all {
		for _, b := range backends {
			if n := seen[key{b, w.String()}]; n != 1 {
				t.Errorf("%s on %s: %d results, want 1", w, b, n)
			}
		}
	}
	// The results from before the kill are the journal's, not measured again.
	for i, r := range before.Results {
		got := run.Results[i]
		if got.Backend != r.Backend || got.Shape != r.Shape || got.MedianNS != r.MedianNS || len(got.SamplesNS) != len(r.SamplesNS) {
			t.Errorf("result %d: %s %s median %v in the output, %s %s median %v in the journal", i, got.Backend, got.Shape, got.MedianNS, r.Backend, r.Shape, r.MedianNS)
		}
	}
	checkMemoryFigures(t, run)
	if len(run.Env.Resumed) != 1 || run.Interrupted {
		t.Errorf("env.resumed %v, interrupted %v: want one resumption, not interrupted", run.Env.Resumed, run.Interrupted)
	}
	if _, err := os.Stat(journalFile); err == nil {
		t.Error("the journal of a finished JSON run was left behind")
	}
}

// checkMemoryFigures checks every result of a real run carries plausible
// memory figures (Linux): a resident growth from 0 to the workload's
// footprint plus slack (packing buffers, thread stacks, the heap's own
// growth), Go heap counts for the Go backends and a note for the others.
func checkMemoryFigures(t *testing.T, run *result.Run) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	const slack = 32 << 20
	for _, r := range run.Results {
		m := r.Memory
		if m == nil {
			t.Errorf("%s %s %s: no memory figures", r.Backend, r.Op, r.Shape)
			continue
		}
		if m.PeakGrowthBytes < 0 || float64(m.PeakGrowthBytes) > r.Footprint+slack {
			t.Errorf("%s %s %s: resident growth %d for a footprint of %.0f bytes", r.Backend, r.Op, r.Shape, m.PeakGrowthBytes, r.Footprint)
		}
		switch goCode := r.Backend == "go" || r.Backend == "gonum"; {
		case goCode && m.GoHeap == nil:
			t.Errorf("%s %s %s: a Go backend without heap counts", r.Backend, r.Op, r.Shape)
		case !goCode && (m.GoHeap != nil || m.AllocNote == ""):
			t.Errorf("%s %s %s: a C library with heap counts %+v or no note", r.Backend, r.Op, r.Shape, m.GoHeap)
		}
	}
}

// writeJournal leaves the journal of an unfinished run made with args (its
// first workload done), as a stopped run would.
func writeJournal(t *testing.T, path string, edit func(*journal.Header), args ...string) {
	t.Helper()
	cfg, err := parseFlags(args, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workload.Expand(cfg.selection)
	if err != nil {
		t.Fatal(err)
	}
	h := journal.Header{Config: runConfig(cfg, []result.BackendInfo{{Name: "go", Available: true}}),
		Run: result.Run{Format: result.Format, Machine: peak.DetectMachine()}}
	for _, w := range ws {
		h.Workloads = append(h.Workloads, w.String())
	}
	if edit != nil {
		edit(&h)
	}
	w, err := journal.Create(path, h)
	if err != nil {
		t.Fatal(err)
	}
	w.Add(journal.Line{Workload: h.Workloads[0], Threads: 1, Results: []result.Result{{Backend: "go", Op: "axpy"}}})
	w.Close()
}

// -resume with other flags, another binary, another machine, or a file
// that is not a journal refuses in one line with exit status 2, before
// anything is measured; so does a new run whose journal would replace an
// unfinished one.
func TestResumeRefusesMismatch(t *testing.T) {
	dir := t.TempDir()
	base := []string{"-backend=go", "-op=axpy", "-dtype=f32", "-size=1000", "-threads=1", "-seed=1", "-format=json"}
	path := filepath.Join(dir, "run.journal")
	writeJournal(t, path, nil, base...)
	other := filepath.Join(dir, "other.journal")
	writeJournal(t, other, func(h *journal.Header) { h.Run.Machine.Model = "Another CPU"; h.Run.Machine.CPUs = 512 }, base...)
	version := filepath.Join(dir, "version.journal")
	writeJournal(t, version, func(h *journal.Header) { h.Config["version"] = "v0.0.1 0123456789ab" }, base...)
	notJournal := filepath.Join(dir, "results.json")
	os.WriteFile(notJournal, []byte(`{"format":"peakbench/v1"}`+"\n"), 0o644)
	output := filepath.Join(dir, "out.json") // a run's -o, its journal beside it
	os.WriteFile(output, []byte(`{"format":"peakbench/v1"}`+"\n"), 0o644)
	writeJournal(t, output+".journal", nil, base...)

	with := func(args ...string) []string { return append(append([]string(nil), base...), args...) }
	for _, c := range []struct {
		args []string
		want []string
	}{
		{with("-seed=2", "-resume="+path), []string{"-seed=1", "-seed=2"}},
		{with("-op=dot", "-resume="+path), []string{"-op=axpy", "-op=dot"}},
		{with("-resume=" + other), []string{"Another CPU", "machine that started the run"}},
		{with("-resume=" + version), []string{"v0.0.1", "binary"}},
		{with("-resume=" + notJournal), []string{"not a peakbench journal"}},
		{with("-resume=" + output), []string{"not a peakbench journal", "its journal is " + output + ".journal"}},
		{with("-resume=" + filepath.Join(dir, "nosuch")), []string{"no such file"}},
		{with("-peak", "-resume="+path), []string{"-peak"}},
		{with("-o=" + strings.TrimSuffix(path, ".journal")), []string{"unfinished run", "-resume " + path}},
	} {
		_, stderr, code := runArgs(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, stderr)
			continue
		}
		if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
			t.Errorf("%v: %d lines on stderr, want one:\n%s", c.args, n+1, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: %q does not mention %q", c.args, strings.TrimSpace(stderr), w)
			}
		}
	}
	// The refusals left the journal as it was.
	if j, err := journal.Read(path); err != nil || len(j.Done) != 1 || len(j.Resumed) != 0 {
		t.Errorf("the journal changed: %v", err)
	}
}

// The journal's lines are JSON a program can read without peakbench.
func TestJournalLinesAreJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	writeJournal(t, path, nil, "-backend=go", "-op=axpy", "-dtype=f32", "-size=1000", "-threads=1")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d lines, want the header and one workload", n)
	}
}

// Ctrl-C keeps the journal of the workloads finished, unfinished, and
// says how to continue; -resume then measures only the rest.
func TestResumeAfterInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "run.json")
	args := []string{"-backend=go", "-op=axpy,dot,sum", "-dtype=f32", "-size=1000", "-threads=1", "-min-time=1ms", "-suite=quick", "-format=json", "-o=" + out}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := 0
	progressHook = func() {
		if done++; done == 1 {
			cancel() // after the first workload is in the journal
		}
	}
	var stdout, stderr strings.Builder
	err := run(ctx, &stdout, &stderr, args)
	progressHook = nil
	if code := exitCode(&stderr, err); code != 1 {
		t.Fatalf("interrupted run: exit %d\n%s", code, stderr.String())
	}
	path := out + ".journal"
	if !strings.Contains(stderr.String(), "-resume "+path) {
		t.Errorf("the interrupted run did not say how to continue:\n%s", stderr.String())
	}
	j, err := journal.Read(path)
	if err != nil || j.Finished || len(j.Done) != 1 {
		t.Fatalf("journal after Ctrl-C: %v, finished %v, %d workloads", err, j != nil && j.Finished, len(j.Done))
	}
	progressed := 0
	progressHook = func() { progressed++ }
	defer func() { progressHook = nil }()
	if _, stderr, code := runArgs(t, append(args, "-resume="+path)...); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if progressed != 2 {
		t.Errorf("the resumed run measured %d workloads, want the 2 left", progressed)
	}
	r, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, res := range r.Results {
		ops[res.Op]++
	}
	if len(r.Results) != 3 || ops["axpy"] != 1 || ops["dot"] != 1 || ops["sum"] != 1 || r.Interrupted {
		t.Errorf("results by op %v (interrupted %v), want axpy, dot and sum once each", ops, r.Interrupted)
	}
}
