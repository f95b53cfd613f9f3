//go:build !purego

package isa

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readCPUs reads the CPU by the getcpu system call, by the segment limit,
// and by the system call again, on one locked thread; ok is false where the
// system call fails.
func readCPUs() (before int, limit uint32, after int, ok bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, ok = getcpu()
	limit = cpuSegmentLimit()
	after, ok2 := getcpu()
	return before, limit, after, ok && ok2
}

func getcpu() (int, bool) {
	var cpu, node uint32
	_, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0)
	return int(cpu), e == 0
}
