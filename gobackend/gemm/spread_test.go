package gemm

import (
	"sync/atomic"
	"testing"
)

// TestForThreadsRunsEachOnce checks that forThreads runs every piece once.
func TestForThreadsRunsEachOnce(t *testing.T) {
	for n := 1; n <= 9; n++ {
		ran := make([]atomic.Int32, n)
		forThreads(n, func(i int) { ran[i].Add(1) })
		for i := range ran {
			if got := ran[i].Load(); got != 1 {
				t.Fatalf("n=%d: piece %d ran %d times", n, i, got)
			}
		}
	}
}
