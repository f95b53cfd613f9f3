package hostuse

import (
	"os"
	"os/exec"
	"runtime"
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

// TestWaitQuietWaitsForSpinningThread: a thread of this process spinning
// keeps WaitQuiet waiting until it stops, and no longer.
func TestWaitQuietWaitsForSpinningThread(t *testing.T) {
	needThreadTimes(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	const d = 80 * time.Millisecond
	// The spinner may lose its core to other processes of a shared
	// machine for a few milliseconds, which WaitQuiet takes for quiet:
	// one try in three waiting half of its time is the least asked.
	var waits []time.Duration
	for range 3 {
		started := make(chan bool)
		done := make(chan bool)
		go func() {
			started <- true
			spin(1, d)
			done <- true
		}()
		<-started
		t0 := time.Now()
		waited := WaitQuiet(500*time.Microsecond, 2*time.Second)
		<-done
		if waited > time.Second || time.Since(t0) < waited {
			t.Fatalf("waited %v (in %v) for a thread spinning %v", waited, time.Since(t0), d)
		}
		if waited >= d/2 {
			return
		}
		waits = append(waits, waited)
	}
	t.Errorf("waited %v while a thread spun for %v", waits, d)
}

// TestWaitQuietWhenQuiet: nothing else running, it returns after about
// one window; with a spinner that outlasts the limit, at the limit.
func TestWaitQuietLimits(t *testing.T) {
	needThreadTimes(t)
	if waited := WaitQuiet(time.Millisecond, time.Second); waited > 200*time.Millisecond {
		t.Errorf("waited %v with no other thread busy", waited)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	done := make(chan bool)
	go func() { spin(1, 400*time.Millisecond); done <- true }()
	time.Sleep(5 * time.Millisecond)
	if waited := WaitQuiet(500*time.Microsecond, 30*time.Millisecond); waited < 30*time.Millisecond || waited > 250*time.Millisecond {
		t.Errorf("waited %v for a 400 ms spinner, limit 30 ms", waited)
	}
	<-done
}

// TestWaitQuietCountsChildren: a child process spinning keeps it waiting.
func TestWaitQuietCountsChildren(t *testing.T) {
	needThreadTimes(t)
	cmd := exec.Command(os.Args[0], "-test.run=TestHelperSpin")
	cmd.Env = append(os.Environ(), "HOSTUSE_SPIN=1")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	time.Sleep(100 * time.Millisecond)
	var waits []time.Duration
	for range 3 { // as above: the child may lose its core for a while
		waited := WaitQuiet(500*time.Microsecond, 50*time.Millisecond)
		if waited >= 50*time.Millisecond {
			return
		}
		waits = append(waits, waited)
	}
	t.Errorf("waited %v while a child spun (limit 50 ms)", waits)
}
