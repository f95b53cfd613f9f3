package worker

import "time"

// The watchdog: a worker that takes longer than its limit to answer a
// request is taken to hang, stopped, and its backend's results from then
// on carry the error that says so.
//
// The limit of a request is the base timeout (Spec.Timeout: -timeout,
// through backend.OpenOptions; DefaultTimeout without one) or, for a run expected to take longer, runSlack times
// its expected length: iterations × the slowest iteration seen so far on
// that kernel, or before the first, the harness's estimate of one
// (backend.Config.Estimate, the workload at a small share of the
// machine's peak). A hang is then caught within the base timeout on the
// common workloads, and a slow library's large one is never cut short.
const runSlack = 20

// runLimit is the limit of a run of iters iterations.
func (k *kernel) runLimit(iters int) time.Duration {
	per := k.perIter
	if per <= 0 {
		per = k.estimate
	}
	expected := time.Duration(min(float64(per)*float64(iters)*runSlack, float64(24*time.Hour)))
	return max(k.b.spec.Timeout, expected.Round(time.Second))
}
