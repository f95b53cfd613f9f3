package report

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

// fetches finds what a page would load: src/href/url() to another origin.
var fetches = regexp.MustCompile(`(?i)(\bsrc\s*=|\bhref\s*=|url\(|@import)\s*["']?\s*(https?:)?//`)

func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	if m := fetches.FindString(page); m != "" {
		t.Errorf("the page fetches from the network: %q", m)
	}
	for _, bad := range []string{"<script", "<link", "<iframe", "<img"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page has a %s element", bad)
		}
	}
	if !strings.Contains(page, "<style>") || !strings.HasPrefix(page, "<!DOCTYPE html>") {
		t.Error("the page lacks its doctype or inline style")
	}
}

func TestHTMLSelfContained(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, resulttest.Fixture(), "html"); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	checkSelfContained(t, page)
	// One roofline (cpu, 2 threads) and a share chart for gemm and axpy
	// (dot has no result that ran).
	if n := strings.Count(page, `<svg class="chart"`); n != 3 {
		t.Errorf("%d charts, want 3", n)
	}
	for _, want := range []string{
		`id="summary"`, `id="machine"`, `id="roofline"`, `id="ops"`, `id="failures"`, `id="environment"`, `id="method"`,
		"Test CPU 3000", "2 × 3.05 GHz × 32", "fma-avx2", // peaks and how they were obtained
		"f32 peak 195 GFLOP/s", "L2 read 160 GB/s", "DRAM read 31.0 GB/s", // ceilings drawn: the fastest pattern per level
		"libmkl_rt.so not found", "peakbench (devel)", "kernels=pure Go", // libraries
		"element 3 is 1, want 2", "out of memory", // failures
		"noisy result", "Mann-Whitney",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestHTMLEscapes(t *testing.T) {
	run := resulttest.Fixture()
	run.Results[0].Backend = `<script>alert("x")</script>`
	run.Backends[0].Details["x"] = `<b onload="y">`
	var buf bytes.Buffer
	if err := Write(&buf, run, "html"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "<script>") || strings.Contains(buf.String(), `<b onload`) {
		t.Error("text from the results reached the page unescaped")
	}
}

func TestHTMLSideBySide(t *testing.T) {
	a, b := resulttest.Sampled(1), resulttest.Sampled(1.1)
	b.Env.Host, b.Machine.Model = "node2", "Other CPU 9000"
	b.Interrupted = true
	var buf bytes.Buffer
	if err := WriteHTML(&buf, []RunFile{{Name: "results/a.json", Run: a}, {Name: "b.json", Run: b}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	checkSelfContained(t, page)
	for _, want := range []string{"2 runs side by side: a, b", "Other CPU 9000", "Test CPU 3000", "time vs a", "&#43;10.00%",
		"Interrupted:", "Roofline: Other CPU 9000, 2 threads — b"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<svg class="chart"`); n != 6 {
		t.Errorf("%d charts, want 6 (3 per run)", n)
	}
}

func TestMarkdownSideBySide(t *testing.T) {
	a, b := resulttest.Sampled(1), resulttest.Sampled(1.1)
	b.Env.Host = "node2"
	var buf bytes.Buffer
	if err := WriteMarkdownRuns(&buf, []RunFile{{Name: "a.json", Run: a}, {Name: "b.json", Run: b}}); err != nil {
		t.Fatal(err)
	}
	resulttest.CheckGolden(t, "runs.md.golden", buf.Bytes())
}

// TestMarkdownNotRunRightAligned: a file with no gemm result leaves its
// gemm columns "not run" and empty; they are columns of numbers all the
// same, right-aligned (they were "---", aligned by the "not run" text).
func TestMarkdownNotRunRightAligned(t *testing.T) {
	a, b := resulttest.Sampled(1), resulttest.Sampled(1.1)
	kept := b.Results[:0]
	for _, r := range b.Results {
		if r.Op != "gemm" {
			kept = append(kept, r)
		}
	}
	b.Results = kept
	var buf bytes.Buffer
	if err := WriteMarkdownRuns(&buf, []RunFile{{Name: "a.json", Run: a}, {Name: "b.json", Run: b}}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	gemm := md[strings.Index(md, "### gemm"):]
	lines := strings.Split(gemm, "\n")
	if !strings.Contains(lines[4], "| not run |") {
		t.Fatalf("b's gemm cells are not \"not run\":\n%s", gemm)
	}
	if want := "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"; lines[3] != want {
		t.Errorf("gemm alignment %s, want %s", lines[3], want)
	}
	summary := md[strings.Index(md, "### Best backend per workload"):]
	if want := "|---|---|---|---:|---|---:|---:|---:|---|---:|---:|---:|"; strings.Split(summary, "\n")[3] != want {
		t.Errorf("summary alignment %s, want %s", strings.Split(summary, "\n")[3], want)
	}
}

// The report opens with the heat map: a row per workload, a column per
// backend, each cell its share, its ratio to the fastest and its main
// finding, with every finding on hover; the overview follows.
func TestHTMLGlance(t *testing.T) {
	run, err := result.Load("../diagnose/testdata/findings/relu-intel-xeon-vm.json") // the findings tests' recorded run
	if err != nil {
		t.Fatal(err)
	}
	diagnose.CheckCodePaths(run)
	diagnose.Diagnose(run)
	var b strings.Builder
	if err := WriteHTML(&b, []RunFile{{Run: run}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	glance := strings.Index(page, `<section id="glance">`)
	summary := strings.Index(page, `<section id="summary">`)
	if glance < 0 || summary < glance {
		t.Fatalf("the glance section should open the report (glance at %d, summary at %d)", glance, summary)
	}
	heat := page[glance:summary]
	// 4 ReLU sizes × 3 backends (asm, onednn, torch, as recorded).
	if n := strings.Count(heat, `<td class="cell`); n != 12 {
		t.Errorf("%d heat cells", n)
	}
	if n := strings.Count(heat, `class="cell best"`); n != 4 {
		t.Errorf("%d cells marked fastest, want one per workload (4)", n)
	}
	for _, want := range []string{"background: hsl(", "overhead", "×0.", "per-call overhead", "Best backend per op family", "elementwise", "Top findings"} {
		if !strings.Contains(heat, want) {
			t.Errorf("glance section lacks %q", want)
		}
	}
}

// The HTML peaks name each compute unit, and each measured clock says what
// it was read under, on how many threads and for which units' peaks.
func TestHTMLPeaksNameUnits(t *testing.T) {
	run := resulttest.Fixture()
	lowpPeaks(run)
	v, err := buildView([]RunFile{{Run: run}})
	if err != nil {
		t.Fatal(err)
	}
	c := v.Runs[0].Compute
	if c.Head[1].Text != "unit" {
		t.Fatalf("compute peaks' columns: %v", c.Head)
	}
	var got []string
	for _, r := range c.Rows {
		got = append(got, r[0].Text+" "+r[1].Text)
	}
	if want := []string{"f32 fma", "f32 fma", "bf16 fma", "bf16 avx512-bf16", "i8 avx512-vnni", "i8 avx-vnni", "i8 avx2-int8", "i8 amx-int8"}; !slices.Equal(got, want) {
		t.Errorf("compute peaks' units %q, want %q", got, want)
	}
	var clock string
	for _, r := range v.Machine.Rows {
		if r[0].Text == "measured clock" {
			clock = r[1].Text
		}
	}
	want := "3.050 GHz (2 threads; fma); 3.378 GHz (clock under 512-bit FMAs, 1 thread; fma); " +
		"3.381 GHz (clock under 512-bit FMAs, 1 thread; avx512-bf16, avx512-vnni); " +
		"3.441 GHz (clock under 256-bit FMAs, 1 thread; avx-vnni, avx2-int8); 3.200 GHz (integer clock, 1 thread; amx-int8)"
	if clock != want {
		t.Errorf("measured clock\n%q, want\n%q", clock, want)
	}
}

// A run whose cache sweep was disturbed says so in the HTML report's
// Checks, as on standard error and in the table (diagnose.DisturbedLines).
func TestHTMLDisturbedPeaks(t *testing.T) {
	run := resulttest.Fixture()
	run.Peaks.Bandwidth[1].Disturbed = true // DRAM triad
	var b bytes.Buffer
	if err := WriteHTML(&b, []RunFile{{Run: run}}); err != nil {
		t.Fatal(err)
	}
	if want := `<p class="bad">DISTURBED PEAKS: 2 threads: the DRAM triad bandwidth peak(s) were measured while a thread waited for a CPU`; !strings.Contains(b.String(), want) {
		t.Errorf("HTML lacks %q", want)
	}
}

// The machine table lists the levels the read sweep found per thread
// count, a level the machine does not report marked, since the "of"
// column names them (an L4 on a VM whose two vCPUs read two L3s).
func TestFoundCaches(t *testing.T) {
	p := peak.Peaks{
		Sweeps: []peak.Sweep{{Threads: 1}, {Threads: 2}},
		Caches: []peak.CacheLevel{
			{Level: "L2", Threads: 1, Found: true, EffectiveBytes: 1 << 20, ReportedBytes: 1 << 20},
			{Level: "L2", Threads: 2, Found: true, EffectiveBytes: 2 << 20, ReportedBytes: 1 << 20},
			{Level: "L4", Threads: 2, Found: true, EffectiveBytes: 90 << 20},
			{Level: "L3", Threads: 2, ReportedBytes: 32 << 20}, // not found
		},
	}
	want := "1 thread: L2 1 MiB; larger: DRAM; 2 threads: L2 2 MiB, L4 90 MiB (not reported); larger: DRAM"
	if got := foundCaches(p); got != want {
		t.Errorf("foundCaches = %q, want %q", got, want)
	}
	if got := foundCaches(peak.Peaks{}); got != "no read sweep in this run" {
		t.Errorf("without sweeps: %q", got)
	}
}
