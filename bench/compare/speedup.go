package compare

import (
	"math"

	"github.com/peakbench/peakbench/bench/result"
)

// Speedups over the -vs backend: the arithmetic the -vs column and
// section of the tables (bench/report) print.

// SpeedupOver returns how many times faster r is than run.Vs on r's
// workload: the Vs backend's median time over r's, both verified (the
// fastest of Vs's series when it has several). ok is false when there is
// no such pair, or when r is the Vs backend's own result.
func SpeedupOver(run *result.Run, r *result.Result) (speedup float64, ok bool) {
	if run.Vs == "" || r.Backend == run.Vs || !r.Correct() {
		return 0, false
	}
	base := vsMedian(run, result.WorkloadOf(r))
	if base <= 0 {
		return 0, false
	}
	return base / r.MedianNS, true
}

// vsMedian is the least median time of run.Vs's verified results on w.
func vsMedian(run *result.Run, w result.Workload) float64 {
	best := 0.0
	for i := range run.Results {
		r := &run.Results[i]
		if r.Backend == run.Vs && result.WorkloadOf(r) == w && r.Correct() && (best == 0 || r.MedianNS < best) {
			best = r.MedianNS
		}
	}
	return best
}

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
	result.Workload
	Speedups []float64
}

// Speedups builds the -vs section of run (empty without run.Vs).
func Speedups(run *result.Run) SpeedupTable {
	var t SpeedupTable
	if run.Vs == "" {
		return t
	}
	col := map[string]int{}
	row := map[result.Workload]int{}
	type cell struct {
		w   result.Workload
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
		w := result.WorkloadOf(r)
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
