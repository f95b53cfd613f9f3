package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

func runArgs(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), &out, &errb, args)
	code = exitCode(&errb, err)
	return out.String(), errb.String(), code
}

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // the bad value and an accepted one
	}{
		{[]string{"-backend=nosuch"}, []string{`"nosuch"`, "gonum"}},
		{[]string{"-op=conv9d"}, []string{`"conv9d"`, "gemm"}},
		{[]string{"-dtype=f8"}, []string{`"f8"`, "f32"}},
		{[]string{"-op=exp", "-dtype=i8"}, []string{"dtype i8 applies to", "quantize"}},
		{[]string{"-op=quantize", "-dtype=f32"}, []string{"quantize takes dtype i8 or u8"}},
		{[]string{"-op=gemm,axpy", "-dtype=i8", "-size=64"}, []string{"axpy takes dtype f32 or f64, not i8"}},
		{[]string{"-op=gemm,axpy", "-matrix=a.mtx"}, []string{"-matrix:", "spmv"}},
		{[]string{"-op=spmv", "-matrix=/nonexistent/a.mtx"}, []string{"-matrix: /nonexistent/a.mtx: no such file"}},
		{[]string{"-op=quantize", "-size=4x4"}, []string{`"4x4"`, "ROWSxCOLS:channel"}},
		{[]string{"-op=qlinear", "-size=64:NT"}, []string{`"64:NT"`, "no transposes"}},
		{[]string{"-suite=huge"}, []string{`"huge"`, "quick"}},
		{[]string{"-op=gemm", "-size=12x"}, []string{`"12x"`}},
		{[]string{"-op=softmax", "-size=100"}, []string{`"100"`, "ROWSxCOLS"}},
		{[]string{"-threads=0"}, []string{`"0"`, "1 to"}},
		{[]string{"-threads=1,x"}, []string{`"x"`}},
		{[]string{"-threads=10000"}, []string{`"10000"`}},
		{[]string{"-cache=warm"}, []string{`"warm"`, "cold"}},
		{[]string{"-format=xml"}, []string{`"xml"`, "json"}},
		{[]string{"-noise=200%"}, []string{`"200%"`}},
		{[]string{"-min-time=-1s"}, []string{"-1s"}},
		{[]string{"-nosuchflag"}, []string{"nosuchflag"}},
		{[]string{"-isolate=maybe"}, []string{`"maybe"`, "both"}},
		{[]string{"-timeout=-1s"}, []string{"-1s"}},
		{[]string{"stray"}, []string{`"stray"`}},
		{[]string{"-o=/nonexistent-dir/x.json", "-backend=go"}, []string{"/nonexistent-dir/x.json"}},
	} {
		_, stderr, code := runArgs(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, stderr)
			continue
		}
		last := lastLine(stderr)
		for _, w := range c.want {
			if !strings.Contains(last, w) {
				t.Errorf("%v: error %q does not mention %s", c.args, last, w)
			}
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestParseThreadsAndPercent(t *testing.T) {
	got, err := parseThreads(" 1, 2,2 ,4")
	if err != nil || len(got) != 3 || got[0] != 1 || got[2] != 4 {
		t.Errorf("parseThreads = %v, %v", got, err)
	}
	for _, bad := range []string{"", ",", "0", "-1", "1.5", "4097"} {
		if _, err := parseThreads(bad); err == nil {
			t.Errorf("parseThreads(%q) accepted", bad)
		}
	}
	if f, err := parsePercent("5%"); err != nil || f != 0.05 {
		t.Errorf("parsePercent(5%%) = %v, %v", f, err)
	}
	if f, err := parsePercent("0.02"); err != nil || f != 0.02 {
		t.Errorf("parsePercent(0.02) = %v, %v", f, err)
	}
}

func FuzzParseLists(f *testing.F) {
	for _, s := range []string{"1,2", "", ",", " 3 ", "1,,2", "99999999999999999999", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ts, err := parseThreads(s); err == nil {
			for _, n := range ts {
				if n < 1 || n > maxThreads {
					t.Fatalf("parseThreads(%q) gave %d", s, n)
				}
			}
		}
		for _, f := range splitList(s) {
			if f == "" || strings.Contains(f, ",") {
				t.Fatalf("splitList(%q) gave %q", s, f)
			}
		}
	})
}

func TestList(t *testing.T) {
	out, _, code := runArgs(t, "-list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, name := range []string{"go ", "gonum "} {
		if !strings.Contains(out, name) || !strings.Contains(out, "available") {
			t.Errorf("-list output lacks %q:\n%s", name, out)
		}
	}
}

// -list -backend=NAMES lists those backends alone (it listed all of them).
func TestListNamedBackends(t *testing.T) {
	out, _, code := runArgs(t, "-list", "-backend=gonum,go")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "go ") || !strings.HasPrefix(lines[1], "gonum ") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// TestListShowsTuning: -list ends the go backend's line with the tuning
// in use, as docs/tuning.md says (it showed the version alone); a backend
// without one (gonum) says nothing of it. Still one line per backend.
func TestListShowsTuning(t *testing.T) {
	out, _, code := runArgs(t, "-list", "-backend=gonum,go", "-tune-file=none")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	if !strings.HasSuffix(lines[0], "; tuning: built-in defaults (-tune-file=none)") || strings.Contains(lines[1], "tuning") {
		t.Errorf("output:\n%s", out)
	}
}

// TestRunWritesJSONAtomically runs a tiny benchmark end to end and checks
// the file the run wrote.
func TestRunWritesJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	path := filepath.Join(t.TempDir(), "out.json")
	_, stderr, code := runArgs(t, "-backend=go,gonum", "-op=gemm,axpy", "-dtype=f32", "-size=64",
		"-threads=1", "-min-time=1ms", "-suite=quick", "-format=json", "-o="+path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var run result.Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if len(run.Results) != 4 { // 2 ops × 2 backends
		t.Fatalf("%d results, want 4", len(run.Results))
	}
	for _, r := range run.Results {
		if !r.Verified || r.GFLOPS <= 0 || r.Share.Roofline <= 0 || len(r.SamplesNS) < 10 {
			t.Errorf("result %s %s: verified %v, %v GFLOP/s, share %v, %d samples", r.Backend, r.Op, r.Verified, r.GFLOPS, r.Share.Roofline, len(r.SamplesNS))
		}
	}
	if len(run.Peaks.Compute) == 0 || run.Machine.CPUs == 0 {
		t.Error("no machine or peaks recorded")
	}
	if len(run.ClockEnd) != 1 || run.ClockEnd[0].Threads != 1 || run.ClockEnd[0].EndGHz <= 0 || run.ClockEnd[0].Checks != 2 {
		t.Errorf("clock_end %+v, want one thread count read after 2 workloads and at the end", run.ClockEnd)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// A run ends with the summary on standard error, naming the files
// -results-dir wrote; each verified result carries findings, the first
// its bound; a single-size op gets its tiny-size probe.
func TestRunEndsWithSummaryAndFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	dir := filepath.Join(t.TempDir(), "results")
	_, stderr, code := runArgs(t, "-backend=go,asm", "-op=axpy", "-dtype=f32", "-size=1Ki,1Mi",
		"-threads=1", "-min-time=1ms", "-suite=quick", "-results-dir="+dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 2 || !strings.HasSuffix(files[0], ".html") || !strings.HasSuffix(files[1], ".json") {
		t.Fatalf("results dir holds %v, want one .json and one .html", files)
	}
	summary := stderr[strings.Index(stderr, "== summary"):]
	for _, want := range []string{"best per op family", "blas1", "backends (", "written: " + files[1] + ", " + files[0]} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	run, err := result.Load(files[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range run.Results {
		if len(r.Findings) == 0 || !strings.HasPrefix(r.Findings[0].Code, "bound_") {
			t.Errorf("%s %s: findings %+v", r.Backend, r.Shape, r.Findings)
		}
		if r.Host == nil || r.Host.SampledNS <= 0 {
			t.Errorf("%s %s: no host use", r.Backend, r.Shape)
		}
	}
	if !strings.Contains(stderr, "left)") {
		t.Errorf("progress gives no time left:\n%s", stderr)
	}
}

// TestInterruptKeepsResults cancels a run before it starts measuring and
// checks the partial report is still written, flagged, with exit 1.
func TestInterruptWritesWhatWasMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	path := filepath.Join(t.TempDir(), "partial.json")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb bytes.Buffer
	done := 0
	progressHook = func() {
		done++
		if done == 1 {
			cancel() // after the first workload completes
		}
	}
	defer func() { progressHook = nil }()
	err := run(ctx, &out, &errb, []string{"-backend=go", "-op=axpy,dot,sum", "-dtype=f32", "-size=1000",
		"-threads=1", "-min-time=1ms", "-suite=quick", "-format=json", "-o=" + path})
	if code := exitCode(&errb, err); code != 1 || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	var run result.Run
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("partial output: %v", err)
	}
	if !run.Interrupted || len(run.Results) != 1 {
		t.Errorf("interrupted=%v with %d results, want true with 1", run.Interrupted, len(run.Results))
	}
}

// TestModelErrorPlanted runs with a compute peak far too low
// (-peak-gflops=0.01): every gemm is above its bound, and the run must say
// so in the JSON and, loudly, on standard error.
func TestModelErrorPlanted(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	path := filepath.Join(t.TempDir(), "planted.json")
	_, stderr, code := runArgs(t, "-backend=go", "-op=gemm", "-dtype=f32", "-size=64", "-peak-gflops=0.01",
		"-threads=1", "-min-time=1ms", "-suite=quick", "-format=json", "-o="+path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var run result.Run
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.ModelErrors) != 1 {
		t.Fatalf("%d model errors, want 1: %+v", len(run.ModelErrors), run.ModelErrors)
	}
	e := run.ModelErrors[0]
	if e.Backend != "go" || e.Op != "gemm" || e.Shape != "64x64x64" || e.Bound != "compute" || e.Cause != diagnose.CauseComputePeak ||
		e.Share <= e.Limit || !strings.Contains(e.ComputeFormula, "-peak-gflops=0.01") {
		t.Errorf("model error %+v", e)
	}
	for _, want := range []string{"MODEL ERROR: 1 result(s)", "go gemm f32 64x64x64, 1 thread", "-peak-gflops=0.01"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestCodePathsOfInstalledLibraries opens every CPU library installed here
// and checks that the code path it reports is one the check knows, and
// that a machine with two 512-bit FMA units flags the narrower ones.
func TestCodePathsOfInstalledLibraries(t *testing.T) {
	wide := peak.Machine{Vendor: "GenuineIntel", Model: "Intel(R) Xeon(R) Processor", Family: 6, ModelID: 0xA7, Arch: "amd64",
		SIMDBits: 512, FMAUnits: 2, Features: []string{"avx2", "fma", "avx512f"}}
	seen := 0
	for _, f := range backend.All() {
		b, err := f.Open(backend.OpenOptions{})
		if err != nil {
			continue
		}
		info := result.BackendInfo{Name: f.Name, Device: b.Device().String(), Available: true, Info: b.Info()}
		b.Close()
		path, ok := info.Details["code_path"]
		if !ok {
			continue
		}
		seen++
		cp, known := diagnose.ParseCodePath(path)
		if !known {
			t.Errorf("%s reports code path %q, which the check does not know (diagnose.codePaths)", f.Name, path)
			continue
		}
		finding, flagged := diagnose.CodePathFinding(wide, info)
		if want := cp.Bits < 512 && f.Name != "netlib"; flagged != want {
			t.Errorf("%s on %d bits: flagged %v, want %v (%+v)", f.Name, cp.Bits, flagged, want, finding)
		}
		if flagged && finding.Remedy == "" {
			t.Errorf("%s: a finding without a remedy: %+v", f.Name, finding)
		}
		here, _ := diagnose.CodePathFinding(peak.DetectMachine(), info)
		t.Logf("%s: code_path %q → %d-bit, FMA %v; on this machine: %s", f.Name, path, cp.Bits, cp.FMA, here.Text)
	}
	if seen == 0 {
		t.Skip("no CPU library installed (make deps)")
	}
}
