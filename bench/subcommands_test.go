package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/compare"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

// savedRun writes a small run to dir/name: two results with 12 samples
// each, every sample scaled by scale (1.1 plants a 10% slowdown).
func savedRun(t *testing.T, dir, name string, scale float64) string {
	t.Helper()
	run := &result.Run{
		Format:  result.Format,
		Machine: peak.Machine{Model: "Test CPU", Microarch: "Zen 3", CPUs: 2, OS: "linux", Arch: "amd64", SIMDBits: 256, FMAUnits: 2},
		Peaks: peak.Peaks{
			Compute:   []peak.ComputePeak{{DType: "f32", Threads: 2, TheoreticalGFLOPS: 200, EmpiricalGFLOPS: 190}},
			Bandwidth: []peak.BandwidthPeak{{Level: "L2", Threads: 2, GBPS: 150}, {Level: "DRAM", Threads: 2, GBPS: 25}},
		},
		Env:      result.Env{Host: "testhost", Start: "2026-01-02T03:04:05Z", Cache: "hot", NoiseTarget: 0.03},
		Backends: []result.BackendInfo{{Name: "go", Device: "cpu", Available: true}},
	}
	for i, w := range []struct {
		op, shape    string
		ns, flops, b float64
	}{{"gemm", "256x256x256", 2e6, 2 * 256 * 256 * 256, 3 * 256 * 256 * 4}, {"axpy", "1000000", 5e5, 2e6, 12e6}} {
		r := result.Result{Backend: "go", Device: "cpu", Op: w.op, DType: "f32", Shape: w.shape, Threads: 2, Cache: "hot",
			Iters: 10, Verified: true, Tolerance: 1e-5, VerifyMethod: "full", FLOPs: w.flops, Bytes: w.b}
		for j := range 12 {
			r.SamplesNS = append(r.SamplesNS, scale*w.ns*(1+0.02*math.Sin(float64(5*j+i))))
		}
		r.MedianNS = scale * w.ns
		r.GFLOPS, r.GBPS, r.Intensity = r.FLOPs/r.MedianNS, r.Bytes/r.MedianNS, r.FLOPs/r.Bytes
		r.Ceilings(run.Peaks.Compute[0], run.Peaks.Bandwidth[i])
		run.Results = append(run.Results, r)
	}
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	old := savedRun(t, dir, "old.json", 1)
	slow := savedRun(t, dir, "slow.json", 1.1)

	out, stderr, code := runArgs(t, "compare", old, old, "-threshold", "5%")
	if code != 0 || strings.Count(out, " ~ ") != 2 || !strings.Contains(out, "ok: no significant regression") {
		t.Errorf("a file against itself: exit %d, stderr %q, output:\n%s", code, stderr, out)
	}
	out, stderr, code = runArgs(t, "compare", old, slow, "-threshold", "5%")
	if code != 1 || strings.Count(out, "+10.00%") != 3 || !strings.Contains(out, "FAIL: 2 significant regression(s)") {
		t.Errorf("planted 10%% slowdown: exit %d, output:\n%s", code, out)
	}
	if last := lastLine(stderr); !strings.Contains(last, "2 significant regression(s) beyond the 5% threshold") {
		t.Errorf("gate error %q", last)
	}
	// Flags before the files; a threshold above the change; no threshold.
	if _, stderr, code := runArgs(t, "compare", "-threshold=15%", old, slow); code != 0 {
		t.Errorf("15%% threshold: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runArgs(t, "compare", old, slow); code != 0 {
		t.Errorf("no threshold: exit %d: %s", code, stderr)
	}
	if _, _, code := runArgs(t, "compare", "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
}

func TestSubcommandsBadInputExitTwo(t *testing.T) {
	dir := t.TempDir()
	good := savedRun(t, dir, "good.json", 1)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	data, _ := os.ReadFile(good)
	truncated := write("truncated.json", string(data[:len(data)/3]))
	foreign := write("foreign.json", `{"foo":1}`)
	array := write("array.json", `[1, 2]`)
	other := write("other.json", `{"format":"somebody/v9"}`)
	missing := filepath.Join(dir, "missing.json")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"compare", good, truncated}, []string{truncated, "truncated"}},
		{[]string{"compare", foreign, good}, []string{foreign, `no "format" field`}},
		{[]string{"compare", good, array}, []string{array, "JSON array"}},
		{[]string{"compare", other, good}, []string{other, `"somebody/v9"`}},
		{[]string{"compare", good, missing}, []string{missing, "no such file"}},
		{[]string{"compare", good}, []string{"two results files"}},
		{[]string{"compare", good, good, "-threshold", "lots"}, []string{`"lots"`}},
		{[]string{"compare", good, good, "-threshold", "5"}, []string{`5%`}},
		{[]string{"report", truncated}, []string{truncated, "truncated"}},
		{[]string{"report", good, foreign}, []string{foreign, `no "format" field`}},
		{[]string{"report", array}, []string{array, "JSON array"}},
		{[]string{"report", other}, []string{other, "somebody/v9"}},
		{[]string{"report", missing}, []string{missing, "no such file"}},
		{[]string{"report"}, []string{"no results file"}},
		{[]string{"report", "-format=xml", good}, []string{`"xml"`, "html"}},
		{[]string{"report", "-format=svg", good, good}, []string{"one file"}},
		{[]string{"report", "-o", "/nonexistent-dir/r.html", good}, []string{"/nonexistent-dir/r.html"}},
		{[]string{"-save-baseline", "../x", "-backend=go"}, []string{`"../x"`, "letters"}},
		{[]string{"-baseline", "a b", "-backend=go"}, []string{`"a b"`}},
		{[]string{"-threshold", "5%", "-backend=go"}, []string{"-threshold needs -baseline"}},
		{[]string{"-baseline", "nosuchbaseline", "-backend=go"}, []string{`no baseline "nosuchbaseline"`}},
	} {
		t.Setenv(compare.BaselineEnv, dir)
		_, stderr, code := runArgs(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, stderr)
			continue
		}
		if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
			t.Errorf("%v: %d lines on stderr, want one: %q", c.args, n+1, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: error %q does not mention %s", c.args, strings.TrimSpace(stderr), w)
			}
		}
	}
}

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	a := savedRun(t, dir, "node1.json", 1)
	b := savedRun(t, dir, "node2.json", 1.1)
	out := filepath.Join(dir, "report.html")
	if _, stderr, code := runArgs(t, "report", "-o", out, a, b); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 runs side by side: node1, node2", `<svg class="chart"`, "time vs node1"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, c := range []struct{ format, want string }{
		{"md", "| op | dtype | shape | threads | node1: best |"}, {"svg", "<svg"}, {"png", "\x89PNG"},
		{"gobench", "BenchmarkGemm/backend=go/dtype=f32/shape=256x256x256/threads=2\t10\t"},
		{"table", "BACKEND"}, {"html", "<!DOCTYPE html>"},
		// Saved without findings (as older peakbench wrote): diagnosed on load.
		{"table", " WHY"}, {"summary", "best per op family"}, {"html", `<section id="glance">`}, {"json", `"findings"`},
	} {
		files := []string{a}
		if c.format == "md" {
			files = append(files, b)
		}
		stdout, stderr, code := runArgs(t, append([]string{"report", "-format=" + c.format}, files...)...)
		if code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("-format=%s: exit %d (%s), output lacks %q", c.format, code, stderr, c.want)
		}
	}
}

// TestReportNoResults: a file without results (none verified, or no
// "results" key at all) charts as a one-line usage error, exit 2 (it was
// 1, the status of a regression); -format=json writes its results as []
// (a missing key came back as null).
func TestReportNoResults(t *testing.T) {
	dir := t.TempDir()
	var run map[string]any
	data, _ := os.ReadFile(savedRun(t, dir, "good.json", 1))
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	delete(run, "results")
	data, _ = json.Marshal(run)
	none := filepath.Join(dir, "none.json")
	if err := os.WriteFile(none, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"svg", "png"} {
		out := filepath.Join(dir, "chart."+format)
		_, stderr, code := runArgs(t, "report", "-format="+format, "-o", out, none)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, none+" has no result to chart") {
			t.Errorf("-format=%s: exit %d, stderr %q", format, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("-format=%s wrote %s", format, out)
		}
	}
	stdout, stderr, code := runArgs(t, "report", "-format=json", none)
	if code != 0 || !strings.Contains(stdout, `"results": []`) {
		t.Errorf("-format=json: exit %d (%s), output:\n%s", code, stderr, stdout)
	}
}

func TestParseThreshold(t *testing.T) {
	for s, want := range map[string]float64{"5%": 0.05, "0.05": 0.05, "0%": 0, "0": 0, " 12.5% ": 0.125, "150%": 1.5} {
		if got, err := parseThreshold(s); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("parseThreshold(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "x", "-1%", "5", "NaN", "1e9%"} {
		if _, err := parseThreshold(s); err == nil {
			t.Errorf("parseThreshold(%q) accepted", s)
		}
	}
}

// TestBaselineRoundTrip saves a real run as a baseline and compares the next
// run with it.
func TestBaselineRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	dir := t.TempDir()
	t.Setenv(compare.BaselineEnv, dir)
	args := []string{"-backend=go", "-op=axpy", "-dtype=f32", "-size=4096", "-threads=1", "-min-time=1ms", "-suite=quick"}
	_, stderr, code := runArgs(t, append(args, "-save-baseline=ci")...)
	if code != 0 || !strings.Contains(stderr, "saved baseline ci") {
		t.Fatalf("save: exit %d: %s", code, stderr)
	}
	if _, err := result.Load(filepath.Join(dir, "ci.json")); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runArgs(t, append(args, "-baseline=ci")...)
	if code != 0 || !strings.Contains(out, "baseline ci") || !strings.Contains(out, "VS OLD") {
		t.Errorf("compare: exit %d (%s), output:\n%s", code, stderr, out)
	}
}
