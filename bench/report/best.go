package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/result"
)

// summaryCells are a Best as the text printers show it: GB/s beside
// GFLOP/s, which for an op without FLOPs is "-" as in the main table.
func summaryCells(b result.Best) []string {
	threads := fmt.Sprint(b.Threads)
	shape := b.Shape
	if b.Cache == "cold" {
		shape += " (cold)"
	}
	if b.Best == nil {
		return []string{b.Op, b.DType, shape, threads, "none correct", "", "", "", "", ""}
	}
	next := ""
	if b.Next != nil {
		next = fmt.Sprintf("%.2f× %s", b.Speedup(), b.Next.Series())
	}
	share := fmt.Sprintf("%.1f%%", 100*b.Best.Share.Roofline)
	if diagnose.OverBound(b.Best) {
		share += " !"
	}
	return []string{b.Op, b.DType, shape, threads, b.Best.Series(), gflopsText(b.Best), units.Sig(b.Best.GBPS), share, result.BoundName(b.Best), next}
}

var summaryHeader = []string{"op", "dtype", "shape", "threads", "best", "GFLOP/s", "GB/s", "%peak", "of", "faster than"}

// writeMarkdownSummary writes the best backend per workload and its share of
// peak as a Markdown table.
func writeMarkdownSummary(w io.Writer, run *result.Run) {
	bests := result.Summarize(run)
	if len(bests) == 0 {
		return
	}
	fmt.Fprintf(w, "### Best backend per workload\n\n")
	fmt.Fprintf(w, "| %s |\n", strings.Join(summaryHeader, " | "))
	fmt.Fprintf(w, "|---|---|---|---:|---|---:|---:|---:|---|---|\n")
	for _, b := range bests {
		c := summaryCells(b)
		for j := range c {
			c[j] = strings.ReplaceAll(c[j], "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
	}
	fmt.Fprintln(w)
}
