package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdownRuns writes one run as -format=md does, or several side by
// side: their machines, the best backend per workload in each, and a table
// per op with each run's figures and the change of the time against the
// first run.
func WriteMarkdownRuns(w io.Writer, runs []RunFile) error {
	switch len(runs) {
	case 0:
		return fmt.Errorf("no run to report")
	case 1:
		return writeMarkdown(w, runs[0].Run)
	}
	labels := runLabels(runs)
	fmt.Fprintf(w, "## peakbench: %d runs side by side\n\n", len(runs))
	for i, rf := range runs {
		fmt.Fprintf(w, "- **%s**: %s\n", labels[i], subLabel(rf.Run))
	}
	fmt.Fprintf(w, "\n### Machines\n\n")
	machineTable(runs, labels).markdown(w)
	fmt.Fprintf(w, "### Best backend per workload\n\n")
	summaryTable(runs, labels).markdown(w)
	for _, op := range opOrder(runs) {
		fmt.Fprintf(w, "### %s\n\n", op)
		opTable(runs, labels, op).markdown(w)
	}
	fmt.Fprintln(w, "% of peak: achieved GFLOP/s over the roofline bound of the run's own machine. "+
		"Time vs the first run: change of the median time, ~ when not significant (Mann-Whitney U, α = 0.05).")
	return nil
}

// markdown writes t as a Markdown table; a group's name prefixes its
// columns' headers.
func (t table) markdown(w io.Writer) {
	head := make([]string, len(t.Head))
	for i, h := range t.Head {
		head[i] = h.Text
	}
	col := 0
	for _, g := range t.Groups {
		for j := col; j < col+g.Span && j < len(head); j++ {
			if g.Text != "" {
				head[j] = g.Text + ": " + head[j]
			}
		}
		col += g.Span
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for i := range head {
		head[i] = esc(head[i])
	}
	fmt.Fprintf(w, "| %s |\n|", strings.Join(head, " | "))
	for i := range head {
		// A column of numbers by its head, else by its first cell with
		// text (a "not run" in a column of numbers is not one).
		align := "---"
		if strings.Contains(t.Head[i].Class, "num") {
			align = "---:"
		}
		for _, r := range t.Rows {
			if align != "---" {
				break
			}
			if i < len(r) && r[i].Text != "" {
				if strings.Contains(r[i].Class, "num") {
					align = "---:"
				}
				break
			}
		}
		fmt.Fprintf(w, "%s|", align)
	}
	fmt.Fprintln(w)
	for _, r := range t.Rows {
		cs := make([]string, len(r))
		for i, c := range r {
			cs[i] = esc(c.Text)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cs, " | "))
	}
	fmt.Fprintln(w)
}
