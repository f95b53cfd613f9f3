package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// SpeedupOver returns how many times faster r is than run.Vs on r's
// workload: the Vs backend's median time over r's, both verified (the
// fastest of Vs's series when it has several). ok is false when there is
// no such pair, or when r is the Vs backend's own result.
func SpeedupOver(run *Run, r *Result) (speedup float64, ok bool) {
	if run.Vs == "" || r.Backend == run.Vs || !r.Correct() {
		return 0, false
	}
	base := vsMedian(run, WorkloadOf(r))
	if base <= 0 {
		return 0, false
	}
	return base / r.MedianNS, true
}

// vsMedian is the least median time of run.Vs's verified results on w.
func vsMedian(run *Run, w Workload) float64 {
	best := 0.0
	for i := range run.Results {
		r := &run.Results[i]
		if r.Backend == run.Vs && WorkloadOf(r) == w && r.Correct() && (best == 0 || r.MedianNS < best) {
			best = r.MedianNS
		}
	}
	return best
}

// speedupCell is the -vs column of a result: "1.52×", "base" for the Vs
// backend's own, "" without a pair.
func speedupCell(run *Run, r *Result) string {
	if r.Backend == run.Vs {
		if r.Correct() {
			return "base"
		}
		return ""
	}
	if s, ok := SpeedupOver(run, r); ok {
		return fmt.Sprintf("%.2f×", s)
	}
	return ""
}

// speedupHeader names the -vs column.
func speedupHeader(run *Run) string { return "vs " + run.Vs }

// SpeedupTable is the -vs section: one row per workload, one column per
// series (backend and algorithm) other than Vs, and a last row with each
// series' geometric mean over the workloads it has a speedup on.
type SpeedupTable struct {
	Series  []string
	Rows    []SpeedupRow
	GeoMean []float64 // per series; 0 where it has none
	Count   []int     // workloads behind each geometric mean
}

// SpeedupRow is one workload's speedups, 0 where a series has none.
type SpeedupRow struct {
	Workload
	Speedups []float64
}

// Speedups builds the -vs section of run (empty without run.Vs).
func Speedups(run *Run) SpeedupTable {
	var t SpeedupTable
	if run.Vs == "" {
		return t
	}
	col := map[string]int{}
	row := map[Workload]int{}
	type cell struct {
		w   Workload
		s   string
		val float64
	}
	var cells []cell
	for i := range run.Results {
		r := &run.Results[i]
		if r.Backend == run.Vs {
			continue
		}
		if _, ok := col[r.Series()]; !ok {
			col[r.Series()] = len(t.Series)
			t.Series = append(t.Series, r.Series())
		}
		s, ok := SpeedupOver(run, r)
		if !ok {
			continue
		}
		w := WorkloadOf(r)
		if _, ok := row[w]; !ok {
			row[w] = len(t.Rows)
			t.Rows = append(t.Rows, SpeedupRow{Workload: w})
		}
		cells = append(cells, cell{w, r.Series(), s})
	}
	logSum := make([]float64, len(t.Series))
	t.Count = make([]int, len(t.Series))
	for i := range t.Rows {
		t.Rows[i].Speedups = make([]float64, len(t.Series))
	}
	for _, c := range cells {
		j := col[c.s]
		t.Rows[row[c.w]].Speedups[j] = c.val
		logSum[j] += math.Log(c.val)
		t.Count[j]++
	}
	t.GeoMean = make([]float64, len(t.Series))
	for j := range t.Series {
		if t.Count[j] > 0 {
			t.GeoMean[j] = math.Exp(logSum[j] / float64(t.Count[j]))
		}
	}
	return t
}

// lines returns the section as rows of cells, header first.
func (t SpeedupTable) lines() [][]string {
	head := append([]string{"op", "dtype", "shape", "threads"}, t.Series...)
	out := [][]string{head}
	x := func(v float64) string {
		if v <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", v)
	}
	for _, r := range t.Rows {
		shape := r.Shape
		if r.Cache == "cold" {
			shape += " (cold)"
		}
		c := []string{r.Op, r.DType, shape, fmt.Sprint(r.Threads)}
		for _, v := range r.Speedups {
			c = append(c, x(v))
		}
		out = append(out, c)
	}
	g := []string{"geometric mean", "", "", ""}
	for j, v := range t.GeoMean {
		s := x(v)
		if v > 0 {
			s += fmt.Sprintf(" (%d)", t.Count[j])
		}
		g = append(g, s)
	}
	return append(out, g)
}

// speedupIntro says what the section's numbers are.
func speedupIntro(run *Run) string {
	return fmt.Sprintf("Speedup over %s: %s's median time over each backend's on the same workload, both verified (above 1: faster than %s); the geometric mean is over the workloads in parentheses.", run.Vs, run.Vs, run.Vs)
}

// writeSpeedupTable writes the -vs section for the terminal.
func writeSpeedupTable(w io.Writer, run *Run) error {
	t := Speedups(run)
	if run.Vs == "" {
		return nil
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, speedupIntro(run))
	if len(t.Rows) == 0 {
		fmt.Fprintf(w, "no workload has a verified result of %s and of another backend.\n", run.Vs)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for i, c := range t.lines() {
		if i == 0 {
			c = upper(c)
		}
		fmt.Fprintln(tw, strings.Join(c, "\t")+"\t")
	}
	return tw.Flush()
}

// writeMarkdownSpeedups writes the -vs section in Markdown.
func writeMarkdownSpeedups(w io.Writer, run *Run) {
	if run.Vs == "" {
		return
	}
	t := Speedups(run)
	fmt.Fprintf(w, "### Speedup over %s\n\n%s\n\n", run.Vs, speedupIntro(run))
	if len(t.Rows) == 0 {
		fmt.Fprintf(w, "No workload has a verified result of %s and of another backend.\n\n", run.Vs)
		return
	}
	for i, c := range t.lines() {
		for j := range c {
			c[j] = strings.ReplaceAll(c[j], "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
		if i == 0 {
			fmt.Fprintf(w, "|---|---|---|---:|%s\n", strings.Repeat("---:|", len(c)-4))
		}
	}
	fmt.Fprintln(w)
}

// vsCell is a row's -vs cell (the header's when r is nil); ok is false
// without -vs.
func vsCell(run *Run, r *Result) (c string, ok bool) {
	if run.Vs == "" {
		return "", false
	}
	if r == nil {
		return speedupHeader(run), true
	}
	return speedupCell(run, r), true
}
