package gemm

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestTeamRuns hands jobs to spinning and to sleeping workers (calls in a
// row, and calls after the workers' spin time), from two callers at once:
// every index of every call must run exactly once, and no call may be
// left waiting on a worker that sleeps.
func TestTeamRuns(t *testing.T) {
	var tm team
	done := make(chan bool)
	for caller := range 2 {
		go func() {
			ok := true
			for i := range 60 {
				n := 1 + (i+caller)%4
				ran := make([]atomic.Int32, n)
				tm.run(n, func(t int) { ran[t].Add(1) })
				for j := range ran {
					if ran[j].Load() != 1 {
						ok = false
					}
				}
				if i%3 == 0 { // past the spin time: the workers sleep
					time.Sleep(time.Duration(tm.spinNs.Load()) + 200*time.Microsecond)
				}
			}
			done <- ok
		}()
	}
	for range 2 {
		if !<-done {
			t.Fatal("an index ran other than once")
		}
	}
}
