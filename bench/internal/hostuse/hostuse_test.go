package hostuse

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// spin keeps n goroutines busy for d.
func spin(n int, d time.Duration) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for end := time.Now().Add(d); time.Now().Before(end); {
				x++
			}
			_ = x
		}()
	}
	wg.Wait()
}

// over reads the host around f.
func over(f func()) Use {
	var u Use
	a := Read()
	f()
	u.Add(a, Read())
	return u
}

func TestBusyThreadsCountsThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	u := over(func() { spin(1, 300*time.Millisecond) })
	busy, ok := u.BusyThreads()
	if !ok {
		t.Fatal("CPU time not readable")
	}
	others, _ := u.OtherThreads()
	// One goroutine spinning: one thread busy, less what other processes
	// of a shared machine took from it; never two.
	if busy > 1.3 || busy+others < 0.5 {
		t.Errorf("one spinning thread read as %.2f busy threads (others %.2f)", busy, others)
	}
	if runtime.GOMAXPROCS(0) < 2 {
		return
	}
	// Two spinning goroutines: more CPU time than one, on a machine
	// whose other processes, and the hypervisor of a VM, leave room.
	u2 := over(func() { spin(2, 300*time.Millisecond) })
	busy2, _ := u2.BusyThreads()
	others2, _ := u2.OtherThreads()
	steal, _ := u2.StealShare()
	stolen := steal * float64(runtime.NumCPU()) // CPUs' worth the hypervisor took
	if busy2 > 2.3 || (others2+stolen < 0.3 && busy2 < 1.3) {
		t.Errorf("two spinning threads read as %.2f busy threads (others %.2f, the hypervisor %.2f)", busy2, others2, stolen)
	}
}

func TestBusyThreadsCountsChildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children"); err != nil {
		t.Skip("no /proc/PID/task/TID/children on this kernel")
	}
	// A child that spins, while this process sleeps: its time is counted.
	startChild(t, "HOSTUSE_SPIN")
	time.Sleep(50 * time.Millisecond)
	u := over(func() { time.Sleep(300 * time.Millisecond) })
	busy, ok := u.BusyThreads()
	if !ok {
		t.Fatal("CPU time not readable")
	}
	if busy < 0.3 {
		t.Errorf("a spinning child read as %.2f busy threads", busy)
	}
}

func TestStealShare(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat")
	}
	u := over(func() { spin(1, 100*time.Millisecond) })
	s, ok := u.StealShare()
	if !ok {
		t.Fatal("no ticks counted in 100 ms")
	}
	if s < 0 || s > 1 {
		t.Errorf("steal share %v outside [0, 1]", s)
	}
}

// startChild starts this test binary as TestHelperSpin's child with env
// set, and kills it at the end of t; it skips t where it cannot start.
func startChild(t *testing.T, env string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=TestHelperSpin")
	cmd.Env = append(os.Environ(), env+"=1")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// TestHelperSpin is the child of the tests that count children: it spins
// for three seconds when HOSTUSE_SPIN is set, and sleeps as long when
// HOSTUSE_IDLE is.
func TestHelperSpin(t *testing.T) {
	switch {
	case os.Getenv("HOSTUSE_SPIN") != "":
		spin(1, 3*time.Second)
	case os.Getenv("HOSTUSE_IDLE") != "":
		time.Sleep(3 * time.Second)
	default:
		t.Skip("the child process of the tests that count children")
	}
}
