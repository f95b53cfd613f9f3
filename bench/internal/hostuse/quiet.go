package hostuse

import (
	"runtime"
	"time"
)

// WaitQuiet waits until the threads of this process other than the
// caller's, and those of its child processes, keep less than a tenth of a
// CPU busy over two stretches of window in a row (a spinning thread that
// another process took the core from for one stretch is not quiet), at
// most limit in all, and returns
// how long it waited. A library's worker threads spin for a while after
// its last call before they sleep, and a sample of the next backend
// started meanwhile runs with a core taken (see measure.Options.Quiet).
// Where the threads' CPU time cannot be read it returns at once.
func WaitQuiet(window, limit time.Duration) time.Duration {
	// The caller's own thread is left out of the count: it stays the same
	// thread over the wait.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	prev, _, ok := othersCPU()
	if !ok {
		return 0
	}
	for quiet := 0; ; {
		t0 := time.Now()
		time.Sleep(window)
		cur, runnable, ok := othersCPU()
		now := time.Now()
		if !runnable && ranSince(prev, cur)*quietShare <= now.Sub(t0) {
			quiet++
		} else {
			quiet = 0
		}
		if !ok || quiet == 2 || now.Sub(start) >= limit {
			return now.Sub(start)
		}
		prev = cur
	}
}

// quietShare is the inverse of the busy share under which WaitQuiet calls
// the other threads quiet: one thread spinning is busy a whole window, the
// Go runtime's own housekeeping a few microseconds of it.
const quietShare = 10

// ranSince is the CPU time the threads and children of cur ran since
// prev: all of it for one that prev did not have (started since), none
// for one that ended since.
func ranSince(prev, cur map[int]time.Duration) time.Duration {
	var d time.Duration
	for id, t := range cur {
		d += t - prev[id]
	}
	return d
}
