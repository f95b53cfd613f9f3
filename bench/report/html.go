package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/chart"
	"github.com/peakbench/peakbench/bench/compare"
	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

// RunFile is a run with the name it is shown under: its file name, or ""
// for the run just measured.
type RunFile struct {
	Name string
	Run  *result.Run
}

//go:embed report.html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Parse(htmlSource))

// writeHTML is Write's "html": the report of one run.
func writeHTML(w io.Writer, run *result.Run) error {
	return WriteHTML(w, []RunFile{{Run: run}})
}

// WriteHTML writes one self-contained HTML page (inline CSS and SVG, nothing
// fetched) reporting runs side by side, a column per run: machines and their
// peaks, the best backend per workload, charts, a table per op, failures,
// environments and the method.
func WriteHTML(w io.Writer, runs []RunFile) error {
	if len(runs) == 0 {
		return fmt.Errorf("no run to report")
	}
	v, err := buildView(runs)
	if err != nil {
		return err
	}
	return htmlTemplate.Execute(w, v)
}

// The view: everything the template shows, formatted.

type htmlView struct {
	Title       string
	Subtitle    string
	Multi       bool
	Runs        []runView
	Interrupted []string // labels of interrupted runs
	ModelErrors []string // "label: n results …" for runs with model errors
	NoiseFloor  string   // ModelNoiseFloor, as a percentage
	Checks      []checksView
	Glance      []glanceView // heatmap.go: the first screen
	Summary     table
	Machine     table
	Rooflines   []chartView
	Ops         []opView
	Failures    []failureView
	Env         table
}

type runView struct {
	Label, Sub string
	Compute    table
	Bandwidth  table
	Backends   table
	Noisy      []string
	Failed     int
}

type chartView struct {
	Title   string
	SVG     template.HTML
	WidthPx int // natural width: the chart is drawn for it, and shown no wider
}

type opView struct {
	Op     string
	Anchor string
	Charts []chartView
	Table  table
}

// checksView is what a run's checks found (bench/diagnose): model errors, the
// clock over the run, code-path findings.
type checksView struct {
	Run         string
	ModelErrors table
	Clock       table
	ClockDrift  bool
	Disturbed   []string // peaks measured while another process held a CPU (diagnose.DisturbedLines)
	Findings    []result.Finding
}

type failureView struct {
	Run  string
	Rows table
}

// table is a table of text cells; Groups, when set, is a header row above
// Head whose cells span columns.
type table struct {
	Groups []span
	Head   []cell
	Rows   [][]cell
}

type span struct {
	Text string
	Span int
}

type cell struct {
	Text  string
	Title string  // hover text
	Class string  // num, bad, warn, muted, key; in Head, num right-aligns a Markdown column
	Share float64 // > 0: draw a bar of this fraction behind the text
}

func (c cell) SharePct() string { return strconv.FormatFloat(min(100*c.Share, 100), 'f', 1, 64) }

func txt(s string) cell        { return cell{Text: s} }
func long(s string) cell       { return cell{Text: s, Class: "wrap"} }
func num(s string) cell        { return cell{Text: s, Class: "num"} }
func heads(s ...string) []cell { return cellsOf(s, "") }
func cellsOf(s []string, class string) []cell {
	out := make([]cell, len(s))
	for i, t := range s {
		out[i] = cell{Text: t, Class: class}
	}
	return out
}

func shareCell(f float64) cell {
	return cell{Text: units.Percent(f), Class: "num share", Share: f}
}

// label names run i for column headers: its file name without the
// extension, else its host.
func label(rf RunFile, i int) string {
	if rf.Name != "" {
		return strings.TrimSuffix(filepath.Base(rf.Name), ".json")
	}
	if rf.Run.Env.Host != "" {
		return rf.Run.Env.Host
	}
	return fmt.Sprintf("run %d", i+1)
}

// runLabels names every run, distinctly.
func runLabels(runs []RunFile) []string {
	labels := make([]string, len(runs))
	for i, rf := range runs {
		labels[i] = label(rf, i)
	}
	// Two files may share a name (results/a.json, other/a.json).
	for i := range labels {
		for j := i + 1; j < len(labels); j++ {
			if labels[j] == labels[i] {
				labels[j] = fmt.Sprintf("%s (%d)", labels[j], j+1)
			}
		}
	}
	return labels
}

func subLabel(run *result.Run) string {
	var parts []string
	for _, s := range []string{run.Env.Host, run.Machine.Model, startTime(run.Env.Start)} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}

func startTime(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func buildView(runs []RunFile) (*htmlView, error) {
	v := &htmlView{Title: "peakbench report", Multi: len(runs) > 1, NoiseFloor: units.Percent(diagnose.ModelNoiseFloor)}
	labels := runLabels(runs)
	all := make([]*result.Run, len(runs))
	for i, rf := range runs {
		all[i] = rf.Run
	}
	pal := chart.NewPalette(all...)
	if v.Multi {
		v.Subtitle = fmt.Sprintf("%d runs side by side: %s", len(runs), strings.Join(labels, ", "))
	} else {
		v.Subtitle = subLabel(runs[0].Run)
	}
	for i, rf := range runs {
		rv := runView{Label: labels[i], Sub: subLabel(rf.Run)}
		rv.Compute, rv.Bandwidth = peakTables(rf.Run)
		rv.Backends = backendTable(rf.Run)
		for _, r := range rf.Run.Results {
			if r.Noisy {
				rv.Noisy = append(rv.Noisy, fmt.Sprintf("%s: spread %s (target %s)", compare.KeyOf(&r), units.Percent(r.Spread), units.Percent(rf.Run.Env.NoiseTarget)))
			}
			if r.Error != "" || !r.Verified {
				rv.Failed++
			}
		}
		if rf.Run.Interrupted {
			v.Interrupted = append(v.Interrupted, labels[i])
		}
		if n := len(rf.Run.ModelErrors); n > 0 {
			v.ModelErrors = append(v.ModelErrors, fmt.Sprintf("%s: %d result(s) above their roofline bound by more than their noise", labels[i], n))
		}
		v.Checks = append(v.Checks, checksOf(rf.Run, labels[i]))
		gl := ""
		if v.Multi {
			gl = labels[i]
		}
		v.Glance = append(v.Glance, glanceOf(rf.Run, gl))
		v.Runs = append(v.Runs, rv)
	}
	v.Summary = summaryTable(runs, labels)
	v.Machine = machineTable(runs, labels)
	v.Env = envTable(runs, labels)

	// Charts: every run's rooflines, then per op its share charts.
	shares := map[string][]chartView{}
	for i, rf := range runs {
		name := ""
		if v.Multi {
			name = labels[i]
		}
		rc := chart.ForRun(rf.Run, pal, name)
		for _, c := range rc.Rooflines {
			s, err := c.SVG()
			if err != nil {
				return nil, err
			}
			v.Rooflines = append(v.Rooflines, chartView{Title: c.Title, SVG: template.HTML(s), WidthPx: c.WidthPx()}) // #nosec: drawn by vgsvg, which escapes text
		}
		for _, c := range rc.Shares {
			s, err := c.SVG()
			if err != nil {
				return nil, err
			}
			op, _, _ := strings.Cut(c.Title, ":")
			shares[op] = append(shares[op], chartView{Title: c.Title, SVG: template.HTML(s), WidthPx: c.WidthPx()})
		}
	}
	for _, op := range opOrder(runs) {
		v.Ops = append(v.Ops, opView{Op: op, Anchor: "op-" + op, Charts: shares[op], Table: opTable(runs, labels, op)})
	}
	for i, rf := range runs {
		if t, ok := failureTable(rf.Run); ok {
			v.Failures = append(v.Failures, failureView{Run: labels[i], Rows: t})
		}
	}
	return v, nil
}

func opOrder(runs []RunFile) []string {
	var ops []string
	for _, rf := range runs {
		for _, r := range rf.Run.Results {
			if !slices.Contains(ops, r.Op) {
				ops = append(ops, r.Op)
			}
		}
	}
	return ops
}

func peakTables(run *result.Run) (compute, bw table) {
	compute.Head = heads("dtype", "unit", "threads", "theoretical GFLOP/s", "how (formula)", "clock GHz", "FLOP/cycle/core", "measured GFLOP/s", "measured / theoretical", "kernel")
	for _, c := range run.Peaks.Compute {
		compute.Rows = append(compute.Rows, []cell{txt(c.DType), txt(c.UnitName()), num(strconv.Itoa(c.Threads)), num(units.Sig(c.TheoreticalGFLOPS)),
			long(c.Formula), num(fmt.Sprintf("%.3f", c.ClockGHz)), num(units.Sig(c.FLOPsPerCycle)), num(units.Sig(c.EmpiricalGFLOPS)),
			num(units.Percent(result.Ratio(c.EmpiricalGFLOPS, c.TheoreticalGFLOPS))), long(c.Kernel)})
	}
	bw.Head = heads("level", "pattern", "threads", "GB/s", "working set / thread", "how (source)")
	for _, b := range run.Peaks.Bandwidth {
		ws := "given"
		if b.WorkingSet > 0 {
			ws = units.Bytes(b.WorkingSet)
		}
		bw.Rows = append(bw.Rows, []cell{txt(b.Level), txt(b.PatternName()), num(strconv.Itoa(b.Threads)), num(units.Sig(b.GBPS)), num(ws), long(b.Source)})
	}
	return compute, bw
}

func backendTable(run *result.Run) table {
	t := table{Head: heads("backend", "device", "available", "version", "details")}
	for _, b := range run.Backends {
		avail := cell{Text: "yes"}
		details := ""
		if !b.Available {
			avail = cell{Text: "no", Class: "warn"}
			details = b.Reason
		} else {
			var kv []string
			for _, k := range slices.Sorted(maps.Keys(b.Details)) {
				kv = append(kv, k+"="+b.Details[k])
			}
			details = strings.Join(kv, ", ")
		}
		t.Rows = append(t.Rows, []cell{{Text: b.Name, Class: "key"}, txt(b.Device), avail, long(b.Version), long(details)})
	}
	return t
}

// runHeads builds a header with one column per run after first.
func runHeads(first []string, labels []string) []cell {
	h := heads(first...)
	for _, l := range labels {
		h = append(h, cell{Text: l})
	}
	return h
}

func machineTable(runs []RunFile, labels []string) table {
	t := table{Head: runHeads([]string{""}, labels)}
	rows := []struct {
		name string
		get  func(*result.Run) string
	}{
		{"model", func(r *result.Run) string { return r.Machine.Model }},
		{"vendor, family/model", func(r *result.Run) string {
			return fmt.Sprintf("%s, %d/%d", r.Machine.Vendor, r.Machine.Family, r.Machine.ModelID)
		}},
		{"micro-architecture", func(r *result.Run) string { return r.Machine.Microarch }},
		{"OS / arch", func(r *result.Run) string { return r.Machine.OS + "/" + r.Machine.Arch }},
		{"logical CPUs", func(r *result.Run) string {
			if r.Machine.Cores <= 0 {
				return strconv.Itoa(r.Machine.CPUs)
			}
			return fmt.Sprintf("%d (%d cores)", r.Machine.CPUs, r.Machine.Cores)
		}},
		{"FP units per core", func(r *result.Run) string {
			m := r.Machine
			return fmt.Sprintf("%d FMA × %d-bit SIMD → %s f32 / %s f64 FLOP/cycle", m.FMAUnits, m.SIMDBits,
				units.Sig(m.FLOPsPerCycle("f32")), units.Sig(m.FLOPsPerCycle("f64")))
		}},
		{"caches", func(r *result.Run) string {
			var cs []string
			for _, c := range r.Machine.Caches {
				s := fmt.Sprintf("L%d %s", c.Level, units.Bytes(c.Bytes))
				if c.SharedBy > 1 {
					s += fmt.Sprintf(" per %d CPUs", c.SharedBy)
				}
				cs = append(cs, s)
			}
			return strings.Join(cs, ", ")
		}},
		{"caches found", func(r *result.Run) string { return foundCaches(r.Peaks) }},
		{"nominal clock", func(r *result.Run) string {
			if r.Machine.NominalGHz <= 0 {
				return "unknown"
			}
			return fmt.Sprintf("%.3f GHz (TSC)", r.Machine.NominalGHz)
		}},
		{"measured clock", func(r *result.Run) string { return measuredClocks(r.Peaks.Compute) }},
		{"features", func(r *result.Run) string { return strings.Join(r.Machine.Features, " ") }},
	}
	for _, row := range rows {
		cs := []cell{{Text: row.name, Class: "key"}}
		for _, rf := range runs {
			cs = append(cs, long(row.get(rf.Run)))
		}
		t.Rows = append(t.Rows, cs)
	}
	return t
}

// foundCaches lists, per thread count, the levels the read sweep found
// (where each plateau ends, all threads together), as -peak prints them:
// the "of" column names them, an L4 the machine does not report included.
func foundCaches(p peak.Peaks) string {
	var out []string
	for _, s := range p.Sweeps {
		var found []string
		for _, c := range p.CachesFor(s.Threads) {
			if !c.Found {
				continue
			}
			f := fmt.Sprintf("%s %s", c.Level, units.Bytes(c.EffectiveBytes))
			if c.ReportedBytes == 0 {
				f += " (not reported)"
			}
			found = append(found, f)
		}
		if len(found) == 0 {
			found = []string{"none"}
		}
		out = append(out, fmt.Sprintf("%s: %s; larger: DRAM", peak.ThreadsText(s.Threads), strings.Join(found, ", ")))
	}
	if len(out) == 0 {
		return "no read sweep in this run"
	}
	return strings.Join(out, "; ")
}

// clockHow finds, in a compute peak's formula, what its clock was read
// under ("clock under 512-bit FMAs", "integer clock"): ComputePeak has no
// field for it.
var clockHow = regexp.MustCompile(`GHz \(((?:clock under|integer clock)[^()]*)\)`)

// measuredClocks lists the compute peaks' clocks, each with what it was
// read under, its thread count and the units whose peaks take it:
// "3.378 GHz (clock under 512-bit FMAs, 1 thread; fma)". One thread count
// has a clock per unit measured, read at different times.
func measuredClocks(cs []peak.ComputePeak) string {
	type clock struct {
		threads int
		ghz     float64
		how     string
		units   []string
	}
	var clocks []*clock
	for _, c := range cs {
		how := ""
		if m := clockHow.FindStringSubmatch(c.Formula); m != nil {
			how = m[1]
		}
		i := slices.IndexFunc(clocks, func(k *clock) bool { return k.threads == c.Threads && k.ghz == c.ClockGHz && k.how == how })
		if i < 0 {
			clocks, i = append(clocks, &clock{threads: c.Threads, ghz: c.ClockGHz, how: how}), len(clocks)
		}
		if u := c.UnitName(); !slices.Contains(clocks[i].units, u) {
			clocks[i].units = append(clocks[i].units, u)
		}
	}
	out := make([]string, len(clocks))
	for i, k := range clocks {
		who := peak.ThreadsText(k.threads)
		if k.how != "" {
			who = k.how + ", " + who
		}
		out[i] = fmt.Sprintf("%.3f GHz (%s; %s)", k.ghz, who, strings.Join(k.units, ", "))
	}
	return strings.Join(out, "; ")
}

func envTable(runs []RunFile, labels []string) table {
	t := table{Head: runHeads([]string{""}, labels)}
	rows := []struct {
		name string
		get  func(*result.Run) string
	}{
		{"file", nil},
		{"start", func(r *result.Run) string { return r.Env.Start }},
		{"host", func(r *result.Run) string { return r.Env.Host }},
		{"Go", func(r *result.Run) string { return r.Env.GoVersion }},
		{"arguments", func(r *result.Run) string { return strings.Join(r.Env.Args, " ") }},
		{"threads", func(r *result.Run) string {
			var ts []string
			for _, res := range r.Results {
				s := strconv.Itoa(res.Threads)
				if !slices.Contains(ts, s) {
					ts = append(ts, s)
				}
			}
			return strings.Join(ts, ", ")
		}},
		{"cache", func(r *result.Run) string { return r.Env.Cache }},
		{"seed", func(r *result.Run) string { return strconv.FormatUint(r.Env.Seed, 10) }},
		{"least sample time", func(r *result.Run) string { return time.Duration(r.Env.MinTimeNS).String() }},
		{"noise target", func(r *result.Run) string { return units.Percent(r.Env.NoiseTarget) + " (IQR / median)" }},
		{"timer overhead", func(r *result.Run) string { return units.Sig(r.Env.TimerOverheadNS) + " ns per pair of clock reads" }},
		{"host buffers", func(r *result.Run) string { return HugePagesText(r.Env.HugePages) }},
		{"results", func(r *result.Run) string {
			noisy := 0
			for _, res := range r.Results {
				if res.Noisy {
					noisy++
				}
			}
			return fmt.Sprintf("%d (%d noisy)", len(r.Results), noisy)
		}},
		{"interrupted", func(r *result.Run) string {
			if r.Interrupted {
				return "yes: stopped before its end"
			}
			return "no"
		}},
	}
	for _, row := range rows {
		cs := []cell{{Text: row.name, Class: "key"}}
		for _, rf := range runs {
			switch {
			case row.get == nil && rf.Name == "":
				cs = append(cs, cell{Text: "(this run)", Class: "muted"})
			case row.get == nil:
				cs = append(cs, long(rf.Name))
			default:
				c := long(row.get(rf.Run))
				if row.name == "interrupted" && rf.Run.Interrupted {
					c.Class = "bad wrap"
				}
				cs = append(cs, c)
			}
		}
		t.Rows = append(t.Rows, cs)
	}
	return t
}

// workloads returns every workload of the runs in the order first met.
func workloads(runs []RunFile) []result.Workload {
	var out []result.Workload
	for _, rf := range runs {
		for i := range rf.Run.Results {
			if w := result.WorkloadOf(&rf.Run.Results[i]); !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

func shapeText(w result.Workload) string {
	if w.Cache == "cold" {
		return w.Shape + " (cold)"
	}
	return w.Shape
}

func summaryTable(runs []RunFile, labels []string) table {
	best := make([]map[result.Workload]result.Best, len(runs))
	for i, rf := range runs {
		best[i] = result.BestByWorkload(rf.Run)
	}
	var t table
	if len(runs) == 1 {
		t.Head = heads("op", "dtype", "shape", "threads", "best backend", "GFLOP/s", "GB/s", "% of peak", "of", "faster than next", "correct")
	} else {
		t.Groups = []span{{"", 4}}
		t.Head = heads("op", "dtype", "shape", "threads")
		for _, l := range labels {
			t.Groups = append(t.Groups, span{l, 4})
			t.Head = append(t.Head, txt("best"))
			t.Head = append(t.Head, cellsOf([]string{"GFLOP/s", "GB/s", "% of peak"}, "num")...) // numbers even where a run has none
		}
	}
	for _, w := range workloads(runs) {
		row := []cell{{Text: w.Op, Class: "key"}, txt(w.DType), txt(shapeText(w)), num(strconv.Itoa(w.Threads))}
		for i := range runs {
			b, ok := best[i][w]
			switch {
			case !ok:
				row = append(row, cell{Text: "not run", Class: "muted"}, txt(""), txt(""), txt(""))
			case b.Best == nil:
				row = append(row, cell{Text: "none correct", Class: "bad"}, txt(""), txt(""), txt(""))
			default:
				sc := resultShareCell(b.Best)
				row = append(row, cell{Text: b.Best.Series(), Class: "key"}, num(gflopsText(b.Best)), num(units.Sig(b.Best.GBPS)), sc)
			}
			if len(runs) == 1 {
				if b.Best == nil {
					row = append(row, txt(""), txt(""), num(fmt.Sprintf("%d/%d", b.Correct, b.Tried)))
					continue
				}
				next := ""
				if b.Next != nil {
					next = fmt.Sprintf("%.2f× %s", b.Speedup(), b.Next.Series())
				}
				row = append(row, txt(result.BoundName(b.Best)), txt(next), num(fmt.Sprintf("%d/%d", b.Correct, b.Tried)))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// opTable lists op's results: every figure for a single run; for several,
// the headline figures of each run side by side and the change of the time
// against the first run (Mann-Whitney U, "~" when not significant).
func opTable(runs []RunFile, labels []string, op string) table {
	var t table
	if len(runs) == 1 {
		t.Head = heads("backend", "dtype", "shape", "threads", "median", "±spread", "GFLOP/s", "GB/s", "FLOP/B",
			"% of peak", "of", "% compute (theor.)", "% compute (meas.)", "% bandwidth", "% of reference stream", "verified")
		mem := hasMemory(runs[0].Run)
		if mem { // before "verified" (memory.go)
			t.Head = append(t.Head[:len(t.Head)-1:len(t.Head)-1], cell{Text: "memory", Title: memoryTitle}, t.Head[len(t.Head)-1])
		}
		for i := range runs[0].Run.Results {
			r := &runs[0].Run.Results[i]
			if r.Op != op {
				continue
			}
			row := []cell{{Text: r.Series(), Class: "key"}, txt(r.DType), txt(shapeText(result.WorkloadOf(r))), num(strconv.Itoa(r.Threads))}
			if r.Error != "" {
				row = append(row, cell{Text: "error: " + r.Error, Class: "bad"})
				for len(row) < len(t.Head) {
					row = append(row, txt(""))
				}
				t.Rows = append(t.Rows, row)
				continue
			}
			spread := cell{Text: units.Percent(r.Spread), Class: "num"}
			if r.Noisy {
				spread.Class, spread.Title = "num warn", "noisy: over the noise target"
			}
			if d := r.ClockDrift; d != nil {
				spread.Text += " clock"
				spread.Class = "num warn"
				spread.Title = strings.TrimPrefix(spread.Title+"; ", "; ") + fmt.Sprintf("clock %s off its start-of-run %s GHz (%s before, %s after)",
					units.SignedPercent(d.Drift), units.GHz(d.StartGHz), units.GHz(d.BeforeGHz), units.GHz(d.AfterGHz))
			}
			compT, compE := units.Percent(r.Share.ComputeTheoretical), units.Percent(r.Share.ComputeEmpirical)
			if r.NoFLOPs() { // no share of a compute peak, as no GFLOP/s
				compT, compE = "-", "-"
			}
			row = append(row, num(units.Duration(r.MedianNS)), spread, num(gflopsText(r)), num(units.Sig(r.GBPS)), num(units.Sig(r.Intensity)),
				resultShareCell(r), txt(result.BoundName(r)), num(compT), num(compE), num(units.Percent(r.Share.Bandwidth)), referenceCell(r))
			if mem {
				row = append(row, memoryCell(r))
			}
			row = append(row, verifiedCell(r))
			if !r.Verified {
				for j := 4; j < len(row)-1; j++ {
					row[j].Class += " struck"
				}
			}
			t.Rows = append(t.Rows, row)
		}
		return t
	}
	t.Groups = []span{{"", 4}}
	t.Head = heads("backend", "dtype", "shape", "threads")
	for i, l := range labels {
		n := 3
		t.Head = append(t.Head, cellsOf([]string{"median", "GFLOP/s", "% of peak"}, "num")...) // numbers even where a run has none
		if i > 0 {
			t.Head = append(t.Head, cell{Text: "time vs " + labels[0], Class: "num", Title: "change of the median time; ~: no significant difference (Mann-Whitney U, α = 0.05)"})
			n++
		}
		t.Groups = append(t.Groups, span{l, n})
	}
	index := make([]map[compare.Key]*result.Result, len(runs))
	var keys []compare.Key
	for i, rf := range runs {
		index[i] = map[compare.Key]*result.Result{}
		for j := range rf.Run.Results {
			r := &rf.Run.Results[j]
			if r.Op != op {
				continue
			}
			k := compare.KeyOf(r)
			if _, dup := index[i][k]; !dup {
				index[i][k] = r
			}
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	deltas := make([]map[compare.Key]compare.Delta, len(runs))
	for i := 1; i < len(runs); i++ {
		deltas[i] = map[compare.Key]compare.Delta{}
		for _, d := range compare.Compare(runs[0].Run, runs[i].Run).Rows {
			deltas[i][d.Key] = d
		}
	}
	for _, k := range keys {
		row := []cell{{Text: k.Backend, Class: "key"}, txt(k.DType), txt(shapeText(result.Workload{Shape: k.Shape, Cache: k.Cache})), num(strconv.Itoa(k.Threads))}
		for i := range runs {
			r, ok := index[i][k]
			switch {
			case !ok:
				row = append(row, cell{Text: "not run", Class: "muted"}, txt(""), txt(""))
			case r.Error != "":
				row = append(row, cell{Text: "error", Class: "bad", Title: r.Error}, txt(""), txt(""))
			case !r.Verified:
				row = append(row, cell{Text: "wrong", Class: "bad", Title: fmt.Sprintf("error %.2g > tolerance %.2g", r.MaxRelErr, r.Tolerance)}, txt(""), txt(""))
			default:
				row = append(row, num(units.Duration(r.MedianNS)), num(gflopsText(r)), resultShareCell(r))
			}
			if i > 0 {
				d, ok := deltas[i][k]
				switch {
				case !ok:
					row = append(row, txt(""))
				case !d.Significant:
					row = append(row, cell{Text: "~", Class: "num muted", Title: fmt.Sprintf("p=%.3f", d.P)})
				default:
					c := cell{Text: d.DeltaString(), Class: "num", Title: fmt.Sprintf("p=%.3f", d.P)}
					if d.Change > 0 {
						c.Class += " bad"
					} else {
						c.Class += " good"
					}
					row = append(row, c)
				}
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// resultShareCell is r's share of its roofline bound, with the bound as
// its title; "!" and in red when above it beyond its noise (OverBound).
func resultShareCell(r *result.Result) cell {
	c := shareCell(r.Share.Roofline)
	c.Title = fmt.Sprintf("%s of the %s bound (%s GFLOP/s)", units.Percent(r.Share.Roofline), result.BoundName(r), units.Sig(r.Peak.RooflineGFLOPS))
	if r.NoFLOPs() { // its roofline bound is 0 GFLOP/s: it is a share of bandwidth
		c.Title = fmt.Sprintf("%s of the %s bound (%s GB/s)", units.Percent(r.Share.Roofline), result.BoundName(r), units.Sig(r.Peak.BandwidthGBPS))
	}
	if diagnose.OverBound(r) {
		c.Text += " !"
		c.Class += " bad"
		c.Title += fmt.Sprintf(": above it by more than its noise (limit %s), a model error (see Checks)", units.Percent(diagnose.ModelLimit(r)))
	}
	return c
}

func verifiedCell(r *result.Result) cell {
	if r.Verified {
		return cell{Text: "ok", Title: fmt.Sprintf("%s: max error %.2g ≤ %.2g", r.VerifyMethod, r.MaxRelErr, r.Tolerance)}
	}
	return cell{Text: "FAILED", Class: "bad", Title: fmt.Sprintf("max error %.2g > %.2g", r.MaxRelErr, r.Tolerance)}
}

// checksOf lays out run's checks for the HTML report.
func checksOf(run *result.Run, label string) checksView {
	c := checksView{Run: label}
	c.ModelErrors.Head = heads("result", "% of bound", "limit", "bound", "likely cause")
	for _, e := range run.ModelErrors {
		c.ModelErrors.Rows = append(c.ModelErrors.Rows, []cell{{Text: e.What(), Class: "key"}, {Text: units.Percent(e.Share), Class: "num bad"},
			num(units.Percent(e.Limit)), long(e.Bound + ": " + e.BoundText()), long(e.Text)})
	}
	noise := diagnose.NoiseTarget(run)
	c.Clock.Head = heads("threads", "start GHz", "end GHz", "drift", "GHz across the run", "workloads checked", "results marked")
	for _, k := range run.ClockEnd {
		end, drift := "not read", ""
		if k.EndGHz > 0 {
			end, drift = units.GHz(k.EndGHz), units.SignedPercent(k.Drift)
		}
		between := ""
		if k.MaxGHz > 0 {
			between = units.GHz(k.MinGHz) + "–" + units.GHz(k.MaxGHz)
		}
		dc := num(drift)
		if k.Drifted(noise) {
			dc.Class, c.ClockDrift = "num bad", true
		}
		c.Clock.Rows = append(c.Clock.Rows, []cell{num(strconv.Itoa(k.Threads)), num(units.GHz(k.StartGHz)), num(end), dc, num(between), num(strconv.Itoa(k.Checks)), num(strconv.Itoa(k.Marked))})
	}
	c.Disturbed = diagnose.DisturbedLines(run)
	for _, b := range run.Backends {
		c.Findings = append(c.Findings, b.Findings...)
	}
	return c
}

func failureTable(run *result.Run) (table, bool) {
	t := table{Head: heads("backend", "op", "dtype", "shape", "threads", "what", "detail")}
	for i := range run.Results {
		r := &run.Results[i]
		var what, detail string
		switch {
		case r.Error != "":
			what, detail = "could not run", r.Error
		case !r.Verified:
			what = fmt.Sprintf("wrong result: max error %.3g > tolerance %.3g", r.MaxRelErr, r.Tolerance)
			if r.MaxRelErr >= 1e308 {
				what = fmt.Sprintf("wrong result: NaN or Inf in the output (tolerance %.3g)", r.Tolerance)
			}
			detail = strings.TrimSpace(r.VerifyMethod + ": " + r.VerifyDetail)
		default:
			continue
		}
		t.Rows = append(t.Rows, []cell{{Text: r.Label(), Class: "key"}, txt(r.Op), txt(r.DType), txt(r.Shape),
			num(strconv.Itoa(r.Threads)), {Text: what, Class: "bad wrap"}, long(detail)})
	}
	return t, len(t.Rows) > 0
}

// referenceCell is a result's share of the stream sampled beside it, with
// what that stream was as its title; empty without one.
func referenceCell(r *result.Result) cell {
	if r.Peak.ReferenceGBPS <= 0 {
		return txt("")
	}
	c := num(units.Percent(r.Share.Reference))
	c.Title = fmt.Sprintf("of %s GB/s: %s", units.Sig(r.Peak.ReferenceGBPS), r.Peak.Reference)
	return c
}
