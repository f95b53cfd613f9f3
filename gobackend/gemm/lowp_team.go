package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// lowpTeam runs the extra threads of gemmLowp. A goroutine started for a
// call reaches the other core only after the runtime wakes an OS thread
// there, which on the Intel VM took about 100 µs, a sixth of a 1024³ i8
// product on two threads; a worker of the team, done with a call, watches
// for the next one for as long as the last call took (at most
// maxTeamSpin) before it sleeps, as OpenMP's threads do, so that calls in
// a row start together.
var lowpTeam team

// maxTeamSpin bounds how long an idle worker spins: the "short" idle wait
// the benchmark gives the OpenMP libraries (KMP_BLOCKTIME=1).
const maxTeamSpin = time.Millisecond

// team is a set of worker goroutines, grown to the most a call has asked
// for at once.
type team struct {
	mu     sync.Mutex
	idle   []*teamWorker
	spinNs atomic.Int64 // how long the last call took, bounded by maxTeamSpin
}

// teamWorker runs one job at a time, handed over in job.
type teamWorker struct {
	job      atomic.Pointer[func()]
	sleeping atomic.Bool
	wake     chan struct{} // a token when sleeping was seen set
}

// run runs f(0) on the caller and f(1) … f(n−1) on workers of the team,
// and returns when all are done.
func (tm *team) run(n int, f func(t int)) {
	if n <= 1 {
		f(0)
		return
	}
	start := nanotime()
	ws := tm.take(n - 1)
	var wg sync.WaitGroup
	wg.Add(n - 1)
	for i, w := range ws {
		job := func() {
			defer wg.Done()
			f(i + 1)
		}
		w.give(&job)
	}
	f(0)
	wg.Wait()
	tm.spinNs.Store(min(nanotime()-start, int64(maxTeamSpin)))
	tm.mu.Lock()
	tm.idle = append(tm.idle, ws...)
	tm.mu.Unlock()
}

// take removes n workers from the idle ones, starting those missing.
func (tm *team) take(n int) []*teamWorker {
	ws := make([]*teamWorker, 0, n)
	tm.mu.Lock()
	k := min(n, len(tm.idle))
	ws = append(ws, tm.idle[len(tm.idle)-k:]...)
	tm.idle = tm.idle[:len(tm.idle)-k]
	tm.mu.Unlock()
	for len(ws) < n {
		w := &teamWorker{wake: make(chan struct{}, 1)}
		go w.loop(tm)
		ws = append(ws, w)
	}
	return ws
}

// give hands w a job; w is idle (taken from the team).
func (w *teamWorker) give(job *func()) {
	w.job.Store(job)
	if w.sleeping.Load() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// loop runs the jobs given to w: after each it spins for the team's spin
// time, yielding to other goroutines, then sleeps until given the next.
// (Sleeping is set before the job is checked once more and give checks it
// after storing the job, so one of the two sees the other: no job is left
// behind a sleeping worker.)
func (w *teamWorker) loop(tm *team) {
	for {
		for deadline := nanotime() + tm.spinNs.Load(); w.job.Load() == nil && nanotime() < deadline; {
			runtime.Gosched()
		}
		if j := w.job.Swap(nil); j != nil {
			(*j)()
			continue
		}
		w.sleeping.Store(true)
		if j := w.job.Swap(nil); j != nil {
			w.sleeping.Store(false)
			(*j)()
			continue
		}
		<-w.wake
		w.sleeping.Store(false)
	}
}
