package num

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// For's pieces 1.. run on a pool of persistent workers rather than on fresh
// goroutines. A fresh goroutine lands in the spawning P's run queue, and an
// idle P has to be woken (on a VM, an idle vCPU halted by the hypervisor) and
// steal it: tens of microseconds, as long as a whole L3-sized axpy, which
// then ran no faster on two threads than on one. A pooled worker spins
// (yielding its P) for spinFor after each piece, so back-to-back calls find
// it awake, as BLAS libraries keep their threads; then it parks, and the
// next call wakes it.

// spinFor is how long an idle worker keeps polling for work before it
// parks.
const spinFor = 100 * time.Microsecond

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

type job struct {
	fn           func(part, lo, hi int)
	part, lo, hi int
	pending      *atomic.Int32 // jobs of the call not yet done
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
		deadline := time.Now().Add(spinFor)
		for i := 0; ; i++ {
			if j := w.job.Swap(nil); j != nil {
				j.fn(j.part, j.lo, j.hi)
				j.pending.Add(-1)
				w.state.Store(idle)
				deadline = time.Now().Add(spinFor)
				continue
			}
			if i%64 == 63 && time.Now().After(deadline) && w.state.CompareAndSwap(idle, parked) {
				break
			}
			runtime.Gosched()
		}
		<-w.wake // a caller set busy and stored a job first
	}
}
