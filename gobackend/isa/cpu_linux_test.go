package isa

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCurrentCPU pins the test's thread to each CPU it may use in turn and
// reads the CPU back: CurrentCPU names it where it can read it (linux/amd64
// with assembly), and is −1 elsewhere.
func TestCurrentCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Skip("sched_getaffinity:", err)
	}
	defer unix.SchedSetaffinity(0, &all)
	fast := runtime.GOARCH == "amd64" && Best != Generic // Generic: purego, or a CPU without SSE2
	if got := CurrentCPU(); !fast {
		if got != -1 {
			t.Errorf("CurrentCPU() = %d without the assembly, want -1", got)
		}
		return
	} else if got < 0 {
		t.Fatal("CurrentCPU() = -1 on linux/amd64: the segment limit disagreed with getcpu")
	}
	for cpu := range 1024 {
		if !all.IsSet(cpu) {
			continue
		}
		var one unix.CPUSet
		one.Set(cpu)
		if err := unix.SchedSetaffinity(0, &one); err != nil {
			t.Fatalf("pin to CPU %d: %v", cpu, err)
		}
		if got := CurrentCPU(); got != cpu {
			t.Errorf("pinned to CPU %d, CurrentCPU() = %d", cpu, got)
		}
	}
}
