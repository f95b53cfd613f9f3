package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/result"
)

// The report's first screen: per run, a heat map of every workload (rows,
// grouped by op family) against every backend (columns), each cell the
// result's share of its roofline bound coloured from red (0%) to green
// (100%), with its ratio to the workload's fastest, its why label, and its
// findings on hover; then the overview (best per family, backends, top
// findings) as the end-of-run summary prints it.

type glanceView struct {
	Run      string // run label, "" for a single run
	Heat     heatView
	Families table
	Backends table
	Findings []FindingCount
}

type heatView struct {
	Series []string
	Rows   []heatRow
}

type heatRow struct {
	Family   string // set on the first row of a family
	Workload string
	Cells    []heatCell
}

type heatCell struct {
	Empty   bool
	Text    string // share of the bound, or FAILED / ERROR
	Ratio   string // "×0.45" of the fastest; "fastest" on the fastest
	Why     string
	Title   string // hover: figures and findings
	Style   template.CSS
	Fastest bool
	Bad     bool
}

// heatColour is the background of a share: hue 0 (red) at 0% to 120
// (green) at 100% and above.
func heatColour(share float64) template.CSS {
	h := 120 * math.Max(0, math.Min(share, 1))
	return template.CSS(fmt.Sprintf("background: hsl(%.0f, 65%%, 82%%)", h)) // #nosec: a number formatted here
}

func glanceOf(run *result.Run, label string) glanceView {
	g := glanceView{Run: label}
	o := Overviewed(run)
	g.Heat = heatOf(run)
	g.Families.Head = heads("op family", "workloads", "best backend", "% of peak (geo. mean)", "lead over the runner-up")
	for _, f := range o.Families {
		lead := "the only one"
		if f.Next != "" {
			lead = fmt.Sprintf("%.2f× over %s", f.Lead, f.Next)
		}
		g.Families.Rows = append(g.Families.Rows, []cell{{Text: f.Family, Class: "key"}, num(strconv.Itoa(f.Workloads)), {Text: f.Best, Class: "key"}, shareCell(f.Share), txt(lead)})
	}
	g.Backends.Head = heads("backend", "% of peak (geo. mean)", "× the fastest (geo. mean)", "fastest on", "results")
	for _, b := range o.Backends {
		res := strconv.Itoa(b.Results)
		if b.Failed > 0 {
			res += fmt.Sprintf(" (+%d failed)", b.Failed)
		}
		g.Backends.Rows = append(g.Backends.Rows, []cell{{Text: b.Series, Class: "key"}, shareCell(b.Share), num(fmt.Sprintf("%.2f", b.VsBest)),
			num(fmt.Sprintf("%d of %d", b.Fastest, b.Workloads)), num(res)})
	}
	g.Findings = topFindings(o.Findings, 2*SummaryFindings)
	return g
}

func heatOf(run *result.Run) heatView {
	var h heatView
	type wkey = result.Workload
	cells := map[wkey]map[string]*result.Result{}
	bests := result.BestByWorkload(run)
	var order []wkey
	for i := range run.Results {
		r := &run.Results[i]
		s := r.Series()
		if !slices.Contains(h.Series, s) {
			h.Series = append(h.Series, s)
		}
		w := result.WorkloadOf(r)
		if cells[w] == nil {
			cells[w] = map[string]*result.Result{}
			order = append(order, w)
		}
		cells[w][s] = r
	}
	slices.SortStableFunc(order, func(a, b wkey) int { return familyIndex(FamilyOf(a.Op)) - familyIndex(FamilyOf(b.Op)) })
	family, vary := "", threadsVary(run)
	for _, w := range order {
		row := heatRow{Workload: fmt.Sprintf("%s %s %s", w.Op, w.DType, shapeText(w))}
		if f := FamilyOf(w.Op); f != family {
			row.Family, family = f, f
		}
		if vary {
			row.Workload += fmt.Sprintf(" ×%d", w.Threads)
		}
		for _, s := range h.Series {
			r, ok := cells[w][s]
			if !ok {
				row.Cells = append(row.Cells, heatCell{Empty: true})
				continue
			}
			row.Cells = append(row.Cells, heatCellOf(r, fastestNS(bests, w)))
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

func threadsVary(run *result.Run) bool {
	for i := range run.Results {
		if run.Results[i].Threads != run.Results[0].Threads {
			return true
		}
	}
	return false
}

func heatCellOf(r *result.Result, fastest float64) heatCell {
	switch {
	case r.Error != "":
		return heatCell{Text: "ERROR", Bad: true, Title: r.Error}
	case !r.Verified:
		return heatCell{Text: "FAILED", Bad: true, Title: fmt.Sprintf("wrong result: error %.2g over tolerance %.2g", r.MaxRelErr, r.Tolerance)}
	}
	c := heatCell{Text: fmt.Sprintf("%.0f%%", 100*r.Share.Roofline), Why: diagnose.WhyLabel(r), Style: heatColour(r.Share.Roofline)}
	if fastest > 0 && r.MedianNS > 0 {
		if r.MedianNS == fastest {
			c.Fastest, c.Ratio = true, "fastest"
		} else {
			c.Ratio = fmt.Sprintf("×%.2f", fastest/r.MedianNS)
		}
	}
	rate := units.Sig(r.GFLOPS) + " GFLOP/s, "
	if r.NoFLOPs() {
		rate = ""
	}
	lines := []string{fmt.Sprintf("%s: %s, %s%s GB/s; %s of %s", r.Label(), units.Duration(r.MedianNS), rate, units.Sig(r.GBPS), units.Percent(r.Share.Roofline), result.BoundName(r))}
	for _, f := range r.Findings {
		l := f.Text
		if f.Evidence != "" {
			l += " (" + f.Evidence + ")"
		}
		if f.Remedy != "" {
			l += " Remedy: " + f.Remedy
		}
		lines = append(lines, "• "+l)
	}
	c.Title = strings.Join(lines, "\n")
	return c
}
