package report

import (
	"bytes"
	"image/png"
	"regexp"
	"strings"
	"testing"
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
	if err := Write(&buf, fixture(), "html"); err != nil {
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
	run := fixture()
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
	a, b := sampledRun(1), sampledRun(1.1)
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
	a, b := sampledRun(1), sampledRun(1.1)
	b.Env.Host = "node2"
	var buf bytes.Buffer
	if err := WriteMarkdownRuns(&buf, []RunFile{{Name: "a.json", Run: a}, {Name: "b.json", Run: b}}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "runs.md.golden", buf.Bytes())
}

func TestSummarize(t *testing.T) {
	run := fixture()
	faster := run.Results[0]
	faster.Backend, faster.MedianNS = "blis", 1e6
	run.Results = append(run.Results, faster)
	bs := Summarize(run)
	if len(bs) != 3 {
		t.Fatalf("%d workloads, want 3", len(bs))
	}
	g := bs[0]
	if g.Best.Backend != "blis" || g.Next.Backend != "go" || g.Correct != 2 || g.Tried != 3 || g.Speedup() != 2.1 {
		t.Errorf("gemm best %s next %s, %d/%d correct, %.2f×", g.Best.Backend, g.Next.Backend, g.Correct, g.Tried, g.Speedup())
	}
	if bs[2].Best != nil {
		t.Errorf("dot: best %v, want none (it could not run)", bs[2].Best.Backend)
	}
}

func TestRooflineImages(t *testing.T) {
	var svg, pngBuf bytes.Buffer
	if err := WriteRoofline(&svg, fixture(), "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "f32 peak 195 GFLOP/s", "f32 FMA kernel 190 GFLOP/s", "L2 read 160 GB/s", "DRAM read 31.0 GB/s",
		">go<", ">gemm<", ">axpy<", "Liberation Sans',Arimo,Arial"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(svg.String(), ">gonum<") {
		t.Error("the failed gonum result is charted")
	}
	if err := WriteRoofline(&pngBuf, fixture(), "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&pngBuf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 10*pngDPI || b.Dy() != int(6.5*pngDPI) {
		t.Errorf("PNG is %v", b)
	}
	if err := WriteRoofline(&svg, fixture(), "gif"); err == nil || !strings.Contains(err.Error(), "svg, png") {
		t.Errorf("gif: %v", err)
	}
	empty := fixture()
	empty.Results = empty.Results[2:] // only failures
	if err := WriteRoofline(&svg, empty, "svg"); err == nil {
		t.Error("charted a run without a correct result")
	}
}

// A GPU's results sit on their own roofline: with the ceilings its results
// carry when run.Peaks has none for it, with none when they carry none.
func TestRooflinePerDevice(t *testing.T) {
	run := fixture()
	gpu := run.Results[0]
	gpu.Backend, gpu.Device, gpu.GFLOPS = "cublas", "cuda:0", 9000
	gpu.Peak = PeakRef{ComputeTheoreticalGFLOPS: 19500, ComputeEmpiricalGFLOPS: 18000, BandwidthGBPS: 1500, BandwidthLevel: "HBM"}
	bare := gpu
	bare.Device, bare.Peak = "rocm:0", PeakRef{}
	run.Results = append(run.Results, gpu, bare)
	gs := chartGroups(run)
	if len(gs) != 3 || gs[0].Device != "cpu" || gs[1].Device != "cuda:0" || gs[2].Device != "rocm:0" {
		t.Fatalf("groups %+v", gs)
	}
	cpu := deviceCeilings(run, gs[0])
	if cpu.FromResults || len(cpu.Compute) != 2 || len(cpu.Bandwidth) != 2 || cpu.Bandwidth[0].Level != "L2" {
		t.Errorf("cpu ceilings %+v", cpu)
	}
	c := deviceCeilings(run, gs[1])
	if !c.FromResults || c.maxCompute() != 19500 || len(c.Bandwidth) != 1 || c.Bandwidth[0].Level != "HBM" {
		t.Errorf("gpu ceilings %+v", c)
	}
	if c := deviceCeilings(run, gs[2]); !c.empty() {
		t.Errorf("bare device ceilings %+v", c)
	}
	var svg bytes.Buffer
	if err := WriteRoofline(&svg, run, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Roofline: cuda:0, 2 threads", "HBM 1500 GB/s", "f32 peak 19500 GFLOP/s", "rocm:0, 2 threads (no peaks known for this device)"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// The report opens with the heat map: a row per workload, a column per
// backend, each cell its share, its ratio to the fastest and its main
// finding, with every finding on hover; the overview follows.
func TestHTMLGlance(t *testing.T) {
	run, err := Load("testdata/findings/relu-intel-xeon-vm.json")
	if err != nil {
		t.Fatal(err)
	}
	CheckCodePaths(run)
	Diagnose(run)
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
