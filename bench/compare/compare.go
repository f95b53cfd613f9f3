package compare

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/result"
	"golang.org/x/perf/benchmath"
)

// Key identifies a result across runs: two results with the same key measured
// the same thing and can be compared.
type Key struct {
	Backend, Op, DType, Shape string
	Threads                   int
	Cache                     string
}

// KeyOf returns r's key.
func KeyOf(r *result.Result) Key {
	return Key{Backend: r.Series(), Op: r.Op, DType: r.DType, Shape: r.Shape, Threads: r.Threads, Cache: r.Cache}
}

// String reads like "go gemm f32 512x512x512 threads=2" (+ " cache=cold").
func (k Key) String() string {
	s := fmt.Sprintf("%s %s %s %s threads=%d", k.Backend, k.Op, k.DType, k.Shape, k.Threads)
	if k.Cache != "" && k.Cache != "hot" {
		s += " cache=" + k.Cache
	}
	return s
}

// Confidence is the level of the confidence intervals comparisons show.
const Confidence = 0.95

// Alpha is the significance level of comparisons: a difference counts when
// the Mann-Whitney U test's p-value is below it (benchstat's default).
const Alpha = 0.05

// Delta compares one result's per-iteration times in two runs.
type Delta struct {
	Key
	Old, New benchmath.Summary // median time per iteration and its confidence interval
	OldN     int               // sample counts
	NewN     int
	P        float64 // Mann-Whitney U p-value
	// Significant is P < Alpha: the two samples differ.
	Significant bool
	// Change is New/Old − 1 of the medians: +0.10 is 10% slower.
	Change float64
	// Notes are the statistics' warnings (too few samples, …).
	Notes []string
}

// Comparison is the outcome of comparing two runs result by result.
type Comparison struct {
	Alpha float64
	// Gated is set when a threshold was given: a significant slowdown larger
	// than Threshold (a fraction: 0.05 is 5%) fails the gate.
	Gated     bool
	Threshold float64
	Rows      []Delta
	// Geomean of the matched medians in each run, and its change.
	GeomeanOld, GeomeanNew, GeomeanChange float64
	OnlyOld, OnlyNew                      []Key    // results present in one run only
	Skipped                               []string // matched results that cannot be compared, with the reason
	// NewFailures are the new run's results that failed verification or
	// errored (compared or not), NewTotal its number of results.
	NewFailures []Failure
	NewTotal    int
}

// Compare matches the results of old and new by Key and tests each pair for
// a difference of the time per iteration, the way benchstat does:
// benchmath.AssumeNothing (median, its confidence interval, Mann-Whitney U).
// Gate sets a regression threshold.
func Compare(old, new *result.Run) *Comparison {
	c := &Comparison{Alpha: Alpha, NewFailures: Failures(new), NewTotal: len(new.Results)}
	oldKeys, oldRes := groupResults(old)
	newKeys, newRes := groupResults(new)
	thr := benchmath.DefaultThresholds
	thr.CompareAlpha = Alpha
	var logOld, logNew float64
	n := 0
	for _, k := range oldKeys {
		nr, ok := newRes[k]
		if !ok {
			c.OnlyOld = append(c.OnlyOld, k)
			continue
		}
		or := oldRes[k]
		if why := unusable(or, nr); why != "" {
			c.Skipped = append(c.Skipped, k.String()+": "+why)
			continue
		}
		s1 := benchmath.NewSample(slices.Clone(or.samples), &thr)
		s2 := benchmath.NewSample(slices.Clone(nr.samples), &thr)
		d := Delta{Key: k, OldN: len(s1.Values), NewN: len(s2.Values)}
		d.Old = benchmath.AssumeNothing.Summary(s1, Confidence)
		d.New = benchmath.AssumeNothing.Summary(s2, Confidence)
		cmp := benchmath.AssumeNothing.Compare(s1, s2)
		d.P = cmp.P
		d.Significant = cmp.P < cmp.Alpha
		d.Change = d.New.Center/d.Old.Center - 1
		for _, ws := range [][]error{d.Old.Warnings, d.New.Warnings, cmp.Warnings} {
			for _, w := range ws {
				if !slices.Contains(d.Notes, w.Error()) {
					d.Notes = append(d.Notes, w.Error())
				}
			}
		}
		if d.Old.Center > 0 && d.New.Center > 0 {
			logOld += math.Log(d.Old.Center)
			logNew += math.Log(d.New.Center)
			n++
		}
		c.Rows = append(c.Rows, d)
	}
	for _, k := range newKeys {
		if _, ok := oldRes[k]; !ok {
			c.OnlyNew = append(c.OnlyNew, k)
		}
	}
	if n > 0 {
		c.GeomeanOld, c.GeomeanNew = math.Exp(logOld/float64(n)), math.Exp(logNew/float64(n))
		c.GeomeanChange = c.GeomeanNew/c.GeomeanOld - 1
	}
	return c
}

// Gate makes significant slowdowns larger than threshold (a fraction: 0.05
// is 5%) regressions; it returns c.
func (c *Comparison) Gate(threshold float64) *Comparison {
	c.Gated, c.Threshold = true, threshold
	return c
}

// Regressions returns the significant slowdowns larger than the threshold
// (none without a Gate).
func (c *Comparison) Regressions() []Delta {
	if !c.Gated {
		return nil
	}
	var out []Delta
	for _, d := range c.Rows {
		if d.Significant && d.Change > c.Threshold {
			out = append(out, d)
		}
	}
	return out
}

// GateError is nil when no regression passes the threshold, else a one-line
// error naming the worst ones. A gate with nothing to compare fails too:
// an empty new run, or one whose every result failed, must not pass.
func (c *Comparison) GateError() error {
	if c.Gated && len(c.Rows) == 0 {
		return fmt.Errorf("no result could be compared (%d only in old, %d only in new, %d not compared), so the %s threshold gate cannot pass",
			len(c.OnlyOld), len(c.OnlyNew), len(c.Skipped), pct(c.Threshold))
	}
	regs := c.Regressions()
	if len(regs) == 0 {
		return nil
	}
	slices.SortFunc(regs, func(a, b Delta) int { return -cmp.Compare(a.Change, b.Change) })
	var names []string
	for i, d := range regs {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(regs)-3))
			break
		}
		names = append(names, fmt.Sprintf("%s %+.1f%%", d.Key, 100*d.Change))
	}
	return fmt.Errorf("%d significant regression(s) beyond the %s threshold: %s",
		len(regs), pct(c.Threshold), strings.Join(names, ", "))
}

// pct formats a fraction as a percentage without needless digits: 0.05 → "5%".
func pct(f float64) string {
	return strconv.FormatFloat(100*f, 'f', -1, 64) + "%"
}

// group is the samples of one key in one run (several results with one key
// pool their samples, as benchstat pools repeated lines).
type group struct {
	samples      []float64
	errs, failed int
}

func groupResults(run *result.Run) ([]Key, map[Key]*group) {
	var keys []Key
	m := map[Key]*group{}
	for i := range run.Results {
		r := &run.Results[i]
		k := KeyOf(r)
		g, ok := m[k]
		if !ok {
			g = new(group)
			m[k] = g
			keys = append(keys, k)
		}
		switch {
		case r.Error != "":
			g.errs++
		case !r.Verified:
			g.failed++
		default:
			g.samples = append(g.samples, r.SamplesNS...)
		}
	}
	return keys, m
}

// unusable says why two groups cannot be compared, "" when they can.
func unusable(o, n *group) string {
	side := func(g *group, name string) string {
		switch {
		case len(g.samples) > 0:
			return ""
		case g.errs > 0:
			return "could not run in the " + name + " file"
		case g.failed > 0:
			return "failed verification in the " + name + " file"
		}
		return "no samples in the " + name + " file"
	}
	if s := side(o, "old"); s != "" {
		return s
	}
	return side(n, "new")
}

// Delta formats the change the way benchstat does: "~" when not significant.
func (d Delta) DeltaString() string {
	if !d.Significant {
		return "~"
	}
	return fmt.Sprintf("%+.2f%%", 100*d.Change)
}

// WriteComparison prints c as a table: per result the median time per
// iteration in each run with its 95% confidence interval, the change ("~"
// when not significant) and the test's p-value and sample counts; then the
// geomean, the results present in one run only, and the gate's verdict.
func WriteComparison(w io.Writer, c *Comparison, oldName, newName string) error {
	fmt.Fprintf(w, "old: %s\nnew: %s\n\n", oldName, newName)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BACKEND\tOP\tDTYPE\tSHAPE\tTHREADS\tOLD TIME/OP\tNEW TIME/OP\tVS OLD")
	for _, d := range c.Rows {
		shape := d.Shape
		if d.Cache != "" && d.Cache != "hot" {
			shape += " " + d.Cache
		}
		stat := benchmath.Comparison{P: d.P, N1: d.OldN, N2: d.NewN}.String()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s ± %s\t%s ± %s\t%s\t(%s)\n", d.Backend, d.Op, d.DType, shape, d.Threads,
			units.Duration(d.Old.Center), d.Old.PctRangeString(), units.Duration(d.New.Center), d.New.PctRangeString(), d.DeltaString(), stat)
	}
	if len(c.Rows) > 1 {
		fmt.Fprintf(tw, "geomean\t\t\t\t\t%s\t%s\t%+.2f%%\n", units.Duration(c.GeomeanOld), units.Duration(c.GeomeanNew), 100*c.GeomeanChange)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ntime/op: median nanoseconds per iteration ± the 95%% confidence interval; VS OLD: change of the median, + is slower;\n"+
		"~: no significant difference (Mann-Whitney U test, p ≥ %g).\n", c.Alpha)
	var notes []string
	for _, d := range c.Rows {
		for _, n := range d.Notes {
			if !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, k := range c.OnlyOld {
		fmt.Fprintf(w, "only in old: %s\n", k)
	}
	for _, k := range c.OnlyNew {
		fmt.Fprintf(w, "only in new: %s\n", k)
	}
	for _, s := range c.Skipped {
		fmt.Fprintf(w, "not compared: %s\n", s)
	}
	for _, f := range c.NewFailures {
		fmt.Fprintf(w, "failed in new: %s\n", f)
	}
	if c.Gated {
		if len(c.Rows) == 0 {
			fmt.Fprintf(w, "FAIL: no result compared, so nothing passes the %s threshold\n", pct(c.Threshold))
		} else if n := len(c.Regressions()); n > 0 {
			fmt.Fprintf(w, "FAIL: %d significant regression(s) beyond the %s threshold\n", n, pct(c.Threshold))
		} else {
			fmt.Fprintf(w, "ok: no significant regression beyond the %s threshold\n", pct(c.Threshold))
		}
	}
	return nil
}

// RunLabel names a run for people: its file name (when given), then host and
// start time.
func RunLabel(run *result.Run, file string) string {
	var parts []string
	if run.Env.Host != "" {
		parts = append(parts, run.Env.Host)
	}
	if run.Env.Start != "" {
		parts = append(parts, run.Env.Start)
	}
	if file == "" {
		if len(parts) == 0 {
			return run.Machine.Model
		}
		return strings.Join(parts, ", ")
	}
	if len(parts) == 0 {
		return file
	}
	return file + " (" + strings.Join(parts, ", ") + ")"
}
