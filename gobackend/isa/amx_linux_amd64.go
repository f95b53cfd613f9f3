//go:build !purego

package isa

import (
	"fmt"
	"syscall"
)

// requestAMX asks Linux for the AMX tile data state (arch_prctl
// ARCH_REQ_XCOMP_PERM with XFEATURE_XTILEDATA,
// arch/x86/include/uapi/asm/prctl.h): until a process has it, the first
// tile instruction faults. The permission is the process's, for every
// thread.
func requestAMX() error {
	const (
		archReqXcompPerm  = 0x1023
		xfeatureXtiledata = 18
	)
	if _, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXtiledata, 0); errno != 0 {
		return fmt.Errorf("arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): %v", errno)
	}
	return nil
}
