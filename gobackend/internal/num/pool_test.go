package num

import "testing"

// TestPoolStaysSmall checks that back-to-back calls reuse the workers
// rather than make more, even when a worker is still busy as its call
// returns (it was slow to start and left its pieces to the caller).
func TestPoolStaysSmall(t *testing.T) {
	const threads = 2
	before := 0
	if ws := workers.Load(); ws != nil {
		before = len(*ws) // made by the tests before, on more threads
	}
	for range 20000 {
		For(threads, threads, 1, 0, func(part, lo, hi int) {})
	}
	if n, limit := len(*workers.Load()), max(before, maxWorkers(threads)); n > limit {
		t.Errorf("20000 calls on %d threads left %d workers, want at most %d", threads, n, limit)
	}
}
