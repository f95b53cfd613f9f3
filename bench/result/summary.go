package result

// Workload identifies what was computed, whoever computed it.
type Workload struct {
	Op, DType, Shape string
	Threads          int
	Cache            string
}

// WorkloadOf returns the workload r measured.
func WorkloadOf(r *Result) Workload {
	return Workload{Op: r.Op, DType: r.DType, Shape: r.Shape, Threads: r.Threads, Cache: r.Cache}
}

// Best is the fastest correct backend on one workload.
type Best struct {
	Workload
	Best *Result
	// Next is the runner-up, nil when only one backend got a correct result.
	Next *Result
	// Correct counts the results that ran and passed verification; Tried
	// counts every result of the workload.
	Correct, Tried int
}

// Speedup is how many times faster Best is than Next (0 without a Next).
func (b Best) Speedup() float64 {
	if b.Next == nil || b.Next.MedianNS <= 0 {
		return 0
	}
	return b.Next.MedianNS / b.Best.MedianNS
}

// Summarize returns, for every workload of run in the order first measured,
// the fastest backend whose result passed verification (Best is nil when
// none did). The fastest has the least median time, which for one workload
// is the most GFLOP/s and the largest share of any peak of its device.
func Summarize(run *Run) []Best {
	var order []Workload
	m := map[Workload]*Best{}
	for i := range run.Results {
		r := &run.Results[i]
		w := WorkloadOf(r)
		b, ok := m[w]
		if !ok {
			b = &Best{Workload: w}
			m[w] = b
			order = append(order, w)
		}
		b.Tried++
		if !r.Correct() {
			continue
		}
		b.Correct++
		switch {
		case b.Best == nil || r.MedianNS < b.Best.MedianNS:
			b.Best, b.Next = r, b.Best
		case b.Next == nil || r.MedianNS < b.Next.MedianNS:
			b.Next = r
		}
	}
	out := make([]Best, len(order))
	for i, w := range order {
		out[i] = *m[w]
	}
	return out
}

// BestByWorkload is Summarize keyed by workload.
func BestByWorkload(run *Run) map[Workload]Best {
	m := map[Workload]Best{}
	for _, b := range Summarize(run) {
		m[b.Workload] = b
	}
	return m
}
