package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/peakbench/peakbench/bench/compare"
	"github.com/peakbench/peakbench/bench/result"
)

// speedupCell is the -vs column of a result: "1.52×", "base" for the Vs
// backend's own, "" without a pair.
func speedupCell(run *result.Run, r *result.Result) string {
	if r.Backend == run.Vs {
		if r.Correct() {
			return "base"
		}
		return ""
	}
	if s, ok := compare.SpeedupOver(run, r); ok {
		return fmt.Sprintf("%.2f×", s)
	}
	return ""
}

// speedupHeader names the -vs column.
func speedupHeader(run *result.Run) string { return "vs " + run.Vs }

// speedupLines returns the -vs section as rows of cells, header first.
func speedupLines(t compare.SpeedupTable) [][]string {
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
func speedupIntro(run *result.Run) string {
	return fmt.Sprintf("Speedup over %s: %s's median time over each backend's on the same workload, both verified (above 1: faster than %s); the geometric mean is over the workloads in parentheses.", run.Vs, run.Vs, run.Vs)
}

// writeSpeedupTable writes the -vs section for the terminal.
func writeSpeedupTable(w io.Writer, run *result.Run) error {
	t := compare.Speedups(run)
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
	for i, c := range speedupLines(t) {
		if i == 0 {
			c = upper(c)
		}
		fmt.Fprintln(tw, strings.Join(c, "\t")+"\t")
	}
	return tw.Flush()
}

// writeMarkdownSpeedups writes the -vs section in Markdown.
func writeMarkdownSpeedups(w io.Writer, run *result.Run) {
	if run.Vs == "" {
		return
	}
	t := compare.Speedups(run)
	fmt.Fprintf(w, "### Speedup over %s\n\n%s\n\n", run.Vs, speedupIntro(run))
	if len(t.Rows) == 0 {
		fmt.Fprintf(w, "No workload has a verified result of %s and of another backend.\n\n", run.Vs)
		return
	}
	for i, c := range speedupLines(t) {
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
func vsCell(run *result.Run, r *result.Result) (c string, ok bool) {
	if run.Vs == "" {
		return "", false
	}
	if r == nil {
		return speedupHeader(run), true
	}
	return speedupCell(run, r), true
}
