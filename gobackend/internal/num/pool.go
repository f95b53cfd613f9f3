package num

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// For's pieces are shared between the caller and a pool of persistent
// workers rather than fresh goroutines, each taking the next piece from a
// counter, so that a worker slow to start (its core busy with another
// process, on a shared machine) only means the caller does more pieces.
//
// Why a pool: a fresh goroutine lands in the spawning P's run queue, and an
// idle P has to be woken (on a VM, an idle vCPU halted by the hypervisor) and
// steal it: tens of microseconds, as long as a whole L3-sized axpy, which
// then ran no faster on two threads than on one. A pooled worker spins
// (yielding its P) for spinFor after each piece, so back-to-back calls find
// it awake, as BLAS libraries keep their threads; then it parks, and the
// next call wakes it.

// spinFor is how long an idle worker keeps polling for work before it
// parks. At most GOMAXPROCS−1 workers poll at once (the caller needs a P
// too); the others park at once.
const spinFor = 50 * time.Microsecond

// spinning counts the workers polling.
var spinning atomic.Int32

const (
	idle   int32 = iota // polling for a job
	busy                // claimed by a caller, or running a job
	parked              // asleep on wake
)

type worker struct {
	state atomic.Int32
	job   atomic.Pointer[job]
	wake  chan struct{}
}

// job is one For call: the pieces, and counters of the pieces taken and
// done.
type job struct {
	fn         func(part, lo, hi int)
	n, step    int
	parts      int32
	next, done atomic.Int32
	mu         sync.Mutex // for a caller that sleeps until done
	cond       sync.Cond
}

// work runs pieces until none is left.
func (j *job) work() {
	for {
		p := j.next.Add(1) - 1
		if p >= j.parts {
			return
		}
		lo := int(p) * j.step
		j.fn(int(p), lo, min(lo+j.step, j.n))
		if j.done.Add(1) == j.parts {
			j.mu.Lock()
			j.cond.Broadcast()
			j.mu.Unlock()
		}
	}
}

// wait returns when every piece is done: it polls for a few tens of
// microseconds (256 yields; the other pieces usually end about when the
// caller's do), then sleeps, so that on a busy machine it does not keep a
// core from the workers it waits for.
func (j *job) wait() {
	for range 256 {
		if j.done.Load() == j.parts {
			return
		}
		runtime.Gosched()
	}
	j.mu.Lock()
	for j.done.Load() != j.parts {
		j.cond.Wait()
	}
	j.mu.Unlock()
}

var (
	poolMu  sync.Mutex
	workers atomic.Pointer[[]*worker] // copy on write, under poolMu
)

// dispatch gives j to an idle worker, else a parked one, else a new one.
func dispatch(j *job) {
	if ws := workers.Load(); ws != nil {
		for _, w := range *ws {
			if w.state.CompareAndSwap(idle, busy) {
				w.job.Store(j)
				return
			}
		}
		for _, w := range *ws {
			if w.state.CompareAndSwap(parked, busy) {
				w.job.Store(j)
				w.wake <- struct{}{}
				return
			}
		}
	}
	w := &worker{wake: make(chan struct{}, 1)}
	w.state.Store(busy)
	w.job.Store(j)
	poolMu.Lock()
	var ws []*worker
	if old := workers.Load(); old != nil {
		ws = append(ws, *old...)
	}
	ws = append(ws, w)
	workers.Store(&ws)
	poolMu.Unlock()
	go w.loop()
}

func (w *worker) loop() {
	for {
		// The job the caller claimed this worker for (busy) may not be
		// stored yet: wait for it.
		j := w.job.Swap(nil)
		for j == nil {
			runtime.Gosched()
			j = w.job.Swap(nil)
		}
		j.work()
		if w.poll() {
			continue // claimed while polling
		}
		<-w.wake // a caller set busy and stored a job first
	}
}

// poll marks the worker idle and waits for a caller to claim it, for up to
// spinFor when few enough others poll. It returns true when claimed, false
// when parked.
func (w *worker) poll() bool {
	if int(spinning.Add(1)) > runtime.GOMAXPROCS(0)-1 {
		spinning.Add(-1)
		w.state.Store(parked)
		return false
	}
	defer spinning.Add(-1)
	w.state.Store(idle)
	deadline := time.Now().Add(spinFor)
	for i := 0; ; i++ {
		if w.state.Load() == busy {
			return true
		}
		if i%64 == 63 && time.Now().After(deadline) && w.state.CompareAndSwap(idle, parked) {
			return false
		}
		runtime.Gosched()
	}
}
