package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

// Formats lists the output formats Write knows.
var Formats = []string{"table", "md", "json", "csv", "gobench", "html"}

// Write prints run in format.
func Write(w io.Writer, run *result.Run, format string) error {
	switch format {
	case "table":
		return writeTable(w, run)
	case "md":
		return writeMarkdown(w, run)
	case "json":
		return result.WriteJSON(w, run)
	case "csv":
		return writeCSV(w, run)
	case "gobench":
		return writeGoBench(w, run)
	case "html":
		return writeHTML(w, run)
	}
	return fmt.Errorf("unknown format %q (accepted: %s)", format, strings.Join(Formats, ", "))
}

// row is one result as the human-readable printers show it.
type row struct {
	backend, op, dtype, shape, threads, time, spread, gflops, gbps, peak, ref, bound, verified, why string
}

var header = row{"backend", "op", "dtype", "shape", "threads", "median", "±spread", "GFLOP/s", "GB/s", "%peak", "%ref", "of", "verified", "why"}

func rowOf(r *result.Result) row {
	rw := row{backend: r.Label(), op: r.Op, dtype: result.DTypeName(r), shape: r.Shape, threads: strconv.Itoa(r.Threads)}
	if r.Error != "" {
		rw.time, rw.verified = "-", "ERROR: "+r.Error
		return rw
	}
	rw.time = units.Duration(r.MedianNS)
	rw.spread = fmt.Sprintf("%.1f%%", 100*r.Spread)
	if r.Noisy {
		rw.spread += " noisy"
	}
	if r.ClockDrift != nil {
		rw.spread += " clock"
	}
	rw.gflops = gflopsText(r)
	rw.gbps = units.Sig(r.GBPS)
	rw.peak = fmt.Sprintf("%.1f%%", 100*r.Share.Roofline)
	if diagnose.OverBound(r) {
		rw.peak += " !"
	}
	if r.Peak.ReferenceGBPS > 0 {
		rw.ref = fmt.Sprintf("%.1f%%", 100*r.Share.Reference)
	}
	rw.bound = result.BoundName(r)
	rw.why = diagnose.WhyLabel(r)
	switch {
	case r.Verified:
		rw.verified = "ok"
	default:
		rw.verified = fmt.Sprintf("FAILED (err %.2g > %.2g)", r.MaxRelErr, r.Tolerance)
	}
	return rw
}

// gflopsText is r's GFLOP/s in a table cell: "-" for an op without
// FLOPs, whose 0 would read as a result that did nothing.
func gflopsText(r *result.Result) string {
	if r.NoFLOPs() {
		return "-"
	}
	return units.Sig(r.GFLOPS)
}

// columns says which optional columns a run's tables have: %ref when some
// result has a reference stream, why when some has findings.
type columns struct{ ref, why bool }

func columnsOf(run *result.Run) columns {
	return columns{ref: hasReference(run), why: diagnose.HasFindings(run)}
}

// cells lists the columns of result r (the header when r is nil) as row
// rw shows them: -mem's, -vs's and the accuracy cells, when the run has
// them, before verified. num says which columns hold figures (Markdown
// aligns them right); it depends on the run's columns, not on r.
func (rw row) cells(run *result.Run, c columns, r *result.Result) (out []string, num []bool) {
	add := func(v string, isNum bool) {
		out, num = append(out, v), append(num, isNum)
	}
	for _, v := range []string{rw.backend, rw.op, rw.dtype, rw.shape} {
		add(v, false)
	}
	for _, v := range []string{rw.threads, rw.time, rw.spread, rw.gflops, rw.gbps, rw.peak} {
		add(v, true)
	}
	if c.ref {
		add(rw.ref, true)
	}
	add(rw.bound, false)
	for _, cell := range []func(*result.Run, *result.Result) (string, bool){memCell, vsCell, quantCell} {
		if v, ok := cell(run, r); ok {
			add(v, true) // "+3 MiB, 12 allocs/op", "1.52×", "48.1 dB, max 0.0039"
		}
	}
	add(rw.verified, false)
	if c.why {
		add(rw.why, false)
	}
	return out, num
}

// hasNoFLOPs says whether any result does no floating-point work.
func hasNoFLOPs(run *result.Run) bool {
	return slices.ContainsFunc(run.Results, func(r result.Result) bool { return r.NoFLOPs() })
}

// hasReference says whether any result carries a reference stream's share.
func hasReference(run *result.Run) bool {
	for i := range run.Results {
		if run.Results[i].Peak.ReferenceGBPS > 0 {
			return true
		}
	}
	return false
}

func writeTable(w io.Writer, run *result.Run) error {
	fmt.Fprintln(w, machineLine(run))
	for _, l := range peakLines(run) {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cols := columnsOf(run)
	head, _ := header.cells(run, cols, nil)
	fmt.Fprintln(tw, strings.Join(upper(head), "\t"))
	for i := range run.Results {
		r := &run.Results[i]
		c, _ := rowOf(r).cells(run, cols, r)
		fmt.Fprintln(tw, strings.Join(c, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeSpeedupTable(w, run); err != nil { // -vs (speedup.go)
		return err
	}
	for _, l := range footer(run) {
		fmt.Fprintln(w, l)
	}
	return nil
}

func upper(s []string) []string {
	out := make([]string, len(s))
	for i, c := range s {
		out[i] = strings.ToUpper(c)
	}
	return out
}

func writeMarkdown(w io.Writer, run *result.Run) error {
	fmt.Fprintf(w, "## peakbench: %s\n\n", machineLine(run))
	for _, l := range peakLines(run) {
		fmt.Fprintf(w, "- %s\n", l)
	}
	fmt.Fprintln(w)
	writeMarkdownSummary(w, run)
	writeMarkdownSpeedups(w, run) // -vs (speedup.go)
	fmt.Fprintf(w, "### All results\n\n")
	cols := columnsOf(run)
	cells, num := header.cells(run, cols, nil)
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	align := make([]string, len(cells))
	for i := range align {
		align[i] = "---"
		if num[i] {
			align[i] = "---:"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(align, "|"))
	for i := range run.Results {
		r := &run.Results[i]
		c, _ := rowOf(r).cells(run, cols, r)
		for j := range c {
			c[j] = strings.ReplaceAll(c[j], "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
	}
	fmt.Fprintln(w)
	list := false
	for _, l := range footer(run) {
		m := markdownLine(l)
		item := strings.HasPrefix(m, "- ") || strings.HasPrefix(m, "  - ")
		if list && !item {
			fmt.Fprintln(w) // end the list, or the line continues its last item
		}
		list = item
		fmt.Fprintln(w, m)
	}
	return nil
}

// markdownLine is a footer line in Markdown: a line break at its end, and
// CheckLines' indented lines as a list and its sub-lists.
func markdownLine(l string) string {
	switch {
	case strings.HasPrefix(l, "    - "):
		return "  - " + l[6:]
	case strings.HasPrefix(l, "  "):
		return "- " + strings.TrimSpace(l)
	}
	return l + "  "
}

func machineLine(run *result.Run) string {
	m := run.Machine
	return fmt.Sprintf("%s (%s, %d CPUs, %s/%s)", m.Model, m.Microarch, m.CPUs, m.OS, m.Arch)
}

// peakLines describes every ceiling the results are shares of.
func peakLines(run *result.Run) []string {
	var out []string
	for _, c := range run.Peaks.Compute {
		// The unit tells apart the peaks of one dtype (bf16 on fma and on
		// avx512-bf16; i8 on three units).
		out = append(out, fmt.Sprintf("peak %s on %s, %s: %s GFLOP/s theoretical (%s), %s measured (%s)",
			c.DType, c.UnitName(), peak.ThreadsText(c.Threads), units.Sig(c.TheoreticalGFLOPS), c.Formula, units.Sig(c.EmpiricalGFLOPS), c.Kernel))
	}
	out = append(out, bandwidthLines(run.Peaks.Bandwidth)...)
	for _, g := range run.Peaks.GPUs { // GPU results are shares of their GPU's peaks
		var parts []string
		for _, c := range g.Compute {
			p := fmt.Sprintf("%s %s", c.DType, units.Sig(c.TheoreticalGFLOPS))
			if c.EmpiricalGFLOPS > 0 {
				p += fmt.Sprintf(" (best gemm %s)", units.Sig(c.EmpiricalGFLOPS))
			}
			parts = append(parts, p)
		}
		line := fmt.Sprintf("GPU %s: %s GFLOP/s theoretical", g.Device, strings.Join(parts, ", "))
		var gbw []string
		for _, b := range g.Bandwidth {
			gbw = append(gbw, fmt.Sprintf("%s copy %s", b.Level, units.Sig(b.GBPS)))
		}
		if g.TheoreticalGBPS > 0 {
			gbw = append(gbw, fmt.Sprintf("theoretical %s", units.Sig(g.TheoreticalGBPS)))
		}
		if len(gbw) > 0 {
			line += fmt.Sprintf("; memory %s GB/s", strings.Join(gbw, ", "))
		}
		out = append(out, line)
	}
	return out
}

// bandwidthLines lists the bandwidth peaks, one line per thread count with
// each pattern's levels, e.g. "bandwidth GB/s, 1 thread: triad L1 312, L2 107;
// copy L1 220, L2 98; read …" (older files, without patterns: one list).
func bandwidthLines(bws []peak.BandwidthPeak) []string {
	type group struct {
		threads int
		pattern string
		levels  []string
	}
	var groups []*group
	find := func(threads int, pattern string) *group {
		for _, g := range groups {
			if g.threads == threads && g.pattern == pattern {
				return g
			}
		}
		g := &group{threads: threads, pattern: pattern}
		groups = append(groups, g)
		return g
	}
	for _, b := range bws {
		g := find(b.Threads, b.Pattern)
		g.levels = append(g.levels, fmt.Sprintf("%s %s", b.Level, units.Sig(b.GBPS)))
	}
	var out, parts []string
	for i, g := range groups {
		p := strings.Join(g.levels, ", ")
		if g.pattern != "" {
			p = g.pattern + " " + p
		}
		parts = append(parts, p)
		if i == len(groups)-1 || groups[i+1].threads != g.threads {
			out = append(out, fmt.Sprintf("bandwidth GB/s, %s: %s", peak.ThreadsText(g.threads), strings.Join(parts, "; ")))
			parts = nil
		}
	}
	return out
}

func footer(run *result.Run) []string {
	var out []string
	out = append(out, "%peak: achieved GFLOP/s over the roofline bound min(compute peak, intensity × bandwidth of the level the data lives in, measured with the workload's mix of loads and stores: triad, update, copy or read); \"of\" names the bound.")
	if hasNoFLOPs(run) {
		out = append(out, "GFLOP/s \"-\": an op without floating-point work (a sparse format conversion); its %peak is its share of the bandwidth bound.")
	}
	if hasReference(run) {
		out = append(out, "%ref: achieved GB/s over that of a stream of the same pattern and bytes (by the kernel that set its level's peak), sampled interleaved with the backends (the peaks are the best of a few runs at the start).")
	}
	if diagnose.HasFindings(run) {
		out = append(out, "why: the result's most specific finding, else what bounds it (compute, memory, overhead); each finding's sentence, evidence and remedy are in the JSON (findings) and the HTML report.")
	}
	if e := run.Env; e.TimerOverheadNS > 0 {
		out = append(out, fmt.Sprintf("timing: samples of at least %s, noise target %.0f%%, clock-read overhead %s per sample, seed %d, %s cache.",
			units.Duration(float64(e.MinTimeNS)), 100*e.NoiseTarget, units.Duration(e.TimerOverheadNS), e.Seed, e.Cache))
	}
	if h := run.Env.HugePages; h != "" {
		out = append(out, "memory: "+HugePagesText(h)+".")
	}
	for _, b := range run.Backends {
		if b.Available {
			out = append(out, fmt.Sprintf("%s: %s", b.Name, describe(b)))
		}
	}
	noisy, failed, over, drift := 0, 0, 0, 0
	var stolen []float64 // the steal during the noisy results it explains
	for i := range run.Results {
		r := &run.Results[i]
		if r.Noisy {
			noisy++
			if hasFinding(r, diagnose.CodeSteal) {
				stolen = append(stolen, r.Host.Steal)
			}
		}
		if r.Error == "" && !r.Verified {
			failed++
		}
		if diagnose.OverBound(r) {
			over++
		}
		if r.ClockDrift != nil {
			drift++
		}
	}
	if noisy > 0 {
		line := fmt.Sprintf("%d result(s) noisy: spread over the %.0f%% target; compare them with care.", noisy, 100*run.Env.NoiseTarget)
		if len(stolen) > 0 {
			line += fmt.Sprintf(" The hypervisor took %s of the CPUs' time during %d of them (finding steal): the host's noise, not the libraries'.", percentRange(stolen), len(stolen))
		}
		out = append(out, line)
	}
	if drift > 0 {
		out = append(out, fmt.Sprintf("%d result(s) marked clock: the clock read just before or after them was off its start-of-run reading by more than the noise target.", drift))
	}
	if over > 0 {
		out = append(out, fmt.Sprintf("%d result(s) marked !: above their roofline bound by more than their noise, a model error (below).", over))
	}
	if failed > 0 {
		out = append(out, fmt.Sprintf("%d result(s) FAILED verification: their speed does not count.", failed))
	}
	if run.Interrupted {
		out = append(out, "interrupted: results above are those measured before the stop.")
	}
	out = append(out, memoryFooter(run)...)
	return append(out, diagnose.CheckLines(run)...)
}

// hasFinding reports whether r has a finding of code.
func hasFinding(r *result.Result, code string) bool {
	for _, f := range r.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

// percentRange is the shares vs as "12.0%" or "12.0–44.1%".
func percentRange(vs []float64) string {
	lo, hi := slices.Min(vs), slices.Max(vs)
	if units.Percent(lo) == units.Percent(hi) {
		return units.Percent(lo)
	}
	return strings.TrimSuffix(units.Percent(lo), "%") + "–" + units.Percent(hi)
}

func describe(b result.BackendInfo) string {
	s := b.Version
	for _, k := range slices.Sorted(maps.Keys(b.Details)) {
		s += fmt.Sprintf(", %s=%s", k, b.Details[k])
	}
	return s
}

// csvHeader names the CSV's columns as the JSON names the fields (peak's
// without the prefix, share's with share_), but samples (the count of
// samples_ns), over_bound and clock_drift (its drift); docs/results-format.md
// lists them. New columns go at the end, so that old readers still work.
var csvHeader = []string{"backend", "device", "op", "dtype", "shape", "threads", "cache", "iters_per_sample", "samples",
	"median_ns", "min_ns", "max_ns", "iqr_ns", "spread", "noisy", "flops", "bytes", "gflops", "gbps", "intensity",
	"verified", "max_rel_err", "tolerance", "bound", "bandwidth_level", "roofline_gflops",
	"share_compute_theoretical", "share_compute_empirical", "share_bandwidth", "share_roofline", "error",
	"algorithm", "implementation", "footprint_bytes", "over_bound", "clock_drift", "quant_sqnr_db", "quant_max_abs_err",
	// which ceilings the shares are of
	"compute_unit", "compute_theoretical_gflops", "compute_empirical_gflops", "bandwidth_pattern", "bandwidth_gbps",
	"reference_gbps", "reference", "share_reference"}

func writeCSV(w io.Writer, run *result.Run) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	opt := func(v float64) string { // empty where the JSON omits the field
		if v == 0 {
			return ""
		}
		return g(v)
	}
	for _, r := range run.Results {
		drift := ""
		if r.ClockDrift != nil {
			drift = g(r.ClockDrift.Drift)
		}
		p := r.Peak
		cw.Write([]string{r.Backend, r.Device, r.Op, r.DType, r.Shape, strconv.Itoa(r.Threads), r.Cache,
			strconv.Itoa(r.Iters), strconv.Itoa(len(r.SamplesNS)),
			g(r.MedianNS), g(r.MinNS), g(r.MaxNS), g(r.IQRNS), g(r.Spread), strconv.FormatBool(r.Noisy),
			g(r.FLOPs), g(r.Bytes), g(r.GFLOPS), g(r.GBPS), g(r.Intensity),
			strconv.FormatBool(r.Verified), g(r.MaxRelErr), g(r.Tolerance), r.Peak.Bound, r.Peak.BandwidthLevel, g(r.Peak.RooflineGFLOPS),
			g(r.Share.ComputeTheoretical), g(r.Share.ComputeEmpirical), g(r.Share.Bandwidth), g(r.Share.Roofline), r.Error,
			r.Algorithm, r.Implementation, g(r.Footprint), strconv.FormatBool(diagnose.OverBound(&r)), drift,
			quantCSV(&r)[0], quantCSV(&r)[1],
			p.ComputeUnit, g(p.ComputeTheoreticalGFLOPS), g(p.ComputeEmpiricalGFLOPS), p.BandwidthPattern, g(p.BandwidthGBPS),
			opt(p.ReferenceGBPS), p.Reference, opt(r.Share.Reference)})
	}
	cw.Flush()
	return cw.Error()
}

// writeGoBench writes one line per sample in the Go benchmark format, so
// benchstat compares runs directly:
//
//	BenchmarkGemm/backend=go/dtype=f32/shape=512x512x512/threads=2  N  ns/op  GFLOP/s  GB/s  %peak
//
// An op without FLOPs has no GFLOP/s, and its %peak is of bandwidth.
//
// The libraries' versions are comment lines ("# openblas version: …"),
// not benchstat configuration ("key: value", the key in lower case):
// benchstat keeps files of different configuration apart, so a version
// line made two runs on either side of a library upgrade, or with
// another set of backends, two tables with nothing compared.
func writeGoBench(w io.Writer, run *result.Run) error {
	m := run.Machine
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/peakbench/peakbench\ncpu: %s\n", m.OS, m.Arch, m.Model)
	for _, b := range run.Backends {
		if b.Available {
			fmt.Fprintf(w, "# %s version: %s\n", b.Name, strings.ReplaceAll(b.Version, "\n", " "))
		}
	}
	for _, r := range run.Results {
		if r.Error != "" || !r.Verified {
			continue // a failed result has no speed to compare
		}
		name := fmt.Sprintf("Benchmark%s/backend=%s/dtype=%s/shape=%s/threads=%d",
			capitalize(r.Op), r.Backend, r.DType, r.Shape, r.Threads)
		if r.Algorithm != "" {
			name += "/algorithm=" + r.Algorithm
		}
		if r.Cache == "cold" {
			name += "/cache=cold"
		}
		// A name is one field of the line: a space (a -matrix file's
		// name) would shift the iteration count, and benchstat drop it.
		name = strings.Join(strings.Fields(name), "_")
		for _, ns := range r.SamplesNS {
			gflops, gbps := r.FLOPs/ns, r.Bytes/ns
			rate := sig5(gflops) + " GFLOP/s\t"
			share := result.Ratio(gflops, r.Peak.RooflineGFLOPS)
			if r.NoFLOPs() { // no GFLOP/s to show; bound by memory alone, as result.Ceilings has it
				rate, share = "", result.Ratio(gbps, r.Peak.BandwidthGBPS)
			}
			fmt.Fprintf(w, "%s\t%d\t%s ns/op\t%s%s GB/s\t%s %%peak\n", name, r.Iters,
				strconv.FormatFloat(ns, 'f', -1, 64), rate, sig5(gbps), sig5(100*share))
		}
	}
	return nil
}

// sig5 formats v with five significant digits, enough that benchstat's
// changes of the derived units match those of ns/op.
func sig5(v float64) string {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 5, 64), 64)
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// HugePagesText says how the run's host buffers were backed, from the
// system's transparent huge page mode (Env.HugePages).
func HugePagesText(mode string) string {
	const mapped = "buffers of 2 MiB or more mapped on their own and advised for huge pages"
	switch mode {
	case "":
		return "not recorded"
	case "never":
		return mapped + ", but transparent huge pages are off (never): 4 KiB pages"
	case "off":
		return "buffers of 2 MiB or more mapped on their own, not advised for huge pages (PEAKBENCH_HUGE_PAGES=off): 4 KiB pages"
	}
	return mapped + " (transparent huge pages: " + mode + ")"
}
