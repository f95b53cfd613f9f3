package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

func header() Header {
	return Header{
		Config:    map[string]string{"version": "v1 abc", "-threads": "1,2", "-seed": "1"},
		Workloads: []string{"axpy f32 1000", "gemm f32 64x64x64"},
		Run:       result.Run{Format: result.Format, Machine: peak.Machine{Model: "Test CPU", CPUs: 2}},
	}
}

func line(w string, threads int, backends ...string) Line {
	l := Line{Workload: w, Threads: threads}
	for _, b := range backends {
		l.Results = append(l.Results, result.Result{Backend: b, Op: strings.Fields(w)[0], Threads: threads, SamplesNS: []float64{1.5, 2.25}})
	}
	return l
}

// What is added reads back in order, each workload once, with the header;
// Finish marks the run finished and a resumption clears that mark.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	w, err := Create(path, header())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []Line{line("axpy f32 1000", 1, "go", "openblas"), line("axpy f32 1000", 2, "go", "openblas"), line("axpy f32 1000", 1, "go")} {
		if err := w.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	j, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !j.Finished || len(j.Done) != 2 || len(j.Results) != 4 || j.Header.Config["-threads"] != "1,2" || j.Header.Run.Machine.Model != "Test CPU" {
		t.Fatalf("read back: finished %v, %d done, %d results, header %+v", j.Finished, len(j.Done), len(j.Results), j.Header)
	}
	if r := j.Results[1]; r.Backend != "openblas" || r.Threads != 1 || r.SamplesNS[1] != 2.25 {
		t.Errorf("second result %+v", r)
	}
	w, err = Continue(j, "2026-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if j, err = Read(path); err != nil || j.Finished || len(j.Resumed) != 1 {
		t.Errorf("after a resumption: %v, finished %v, resumed %v", err, j.Finished, j.Resumed)
	}
}

// A crash mid-write leaves a last line cut short: reading leaves it out,
// and continuing cuts it off before appending, so the journal stays whole.
func TestTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	w, err := Create(path, header())
	if err != nil {
		t.Fatal(err)
	}
	w.Add(line("axpy f32 1000", 1, "go"))
	w.Close()
	whole, _ := os.Stat(path)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"workload":"gemm f32 64x64x64","threads":1,"results":[{"backend":"go","op":"ge`)
	f.Close()
	j, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Done) != 1 || j.Valid != whole.Size() {
		t.Fatalf("%d done, valid %d bytes, want 1 and %d", len(j.Done), j.Valid, whole.Size())
	}
	w, err = Continue(j, "2026-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	w.Add(line("gemm f32 64x64x64", 1, "go"))
	w.Close()
	if j, err = Read(path); err != nil || len(j.Done) != 2 || len(j.Results) != 2 {
		t.Fatalf("after continuing: %v, %d done", err, len(j.Done))
	}
}

// A line that is not a journal line before the end is an error naming it;
// a file that is not a journal says so.
func TestCorruptJournal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.journal")
	w, _ := Create(path, header())
	w.Close()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("garbage\n" + `{"finished":true}` + "\n")
	f.Close()
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("corrupt middle line: %v", err)
	}
	other := filepath.Join(dir, "results.json")
	os.WriteFile(other, []byte(`{"format":"peakbench/v1","results":[]}`+"\n"), 0o644)
	if _, err := Read(other); err == nil || !strings.Contains(err.Error(), "not a peakbench journal") {
		t.Errorf("a results file read as a journal: %v", err)
	}
}

// Create refuses to replace an unfinished run's journal, naming -resume;
// a finished one is replaced.
func TestCreateKeepsUnfinishedJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	w, _ := Create(path, header())
	w.Add(line("axpy f32 1000", 1, "go"))
	w.Close()
	_, err := Create(path, header())
	if err == nil || !strings.Contains(err.Error(), "-resume "+path) {
		t.Fatalf("an unfinished journal replaced: %v", err)
	}
	j, _ := Read(path)
	w, _ = Continue(j, "2026-01-01T00:00:00Z")
	w.Finish()
	if w, err = Create(path, header()); err != nil {
		t.Fatalf("a finished journal not replaced: %v", err)
	}
	w.Close()
	if j, _ := Read(path); len(j.Done) != 0 {
		t.Errorf("the new journal holds %d workloads of the old", len(j.Done))
	}
}

// Each mismatch is one line naming what differs.
func TestSameConfigAndMachine(t *testing.T) {
	h := header()
	now := map[string]string{"version": "v1 abc", "-threads": "2", "-seed": "1"}
	if err := SameConfig(h, now, h.Workloads); err == nil || !strings.Contains(err.Error(), "-threads=1,2") || !strings.Contains(err.Error(), "-threads=2") {
		t.Errorf("threads: %v", err)
	}
	now["-threads"], now["version"] = "1,2", "v2 def"
	if err := SameConfig(h, now, h.Workloads); err == nil || !strings.Contains(err.Error(), "v1 abc") {
		t.Errorf("version: %v", err)
	}
	// A journal that names no version (made by hand, or before versions
	// were kept) says so rather than naming an empty one.
	was := h.Config["version"]
	delete(h.Config, "version")
	if err := SameConfig(h, now, h.Workloads); err == nil || !strings.Contains(err.Error(), "does not say which peakbench made it, this is v2 def") {
		t.Errorf("no version: %v", err)
	}
	h.Config["version"] = was
	now["version"] = "v1 abc"
	if err := SameConfig(h, now, h.Workloads[:1]); err == nil || !strings.Contains(err.Error(), "2 workloads") {
		t.Errorf("workloads: %v", err)
	}
	if err := SameConfig(h, now, h.Workloads); err != nil {
		t.Errorf("same configuration refused: %v", err)
	}
	m := peak.Machine{Model: "Test CPU", CPUs: 2, Features: []string{"avx2"}}
	other := m
	other.CPUs = 4
	if err := SameMachine(m, other); err == nil || !strings.Contains(err.Error(), "CPUs 2") {
		t.Errorf("CPUs: %v", err)
	}
	other = m
	other.Features = []string{"avx2", "avx512f"}
	if err := SameMachine(m, other); err == nil || !strings.Contains(err.Error(), "avx512f") {
		t.Errorf("features: %v", err)
	}
	if err := SameMachine(m, m); err != nil {
		t.Errorf("same machine refused: %v", err)
	}
}
