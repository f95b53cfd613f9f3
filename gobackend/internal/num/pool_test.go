package num

import (
	"runtime"
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

// TestDispatchTakesStaleWorker checks that a call finding no idle worker
// but one holding the run of a call already complete (given it, the worker
// had not started when its caller took its pieces) hands that worker its
// own run rather than making another, and that the worker, once it runs,
// runs the new run and not the stale one.
func TestDispatchTakesStaleWorker(t *testing.T) {
	saved := workers.Load()
	defer workers.Store(saved)

	var oldRan, newRan [2]int
	old := newJob(func(part, lo, hi int) { oldRan[part]++ }, 2, 1, 2, 2)
	w := &worker{wake: make(chan struct{}, 1)}
	w.task.Store(&old.runs[1]) // given, never started
	ws := []*worker{w}
	workers.Store(&ws)
	old.finish(old.work(0)) // the caller takes both pieces
	old.wait()
	if !stale(w.task.Load()) {
		t.Fatal("the run of a complete call is not stale")
	}

	var bar sync.WaitGroup
	bar.Add(2)
	j := newJob(func(part, lo, hi int) {
		newRan[part]++
		bar.Done()
		bar.Wait() // both pieces at once: each participant runs its own
	}, 2, 1, 2, 2)
	dispatch(j, 1)
	if n := len(*workers.Load()); n != 1 {
		t.Fatalf("dispatch made a worker: %d in the pool", n)
	}
	if w.task.Load() != &j.runs[1] {
		t.Fatal("the stale worker was not given the new run")
	}
	go w.loop()
	j.finish(j.work(0))
	j.wait()
	if oldRan != [2]int{1, 1} || newRan != [2]int{1, 1} {
		t.Fatalf("pieces run: the stale call's %v, the new call's %v; want each once", oldRan, newRan)
	}
	for task := w.task.Load(); task != &idleMark && task != &parkedMark; task = w.task.Load() {
		runtime.Gosched() // the worker releases the run just after its piece
	}
	// Leave the worker parked on its own, out of the pool restored: give it
	// nothing more.
}
