package gemm

import (
	"runtime"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUnstack checks that a runner on the CPU of another at work moves
// off it, keeps its thread's affinity, and that one on a CPU of its own,
// or with no other CPU to go to, stays.
func TestUnstack(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Skip(err)
	}
	cpu := currentCPU()
	if cpu < 0 {
		t.Skip("getcpu failed")
	}
	cpus := make([]atomic.Int32, 2)
	// Runner 0 elsewhere: no move.
	cpus[0].Store(cpu + 1000)
	if got := unstack(cpus, 1); got != cpu {
		t.Errorf("alone on CPU %d: unstack moved to %d", cpu, got)
	}
	// Runner 0 on this CPU: a move, when the thread may run elsewhere.
	// Once its affinity is whole again the scheduler may bring the thread
	// back before unstack reads its CPU (on a busy machine it did), so a
	// move in any of five tries passes.
	moved := false
	var got int32
	for range 5 {
		cpu = currentCPU()
		cpus[0].Store(cpu)
		got = unstack(cpus, 1)
		var after unix.CPUSet
		if err := unix.SchedGetaffinity(0, &after); err != nil || after != all {
			t.Fatalf("affinity %v after unstack, was %v (%v)", after, all, err)
		}
		if got != cpu && got >= 0 && all.IsSet(int(got)) {
			moved = true
			break
		}
	}
	if all.Count() >= 2 && !moved {
		t.Errorf("stacked on CPU %d with %d CPUs allowed: unstack left it on %d, five times", cpu, all.Count(), got)
	}
	// Every allowed CPU taken by another runner: no move.
	many := make([]atomic.Int32, 0, 64)
	for c := 0; c < 1024 && len(many) < cap(many)-1; c++ {
		if all.IsSet(c) {
			many = append(many, atomic.Int32{})
			many[len(many)-1].Store(int32(c))
		}
	}
	if len(many) < cap(many)-1 {
		many = append(many, atomic.Int32{})
		me := len(many) - 1
		now := currentCPU()
		if got := unstack(many, me); got != now && got != currentCPU() {
			t.Errorf("no free CPU: unstack went from %d to %d", now, got)
		}
		var still unix.CPUSet
		unix.SchedGetaffinity(0, &still)
		if still != all {
			t.Errorf("affinity %v after a refused move, was %v", still, all)
		}
	}
}
