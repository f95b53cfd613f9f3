package gemm

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/isa"
	"golang.org/x/sys/unix"
)

// currentCPU is the CPU the calling thread runs on, or −1: from
// isa.CurrentCPU where it can read it, else by the getcpu system call.
func currentCPU() int32 {
	if c := isa.CurrentCPU(); c >= 0 {
		return int32(c)
	}
	var cpu, node uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0); e != 0 {
		return -1
	}
	return int32(cpu)
}

// unstack returns the CPU runner me of cpus runs on, having moved it to
// another one first when a runner at work is on the same: its thread's
// affinity is narrowed to the CPUs it may use less those of the others
// at work, which moves it at once, then set back, which leaves it where
// it now is. Nothing moves when the others' CPUs are all it may use.
func unstack(cpus []atomic.Int32, me int) int32 {
	cpu := currentCPU()
	if cpu < 0 || !busy(cpus, me, cpu) {
		return cpu
	}
	runtime.LockOSThread() // both calls for this thread
	defer runtime.UnlockOSThread()
	var all unix.CPUSet
	if unix.SchedGetaffinity(0, &all) != nil {
		return cpu
	}
	free := all
	for i := range cpus {
		if c := cpus[i].Load(); i != me && c >= 0 {
			free.Clear(int(c))
		}
	}
	if free.Count() == 0 || unix.SchedSetaffinity(0, &free) != nil {
		return cpu
	}
	unix.SchedSetaffinity(0, &all)
	return currentCPU()
}

// busy says whether a runner of cpus other than me is at work on cpu.
func busy(cpus []atomic.Int32, me int, cpu int32) bool {
	for i := range cpus {
		if i != me && cpus[i].Load() == cpu {
			return true
		}
	}
	return false
}
