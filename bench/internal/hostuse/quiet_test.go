package hostuse

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

func needThreadTimes(t *testing.T) {
	t.Helper()
	if _, ok := threadCPU(); !ok {
		t.Skip("no per-thread CPU time here")
	}
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
}

// spinThread spins one thread for d and sends the share of d it ran, or 0
// where it was kept off its CPU for longer than maxOff at a time: a
// spinner that another process kept off for two of WaitQuiet's windows
// in a row reads quiet, rightly (under the load of the whole test suite,
// one did after 8 ms of an 80 ms spin that still ran over 90% of it).
func spinThread(d time.Duration, share chan<- float64) {
	const maxOff = 500 * time.Microsecond
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, _ := threadCPU()
	t0 := time.Now()
	kept := true
	for last := t0; last.Sub(t0) < d; {
		now := time.Now()
		kept = kept && now.Sub(last) <= maxOff
		last = now
	}
	c1, _ := threadCPU()
	if !kept {
		share <- 0
		return
	}
	share <- float64(c1-c0) / float64(time.Since(t0))
}

// tries runs try until it reports a spinner that kept its core (a shared
// machine's other processes may take it, and WaitQuiet then rightly sees
// no one busy), at most five times; ok is the last try's verdict.
func tries(t *testing.T, try func() (ok, clean bool, msg string)) {
	t.Helper()
	for range 5 {
		ok, clean, msg := try()
		if clean {
			if !ok {
				t.Error(msg)
			}
			return
		}
	}
	t.Skip("the spinning thread kept losing its core to other processes")
}

// TestWaitQuietWaitsForSpinningThread: a thread of this process spinning
// keeps WaitQuiet waiting until it stops, and no longer.
func TestWaitQuietWaitsForSpinningThread(t *testing.T) {
	needThreadTimes(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	const d = 80 * time.Millisecond
	tries(t, func() (bool, bool, string) {
		share := make(chan float64, 1)
		go spinThread(d, share)
		time.Sleep(time.Millisecond)
		t0 := time.Now()
		waited := WaitQuiet(500*time.Microsecond, 2*time.Second)
		el := time.Since(t0)
		s := <-share
		ok := waited >= d/2 && waited < time.Second && el >= waited
		return ok, s > 0.9, "waited " + waited.String() + " (in " + el.String() + ") for a thread spinning " + d.String()
	})
}

// TestWaitQuietLimits: nothing else running, it returns after about two
// windows; with a spinner that outlasts the limit, at the limit.
func TestWaitQuietLimits(t *testing.T) {
	needThreadTimes(t)
	if waited := WaitQuiet(time.Millisecond, time.Second); waited > 200*time.Millisecond {
		t.Errorf("waited %v with no other thread busy", waited)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	tries(t, func() (bool, bool, string) {
		share := make(chan float64, 1)
		go spinThread(100*time.Millisecond, share)
		time.Sleep(time.Millisecond)
		waited := WaitQuiet(500*time.Microsecond, 30*time.Millisecond)
		s := <-share
		ok := waited >= 30*time.Millisecond && waited < 100*time.Millisecond
		return ok, s > 0.9, "waited " + waited.String() + " for a 100 ms spinner, limit 30 ms"
	})
}

// TestWaitQuietCountsChildren: a child process spinning keeps it waiting.
func TestWaitQuietCountsChildren(t *testing.T) {
	needThreadTimes(t)
	pid := strconv.Itoa(startChild(t, "HOSTUSE_SPIN").Process.Pid)
	time.Sleep(100 * time.Millisecond)
	tries(t, func() (bool, bool, string) {
		c0, t0 := threadsRunTime(pid), time.Now()
		waited := WaitQuiet(500*time.Microsecond, 50*time.Millisecond)
		s := float64(threadsRunTime(pid)-c0) / float64(time.Since(t0))
		return waited >= 50*time.Millisecond, s > 0.9, "waited " + waited.String() + " while a child spun (limit 50 ms)"
	})
}

// TestWaitQuietIdleChild: a child process that sleeps does not keep it
// waiting.
func TestWaitQuietIdleChild(t *testing.T) {
	needThreadTimes(t)
	startChild(t, "HOSTUSE_IDLE")
	time.Sleep(100 * time.Millisecond)
	if waited := WaitQuiet(500*time.Microsecond, time.Second); waited > 200*time.Millisecond {
		t.Errorf("waited %v with only a sleeping child", waited)
	}
}
