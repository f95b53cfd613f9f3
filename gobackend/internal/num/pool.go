package num

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// For's pieces are shared between the caller and a pool of persistent
// workers rather than fresh goroutines, each running its own stretch of
// pieces and then taking the others' leftovers from their counters, so
// that a worker slow to start (its core busy with another process, on a
// shared machine) only means the caller does more pieces.
//
// Why a pool: a fresh goroutine lands in the spawning P's run queue, and an
// idle P has to be woken (on a VM, an idle vCPU halted by the hypervisor) and
// steal it: tens of microseconds, as long as a whole L3-sized axpy, which
// then ran no faster on two threads than on one. A pooled worker spins for
// spinFor after each piece, so back-to-back calls find it awake, as BLAS
// libraries keep their threads; then it parks, and the next call wakes it.
//
// Waiters poll an atomic in a tight loop and yield their P only every
// yieldEvery polls: runtime.Gosched between polls took a few hundred
// nanoseconds each, and an empty two-piece For cost 740–970 ns against
// 425–455 ns this way (2-vCPU Zen 4 VM, where one cache line crossing
// between the cores takes 85–165 ns and a handoff needs four; 350–470 ns on
// the 2-vCPU Xeon VM).

// spinFor is how long an idle worker keeps polling for work before it
// parks. At most GOMAXPROCS−1 workers poll at once (the caller needs a P
// too); the others park at once.
const spinFor = 50 * time.Microsecond

// spinning counts the workers polling.
var spinning atomic.Int32

// yieldEvery is how many polls a waiter makes between yields of its P (and
// reads of the clock): a few microseconds of polling.
const yieldEvery = 1024

// spinUntil polls done until it is true (it returns true) or for about d
// (false), yielding its P every yieldEvery polls so other goroutines on it
// still run.
func spinUntil(d time.Duration, done func() bool) bool {
	deadline := time.Now().Add(d)
	for i := 1; ; i++ {
		if done() {
			return true
		}
		if i%yieldEvery == 0 {
			if time.Now().After(deadline) {
				return done()
			}
			runtime.Gosched()
		}
	}
}

// A worker's task is all a caller and the worker exchange at a handoff,
// one word on one cache line: idleMark while the worker polls for work,
// parkedMark while it sleeps on wake, else the run a caller gave it. A
// caller claims the worker and gives it the run with one compare-and-swap,
// and the worker learns both with one read; a state and a job pointer
// written apart moved the line between the cores two or three times more.
type worker struct {
	task atomic.Pointer[run]
	wake chan struct{}
}

// idleMark and parkedMark are told apart from runs by their addresses.
var idleMark, parkedMark run

// job is one For call: the pieces, each participant's run of them (see
// work), and the count of pieces done.
type job struct {
	fn      func(part, lo, hi int)
	n, step int
	parts   int32
	runs    []run // one per participant: the caller's first, then each worker's in dispatch order
	done    atomic.Int32
	mu      sync.Mutex // for a caller that sleeps until done
	cond    sync.Cond
	_       [64]byte // keeps the fields above, read at every piece, off the runs' lines
	inline  [inlineRuns]run
}

// inlineRuns is how many runs a job holds in itself, so that a For over up
// to that many threads allocates the job alone.
const inlineRuns = 4

// newJob cuts parts pieces of step elements of [0,n) into one run per
// participant, of threads.
func newJob(fn func(part, lo, hi int), n, step, parts, threads int) *job {
	j := &job{fn: fn, n: n, step: step, parts: int32(parts)}
	j.cond.L = &j.mu
	t := min(parts, threads)
	if t <= inlineRuns {
		j.runs = j.inline[:t]
	} else {
		j.runs = make([]run, t)
	}
	for i := range j.runs {
		r := &j.runs[i]
		r.first, r.end = int32(i*parts/t), int32((i+1)*parts/t)
		r.me, r.job = int32(i), j
	}
	return j
}

// run is one participant's pieces, [first, end), and the next of them to
// take, on a cache line of its own: its owner takes from it at every piece,
// and another participant only once its own run is spent. It names its job
// and its place in it (me), so that a worker given the run needs nothing
// else.
type run struct {
	next       atomic.Int32
	first, end int32
	me         int32
	job        *job
	claimed    atomic.Bool // a participant begins here (begin)
	_          [64 - 28]byte
}

// begin claims the run a participant starts with and returns it: the run
// of the CPU it is on (isa.CurrentCPU modulo the runs), else, where that
// CPU is not known or its run is another's, the participant's own (me),
// else the first unclaimed one after.
//
// Run t is pieces [t·parts/T, (t+1)·parts/T) of T: a contiguous stretch,
// the same one at every call with the same n, and begun on the same CPU,
// so that data a call left in one core's caches (its L2, or its chiplet's
// L3) is what that core takes at the next. The participants are
// goroutines, which Go and Linux move between CPUs: tied to the
// participant instead, the caller's and the worker's halves of a 2-thread
// axpy of 4 Mi f32 changed CPUs at most calls on the Zen 5 Turin VM,
// whose two vCPUs read their own L3s (a C loop with the halves swapped at
// every call ran at 94–99 GB/s, kept in place at 159–174).
func (j *job) begin(me int) int {
	t := len(j.runs)
	if c := currentCPU(); c >= 0 && j.runs[c%t].claimed.CompareAndSwap(false, true) {
		return c % t
	}
	for k := range t {
		if i := (me + k) % t; j.runs[i].claimed.CompareAndSwap(false, true) {
			return i
		}
	}
	return me
}

// currentCPU is isa.CurrentCPU, a variable for the tests.
var currentCPU = isa.CurrentCPU

// work runs the pieces of run start in order, then takes what is left of
// the others' runs, and returns how many it ran, for finish. Taking the
// others' leftovers keeps the balance of pieces taken as they come when a
// thread is held up (its core busy with another process, or a parked
// worker slow to wake).
func (j *job) work(start int) (ran int32) {
	for k := range len(j.runs) {
		r := &j.runs[(start+k)%len(j.runs)]
		for {
			p := r.first + r.next.Add(1) - 1
			if p >= r.end {
				break
			}
			lo := int(p) * j.step
			j.fn(int(p), lo, min(lo+j.step, j.n))
			ran++
		}
	}
	return ran
}

// finish adds the ran pieces of one participant to the count done, and
// wakes a caller sleeping in wait when they were the last. One add per
// participant, not per piece: the count's cache line crosses between cores
// at each add.
func (j *job) finish(ran int32) {
	if ran > 0 && j.done.Add(ran) == j.parts {
		j.mu.Lock()
		j.cond.Broadcast()
		j.mu.Unlock()
	}
}

// wait returns when every piece is done: it polls for up to spinFor (the
// other pieces usually end about when the caller's do), then sleeps, so
// that on a busy machine it does not keep a core from the workers it waits
// for.
func (j *job) wait() {
	if spinUntil(spinFor, func() bool { return j.done.Load() == j.parts }) {
		return
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

// dispatch gives j's run me to an idle worker, else to one still holding
// the run of a call already complete (stale, below), else to a parked one,
// else to a new one: every run gets a runner of its own, which gemm's
// phases, behind a barrier, need. It tries the workers in the order they
// were made, so that while For is called back to back the same worker
// takes the same run.
func dispatch(j *job, me int) {
	r := &j.runs[me]
	if ws := workers.Load(); ws != nil {
		for _, w := range *ws {
			if w.task.CompareAndSwap(&idleMark, r) {
				return
			}
		}
		for _, w := range *ws {
			// A read first: a compare-and-swap on each would take each
			// worker's cache line from the core that last had it.
			if t := w.task.Load(); stale(t) && w.task.CompareAndSwap(t, r) {
				return
			}
		}
		for _, w := range *ws {
			if w.task.Load() == &parkedMark && w.task.CompareAndSwap(&parkedMark, r) {
				w.wake <- struct{}{}
				return
			}
		}
	}
	poolMu.Lock()
	var ws []*worker
	if old := workers.Load(); old != nil {
		ws = append(ws, *old...)
	}
	w := &worker{wake: make(chan struct{}, 1)}
	w.task.Store(r)
	ws = append(ws, w)
	workers.Store(&ws)
	poolMu.Unlock()
	go w.loop()
}

// stale reports whether t is a run of a call already complete: its worker
// was given it but had not started when the other participants took its
// pieces (its thread descheduled, or its goroutine not yet run), and so
// ran none of them, since the count includes a participant's pieces only
// after its release. Such a worker is about to be idle, and its task can
// take the next call's run in place of the stale one, which it then runs
// (loop, release): before, the next call found no worker free and made
// another, and a worker slow to start again and again grew the pool by
// one a call (to 944 workers in a 2-thread benchmark on the Zen 5 VM with
// the other vCPU busy), through which every dispatch then went.
func stale(t *run) bool {
	return t != &idleMark && t != &parkedMark && t != nil && t.job.done.Load() == t.job.parts
}

func (w *worker) loop() {
	r := w.task.Load() // the run a caller gave: nothing else writes task until release but a caller replacing it stale
	for {
		ran := r.job.work(r.job.begin(int(r.me)))
		// Claimable before the count: a caller returns from For once the
		// count is complete and may call it again at once; the worker must
		// be idle by then, or that call finds none and wakes a parked one
		// or makes another. Marked idle after, calls back to back grew the
		// pool to a thousand workers, which dispatch went through at every
		// call.
		spin, next := w.release(r)
		r.job.finish(ran)
		switch {
		case next != nil: // a caller replaced the run, stale, with its own
		case spin && w.poll(): // given a run while polling
		default:
			<-w.wake // a caller stored a run first
		}
		r = w.task.Load()
	}
}

// release gives back the worker's run r: it marks the worker idle, to
// poll, when few enough others poll (spin true), else parked. When a
// caller has replaced r, stale, with a run of its own, it marks nothing
// and next is that run.
func (w *worker) release(r *run) (spin bool, next *run) {
	if int(spinning.Add(1)) > runtime.GOMAXPROCS(0)-1 {
		spinning.Add(-1)
		if w.task.CompareAndSwap(r, &parkedMark) {
			return false, nil
		}
		return false, w.task.Load()
	}
	if w.task.CompareAndSwap(r, &idleMark) {
		return true, nil
	}
	spinning.Add(-1)
	return false, w.task.Load()
}

// poll waits, for up to spinFor, for a caller to give the worker release
// made idle a run. It returns true when given one, false when parked.
func (w *worker) poll() bool {
	defer spinning.Add(-1)
	if spinUntil(spinFor, func() bool { return w.task.Load() != &idleMark }) {
		return true
	}
	// A caller may give a run between the last poll and the park.
	return !w.task.CompareAndSwap(&idleMark, &parkedMark)
}
