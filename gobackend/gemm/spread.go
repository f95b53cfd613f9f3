package gemm

import (
	"sync"
	"sync/atomic"

	"github.com/peakbench/peakbench/gobackend/internal/num"
)

// forThreads runs fn(t) for each t < n on n goroutines at once: the
// caller and n−1 workers of internal/num's pool, one piece each (a runner
// whose partner is late takes its piece too), each the piece of the CPU
// it is on (num.For), so that the same t runs on the same core from call
// to call. The phases of the shared nest wait for each other at a
// barrier, which needs all pieces running at once: For gives each piece a
// runner of its own, and with one piece per runner each takes its own
// before it waits, so all run.
//
// Each runner checks first that it does not share a CPU with a runner
// already at work, and moves to another CPU when it does (unstack); the
// caller too, since it may be the second to start. Linux places a thread
// it wakes on the waker's CPU when it sees no idle one (so after another
// process kept every core busy), and
// a pool's threads that take turns on one CPU, each waiting (and so
// sleeping) while the other runs, never leave it: the load balancer moves
// a thread only from a CPU where two wait to run. On the Zen 5 VM (2
// vCPUs), f32 256³ on two threads, 20 ms of calls after each 3 ms pause
// (as peakbench samples a backend in turn with others), ran 1–4% of its
// calls with both runners on one vCPU (2.2–3.5× as long) and 5–7% with the
// caller alone (the worker waiting behind it, 2×), the other vCPU idle,
// for tens of milliseconds on end: 64–74% of a sample's calls in one run.
func forThreads(n int, fn func(t int)) {
	if n == 1 {
		fn(0)
		return
	}
	cpus := make([]atomic.Int32, n) // each runner's CPU while it runs its piece, else −1
	for i := range cpus {
		cpus[i].Store(-1)
	}
	if parts, step := num.Chunks(n, n, 1, 1); parts != n || step != 1 {
		// Should Chunks ever cut otherwise, fresh goroutines run the
		// pieces, one each.
		var wg sync.WaitGroup
		wg.Add(n - 1)
		for t := 1; t < n; t++ {
			go func() {
				defer wg.Done()
				fn(t)
			}()
		}
		fn(0)
		wg.Wait()
		return
	}
	num.For(n, n, 1, 1, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			cpus[t].Store(unstack(cpus, t))
			fn(t)
			cpus[t].Store(-1)
		}
	})
}
