package num

import (
	"sync"
	"testing"
)

// TestForReleasesWorkers checks that every worker For used is claimable
// again when For returns, so that a call right after finds it rather than
// waking or making another. The barrier makes each piece wait for all the
// others, so every worker runs one.
func TestForReleasesWorkers(t *testing.T) {
	for _, threads := range []int{2, 3, 5} {
		for it := range 200 {
			// Workers still busy from calls before (ones slow to start,
			// whose pieces their caller took) keep the run they had.
			before := map[*worker]*run{}
			if ws := workers.Load(); ws != nil {
				for _, w := range *ws {
					before[w] = w.task.Load()
				}
			}
			var bar sync.WaitGroup
			bar.Add(threads)
			For(threads, threads, 1, 1, func(part, lo, hi int) {
				bar.Done()
				bar.Wait()
			})
			for i, w := range *workers.Load() {
				if task := w.task.Load(); task != &idleMark && task != &parkedMark && task != before[w] {
					t.Fatalf("threads=%d, call %d: worker %d still has a run after For returned", threads, it, i)
				}
			}
		}
	}
}
