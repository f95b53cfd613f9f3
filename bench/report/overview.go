package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/result"
)

// The overview of a run: per op family the best backend, per backend its
// typical share of peak and how far it is from the fastest, and the
// findings that recur. The end-of-run summary prints it; the HTML report
// opens with it as a heat map.

// opFamilies groups ops the way users choose a library for them.
var opFamilies = []struct {
	name string
	ops  []string
}{
	{"gemm", []string{"gemm"}},
	{"gemv", []string{"gemv"}},
	{"blas1", []string{"axpy", "dot"}},
	{"elementwise", []string{"add", "mul", "relu", "sigmoid", "tanh", "exp"}},
	{"reduction", []string{"sum", "max"}},
	{"softmax", []string{"softmax"}},
	{"conv", []string{"conv1d", "conv2d", "conv3d"}},
	{"pool", []string{"maxpool", "avgpool", "adaptiveavgpool"}},
	{"norm", []string{"batchnorm", "layernorm", "groupnorm"}},
}

// FamilyOf is the op family of op: "elementwise" for relu; the op itself
// when it belongs to none.
func FamilyOf(op string) string {
	for _, f := range opFamilies {
		if slices.Contains(f.ops, op) {
			return f.name
		}
	}
	return op
}

// Overview is a run summarised.
type Overview struct {
	Families []FamilyBest
	Backends []BackendScore
	Findings []FindingCount
	Results  int // results in the run
	Verified int // of them, measured and verified
}

// FamilyBest is the best series of one op family.
type FamilyBest struct {
	Family    string
	Workloads int     // distinct workloads of the family in the run
	Best      string  // series (backend, or backend/algorithm)
	Share     float64 // geometric mean share of the roofline bound over its results in the family
	VsBest    float64 // geometric mean of fastest time / its time over its workloads (1: fastest on each)
	Next      string  // the runner-up, "" when none
	Lead      float64 // geometric mean of Next's time / Best's over the workloads both ran
}

// BackendScore is one series across the run.
type BackendScore struct {
	Series    string
	Results   int     // verified results
	Failed    int     // results that errored or failed verification
	Share     float64 // geometric mean share of the roofline bound
	VsBest    float64 // geometric mean of the fastest time / its time, per workload
	Fastest   int     // workloads on which it was the fastest
	Workloads int     // workloads it ran correctly
}

// FindingCount is one finding code of one backend, with how many results
// carry it and the one furthest below its bound as the example.
type FindingCount struct {
	Backend string
	Code    string
	Count   int
	Example *result.Result
	Finding result.Finding
}

// minFamilyCoverage is the least share of a family's workloads a series
// must have run to be ranked in it: a library that ran one easy case is
// not the family's best.
const minFamilyCoverage = 0.5

// Overviewed computes run's overview.
func Overviewed(run *result.Run) Overview {
	var o Overview
	o.Results = len(run.Results)
	bests := result.BestByWorkload(run)
	for _, b := range bests {
		o.Verified += b.Correct
	}
	o.Backends = backendScores(run, bests)
	o.Families = familyBests(run, bests)
	o.Findings = findingCounts(run)
	return o
}

// geo accumulates a geometric mean.
type geo struct {
	logSum float64
	n      int
}

func (g *geo) add(v float64) {
	if v > 0 {
		g.logSum += math.Log(v)
		g.n++
	}
}

func (g geo) mean() float64 {
	if g.n == 0 {
		return 0
	}
	return math.Exp(g.logSum / float64(g.n))
}

func backendScores(run *result.Run, bests map[result.Workload]result.Best) []BackendScore {
	by := map[string]*BackendScore{}
	var order []string
	share, vs := map[string]*geo{}, map[string]*geo{}
	for i := range run.Results {
		r := &run.Results[i]
		s := r.Series()
		b, ok := by[s]
		if !ok {
			b = &BackendScore{Series: s}
			by[s], share[s], vs[s] = b, &geo{}, &geo{}
			order = append(order, s)
		}
		if !r.Correct() {
			b.Failed++
			continue
		}
		b.Results++
		b.Workloads++
		share[s].add(r.Share.Roofline)
		t := fastestNS(bests, result.WorkloadOf(r))
		vs[s].add(t / r.MedianNS)
		if r.MedianNS == t {
			b.Fastest++
		}
	}
	out := make([]BackendScore, 0, len(order))
	for _, s := range order {
		b := by[s]
		b.Share, b.VsBest = share[s].mean(), vs[s].mean()
		out = append(out, *b)
	}
	slices.SortStableFunc(out, func(a, b BackendScore) int { return cmp.Compare(b.VsBest, a.VsBest) })
	return out
}

func familyBests(run *result.Run, bests map[result.Workload]result.Best) []FamilyBest {
	type seriesTimes map[result.Workload]*result.Result
	fam := map[string]map[string]seriesTimes{}
	workloads := map[string]map[result.Workload]bool{}
	var famOrder []string
	for i := range run.Results {
		r := &run.Results[i]
		if !r.Correct() {
			continue
		}
		f := FamilyOf(r.Op)
		if fam[f] == nil {
			fam[f], workloads[f] = map[string]seriesTimes{}, map[result.Workload]bool{}
			famOrder = append(famOrder, f)
		}
		s := r.Series()
		if fam[f][s] == nil {
			fam[f][s] = seriesTimes{}
		}
		w := result.WorkloadOf(r)
		fam[f][s][w] = r
		workloads[f][w] = true
	}
	slices.SortStableFunc(famOrder, func(a, b string) int { return cmp.Compare(familyIndex(a), familyIndex(b)) })
	var out []FamilyBest
	for _, f := range famOrder {
		n := len(workloads[f])
		type ranked struct {
			series      string
			vsBest, shr float64
		}
		var rs []ranked
		for s, byW := range fam[f] {
			if float64(len(byW)) < minFamilyCoverage*float64(n) {
				continue
			}
			var v, sh geo
			for w, r := range byW {
				v.add(fastestNS(bests, w) / r.MedianNS)
				sh.add(r.Share.Roofline)
			}
			rs = append(rs, ranked{s, v.mean(), sh.mean()})
		}
		if len(rs) == 0 {
			continue
		}
		slices.SortFunc(rs, func(a, b ranked) int {
			if c := cmp.Compare(b.vsBest, a.vsBest); c != 0 {
				return c
			}
			return strings.Compare(a.series, b.series)
		})
		fb := FamilyBest{Family: f, Workloads: n, Best: rs[0].series, Share: rs[0].shr, VsBest: rs[0].vsBest}
		if len(rs) > 1 {
			fb.Next = rs[1].series
			var lead geo
			for w, r := range fam[f][fb.Best] {
				if o, ok := fam[f][fb.Next][w]; ok {
					lead.add(o.MedianNS / r.MedianNS)
				}
			}
			fb.Lead = lead.mean()
		}
		out = append(out, fb)
	}
	return out
}

func familyIndex(name string) int {
	for i, f := range opFamilies {
		if f.name == name {
			return i
		}
	}
	return len(opFamilies)
}

// boundCodes are the findings every result has: what bounds it. They are
// not findings to act on, except the overhead one.
var boundCodes = []string{diagnose.CodeBoundCompute, diagnose.CodeBoundMemory}

func findingCounts(run *result.Run) []FindingCount {
	type key struct{ backend, code string }
	by := map[key]*FindingCount{}
	var order []key
	for i := range run.Results {
		r := &run.Results[i]
		for _, f := range r.Findings {
			code := f.Code
			if slices.Contains(boundCodes, code) || code == diagnose.CodeBoundOverhead {
				continue // the overhead bound comes with its per-call overhead finding
			}
			k := key{r.Backend, code}
			c, ok := by[k]
			if !ok {
				c = &FindingCount{Backend: r.Backend, Code: code}
				by[k] = c
				order = append(order, k)
			}
			c.Count++
			if c.Example == nil || r.Share.Roofline < c.Example.Share.Roofline {
				c.Example, c.Finding = r, f
			}
		}
	}
	out := make([]FindingCount, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	// Causes first, then the comparisons with other backends, each by
	// how many results they explain.
	slices.SortStableFunc(out, func(a, b FindingCount) int {
		if ra, rb := relativeCode(a.Code), relativeCode(b.Code); ra != rb {
			if ra {
				return 1
			}
			return -1
		}
		return cmp.Compare(b.Count, a.Count)
	})
	return out
}

// relativeCode says whether a finding compares a result with other
// backends' rather than naming a cause.
func relativeCode(code string) bool {
	return code == diagnose.CodeBehindBest || code == diagnose.CodeUnreached
}

// topFindings picks n of counts, most frequent first, with at most two
// per backend and two per code, so one slow library does not fill the
// screen; the rest follow when fewer were picked.
func topFindings(counts []FindingCount, n int) []FindingCount {
	var out []FindingCount
	perBackend, perCode := map[string]int{}, map[string]int{}
	picked := make([]bool, len(counts))
	for i, c := range counts {
		if len(out) == n {
			return out
		}
		if perBackend[c.Backend] < 2 && perCode[c.Code] < 2 {
			out = append(out, c)
			picked[i] = true
			perBackend[c.Backend]++
			perCode[c.Code]++
		}
	}
	for i, c := range counts {
		if len(out) == n {
			break
		}
		if !picked[i] {
			out = append(out, c)
		}
	}
	return out
}

// SummaryFindings is how many recurring findings the summary lists.
const SummaryFindings = 6

// WriteSummary writes the end-of-run summary: one screen with the best
// backend per op family, each backend's standing, the top findings and
// the files written (files: paths, in order).
func WriteSummary(w io.Writer, run *result.Run, files []string) error {
	o := Overviewed(run)
	fmt.Fprintf(w, "\n== summary: %d results, %d verified; %s\n", o.Results, o.Verified, machineLine(run))
	if len(o.Families) > 0 {
		io.WriteString(w, "\nbest per op family (%peak: geometric mean share of the roofline bound; lead: geometric mean speedup over the runner-up on the workloads both ran)\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  FAMILY\tWORKLOADS\tBEST\t%PEAK\tLEAD")
		for _, f := range o.Families {
			lead := "only one"
			if f.Next != "" {
				lead = fmt.Sprintf("%.2f× over %s", f.Lead, f.Next)
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\n", f.Family, f.Workloads, f.Best, units.Percent(f.Share), lead)
		}
		tw.Flush()
	}
	if len(o.Backends) > 0 {
		io.WriteString(w, "\nbackends (×best: geometric mean of the fastest time over its time, per workload; 1.00 is the fastest everywhere)\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  BACKEND\t%PEAK\t×BEST\tFASTEST ON\tRESULTS")
		for _, b := range o.Backends {
			res := fmt.Sprint(b.Results)
			if b.Failed > 0 {
				res += fmt.Sprintf(" (+%d failed)", b.Failed)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%.2f\t%d of %d\t%s\n", b.Series, units.Percent(b.Share), b.VsBest, b.Fastest, b.Workloads, res)
		}
		tw.Flush()
	}
	if len(o.Findings) > 0 {
		fmt.Fprintln(w, "\ntop findings (all of them: findings in the JSON, the why column, the HTML report)")
		for _, f := range topFindings(o.Findings, SummaryFindings) {
			e := f.Example
			fmt.Fprintf(w, "  - %s, %d result(s), e.g. %s %s %s: %s\n", f.Backend, f.Count, e.Op, e.DType, e.Shape, f.Finding.Text)
			if f.Finding.Remedy != "" {
				fmt.Fprintf(w, "      remedy: %s\n", f.Finding.Remedy)
			}
		}
	}
	if more := len(o.Findings) - SummaryFindings; more > 0 {
		fmt.Fprintf(w, "  … and %d more (backend, finding) pairs\n", more)
	}
	if len(files) > 0 {
		fmt.Fprintf(w, "\nwritten: %s\n", strings.Join(files, ", "))
	}
	return nil
}

// fastestNS is the least median time of a workload's correct results, 0
// when none is correct.
func fastestNS(bests map[result.Workload]result.Best, w result.Workload) float64 {
	if b := bests[w].Best; b != nil {
		return b.MedianNS
	}
	return 0
}
