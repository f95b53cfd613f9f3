package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
	"golang.org/x/perf/benchfmt"
)

func TestGolden(t *testing.T) {
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, checkedFixture(), format); err != nil {
				t.Fatal(err)
			}
			resulttest.CheckGolden(t, "run."+format+".golden", buf.Bytes())
		})
	}
}

func TestGoBenchReadableByBenchstat(t *testing.T) {
	var buf bytes.Buffer
	Write(&buf, resulttest.Fixture(), "gobench")
	lines := 0
	for _, l := range strings.Split(buf.String(), "\n") {
		if !strings.HasPrefix(l, "Benchmark") {
			continue
		}
		lines++
		f := strings.Fields(l)
		if len(f) < 4 || f[3] != "ns/op" || !strings.Contains(f[0], "/backend=") {
			t.Errorf("line %q is not in the Go benchmark format", l)
		}
	}
	if lines != 5 { // 3 + 2 samples; failed results are left out
		t.Errorf("%d benchmark lines, want 5", lines)
	}
}

// TestGoBenchVersionsNotConfig: two runs whose libraries' versions differ,
// or whose backends do, have the same benchstat configuration, so that
// benchstat compares them (a version as configuration put each file in a
// table of its own), and the versions are still in the text.
func TestGoBenchVersionsNotConfig(t *testing.T) {
	configOf := func(run *result.Run) (string, string) {
		var buf bytes.Buffer
		if err := Write(&buf, run, "gobench"); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		r := benchfmt.NewReader(strings.NewReader(text), "run.txt")
		for r.Scan() {
			if res, ok := r.Result().(*benchfmt.Result); ok {
				var keys []string
				for _, c := range res.Config {
					if c.File {
						keys = append(keys, c.Key+"="+string(c.Value))
					}
				}
				return strings.Join(keys, " "), text
			}
		}
		t.Fatal("no benchmark result read")
		return "", ""
	}
	old := resulttest.Fixture()
	upgraded := resulttest.Fixture()
	for i := range upgraded.Backends {
		upgraded.Backends[i].Version += "-next"
	}
	fewer := resulttest.Fixture()
	fewer.Backends = fewer.Backends[:1]
	want, text := configOf(old)
	for name, run := range map[string]*result.Run{"upgraded": upgraded, "fewer backends": fewer} {
		if got, _ := configOf(run); got != want {
			t.Errorf("%s: configuration %q, want %q as before", name, got, want)
		}
	}
	b := old.Backends[0]
	if !strings.Contains(text, "# "+b.Name+" version: "+b.Version+"\n") {
		t.Errorf("no version line of %s in\n%s", b.Name, text)
	}
}

// noFLOPsFixture is resulttest.Fixture() with a sparse format conversion:
// no FLOPs, bound by memory alone (result.Ceilings).
func noFLOPsFixture() *result.Run {
	run := resulttest.Fixture()
	conv := result.Result{Backend: "asm", Device: "cpu", Op: "csr2coo", DType: "f32", Shape: "banded:n=64Ki:bw=8:seed=1",
		Threads: 2, Cache: "hot", Iters: 65, Verified: true, VerifyMethod: "exact",
		SamplesNS: []float64{136103, 140000, 150000}, MedianNS: 140000, Bytes: 4718596}
	conv.GBPS = conv.Bytes / conv.MedianNS
	conv.Ceilings(run.Peaks.Compute[0], run.Peaks.Bandwidth[0])
	run.Results = append(run.Results, conv)
	return run
}

// gobench gives an op without FLOPs no GFLOP/s metric and the share the
// JSON has (of bandwidth), not 0/0 = 0.
func TestGoBenchNoFLOPs(t *testing.T) {
	run := noFLOPsFixture()
	conv := run.Results[len(run.Results)-1]
	var buf bytes.Buffer
	if err := Write(&buf, run, "gobench"); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, "BenchmarkCsr2coo/") {
			lines = append(lines, l)
		}
	}
	if len(lines) != len(conv.SamplesNS) {
		t.Fatalf("%d csr2coo lines, want %d:\n%s", len(lines), len(conv.SamplesNS), buf.String())
	}
	if strings.Contains(lines[0], "GFLOP/s") {
		t.Errorf("an op without FLOPs has a GFLOP/s metric: %q", lines[0])
	}
	// The median sample's share is the JSON's share.roofline (= share.bandwidth).
	want := sig5(100*conv.Share.Roofline) + " %peak"
	if conv.Share.Roofline <= 0 || !strings.HasSuffix(lines[1], want) {
		t.Errorf("median sample %q, want it to end %q", lines[1], want)
	}
	if !strings.Contains(buf.String(), "GFLOP/s") {
		t.Error("the ops with FLOPs lost their GFLOP/s")
	}
}

// A shape with a space (a -matrix file "my m.mtx") stays one field of its
// gobench line, where benchstat reads the name, then the iterations.
func TestGoBenchNameOneField(t *testing.T) {
	run := resulttest.Fixture()
	run.Results[0].Shape = "mtx:my m.mtx"
	var buf bytes.Buffer
	if err := Write(&buf, run, "gobench"); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range strings.Split(buf.String(), "\n") {
		if !strings.HasPrefix(l, "Benchmark") {
			continue
		}
		f := strings.Fields(l)
		if _, err := strconv.Atoi(f[1]); err != nil {
			t.Errorf("second field %q of %q is not the iteration count", f[1], l)
		}
		found = found || strings.Contains(f[0], "shape=mtx:my_m.mtx")
	}
	if !found {
		t.Errorf("no line names the shape mtx:my_m.mtx:\n%s", buf.String())
	}
}

// Every table shows "-" for the GFLOP/s of an op without FLOPs, and the
// best-backend summaries its GB/s, never "0".
func TestNoFLOPsTables(t *testing.T) {
	run := noFLOPsFixture()
	gbps := units.Sig(run.Results[len(run.Results)-1].GBPS)
	var md bytes.Buffer
	if err := Write(&md, run, "md"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| csr2coo | f32 | banded:n=64Ki:bw=8:seed=1 | 2 | asm | - | " + gbps + " | ", // summary
		"| 2 | 140µs | 0.0% | - | " + gbps + " | ",                                    // all results
		`GFLOP/s "-": an op without floating-point work`,
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	v, err := buildView([]RunFile{{Run: run}})
	if err != nil {
		t.Fatal(err)
	}
	texts := func(cs []cell) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.Text
		}
		return out
	}
	sum := v.Summary.Rows[len(v.Summary.Rows)-1]
	if got := texts(sum[4:8]); got[1] != "-" || got[2] != gbps {
		t.Errorf("HTML summary of csr2coo: %q (head %q)", got, texts(v.Summary.Head[4:8]))
	}
	for _, op := range v.Ops {
		if op.Op != "csr2coo" {
			continue
		}
		row := op.Table.Rows[0]
		if row[6].Text != "-" || row[7].Text != gbps || !strings.Contains(row[9].Title, "GB/s") {
			t.Errorf("HTML op table of csr2coo: %q, share title %q", texts(row), row[9].Title)
		}
	}
}

// The Markdown alignment row follows each column: figures right, text
// left, whichever optional columns (%ref, mem, -vs, accuracy, why) are in.
func TestMarkdownAlignment(t *testing.T) {
	run := noFLOPsFixture()
	run.MemColumn, run.Vs = true, "go"
	sqnr, maxErr := 48.07, 0.0039
	run.Results[1].QuantSQNRdB, run.Results[1].QuantMaxAbsErr = &sqnr, &maxErr
	run.Results[0].Findings = []result.Finding{{Code: "bound_compute", Text: "compute-bound"}}
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, run); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	i := slices.Index(lines, "### All results")
	if i < 0 || i+3 >= len(lines) {
		t.Fatalf("no results table:\n%s", buf.String())
	}
	head := strings.Split(strings.Trim(lines[i+2], "| "), " | ")
	align := strings.Split(strings.Trim(lines[i+3], "|"), "|")
	if len(head) != len(align) {
		t.Fatalf("%d headers, %d alignments:\n%s\n%s", len(head), len(align), lines[i+2], lines[i+3])
	}
	right := map[string]bool{"threads": true, "median": true, "±spread": true, "GFLOP/s": true, "GB/s": true, "%peak": true,
		"%ref": true, "mem": true, "vs go": true, "accuracy": true}
	for _, h := range []string{"%ref", "of", "mem", "vs go", "accuracy", "verified", "why"} {
		if !slices.Contains(head, h) {
			t.Errorf("no %q column in %q", h, head)
		}
	}
	for j, h := range head {
		want := "---"
		if right[h] {
			want = "---:"
		}
		if align[j] != want {
			t.Errorf("column %q aligned %q, want %q", h, align[j], want)
		}
	}
}

// lowpPeaks are peaks of one dtype on several units, as a machine with
// AVX512-BF16 and VNNI has them.
func lowpPeaks(run *result.Run) {
	fma := run.Peaks.Compute[0]
	fma.Unit, fma.Threads, fma.ClockGHz = "fma", 1, 3.378
	fma.Formula = "1 thread × 3.38 GHz (clock under 512-bit FMAs) × 64 FLOP/cycle"
	bf16 := fma
	bf16.DType, bf16.Formula = "bf16", "the f32 FMA peak (bf16 inputs converted to f32): "+fma.Formula
	lowp := func(dtype, unit string, gflops, ghz float64, how string) peak.ComputePeak {
		return peak.ComputePeak{DType: dtype, Unit: unit, Threads: 1, TheoreticalGFLOPS: gflops, EmpiricalGFLOPS: gflops, ClockGHz: ghz,
			Formula: fmt.Sprintf("1 thread × %.2f GHz (%s) × … ops/cycle", ghz, how), Kernel: unit + "-kernel"}
	}
	run.Peaks.Compute = append(run.Peaks.Compute, fma, bf16,
		lowp("bf16", "avx512-bf16", 433, 3.381, "clock under 512-bit FMAs"),
		lowp("i8", "avx512-vnni", 866, 3.381, "clock under 512-bit FMAs"),
		lowp("i8", "avx-vnni", 440, 3.441, "clock under 256-bit FMAs"),
		lowp("i8", "avx2-int8", 220, 3.441, "clock under 256-bit FMAs"),
		lowp("i8", "amx-int8", 7000, 3.2, "integer clock"))
}

// Each peak line names its compute unit, so that the peaks of one dtype on
// several units read apart; an entry without one (older files) is fma's.
func TestPeakLinesNameUnit(t *testing.T) {
	run := resulttest.Fixture()
	lowpPeaks(run)
	lines := peakLines(run)
	for _, want := range []string{"peak f32 on fma, 2 threads: 195", "peak bf16 on fma, 1 thread: 195", "peak bf16 on avx512-bf16, 1 thread: 433",
		"peak i8 on avx512-vnni, 1 thread: 866", "peak i8 on avx-vnni, 1 thread: 440", "peak i8 on avx2-int8, 1 thread: 220"} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("no peak line starts %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

// The CSV says which ceilings each share is of, under the JSON's names
// (peak's fields without the prefix, share's as share_…), empty where the
// JSON omits a field; samples is the count of samples_ns and over_bound
// the model check's verdict, neither in the JSON.
func TestCSVCeilings(t *testing.T) {
	run := resulttest.Fixture()
	run.Results[1].Peak.ComputeUnit = "fma"
	var buf bytes.Buffer
	if err := Write(&buf, run, "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	field := func(row int, name string) string {
		i := slices.Index(recs[0], name)
		if i < 0 {
			t.Fatalf("no CSV column %q in %q", name, recs[0])
		}
		return recs[row][i]
	}
	axpy := run.Results[1]
	for name, want := range map[string]string{"compute_unit": "fma", "compute_theoretical_gflops": "195.2", "compute_empirical_gflops": "190.1",
		"bandwidth_pattern": "triad", "bandwidth_gbps": "28", "bandwidth_level": "DRAM", "roofline_gflops": fmt.Sprint(axpy.Peak.RooflineGFLOPS),
		"reference_gbps": "24", "reference": axpy.Peak.Reference, "share_reference": fmt.Sprint(axpy.Share.Reference), "samples": "2"} {
		if got := field(2, name); got != want {
			t.Errorf("axpy %s = %q, want %q", name, got, want)
		}
	}
	if got := field(1, "reference_gbps") + field(1, "share_reference"); got != "" {
		t.Errorf("gemm, without a reference stream, has %q", got)
	}

	// Every column is a field of the JSON, but the two above.
	r := axpy
	sqnr := 48.0
	r.Algorithm, r.Implementation, r.Error, r.Footprint = "a", "i", "e", 1
	r.QuantSQNRdB, r.QuantMaxAbsErr, r.ClockDrift = &sqnr, &sqnr, &result.ClockDrift{}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for k := range m {
		names[k] = true
	}
	for k := range m["peak"].(map[string]any) {
		names[k] = true
	}
	for k := range m["share"].(map[string]any) {
		names["share_"+k] = true
	}
	doc, err := os.ReadFile("../../docs/results-format.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range csvHeader {
		if !names[c] && c != "samples" && c != "over_bound" {
			t.Errorf("CSV column %q is no field of the JSON", c)
		}
		if !strings.Contains(string(doc), "`"+c+"`") {
			t.Errorf("CSV column %q is not in docs/results-format.md", c)
		}
	}
}
