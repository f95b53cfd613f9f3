//go:build !purego

package isa

import "syscall"

// amxPermitted asks Linux for the AMX tile data state (arch_prctl
// ARCH_REQ_XCOMP_PERM with XFEATURE_XTILEDATA): until a process has it,
// the first tile instruction faults. The permission is the process's, for
// every thread; asked for once, when Features is computed, and only on a
// CPU with AMX.
func amxPermitted() bool {
	const (
		sysArchPrctl      = 158
		archReqXcompPerm  = 0x1023
		xfeatureXtiledata = 18
	)
	_, _, errno := syscall.RawSyscall(sysArchPrctl, archReqXcompPerm, xfeatureXtiledata, 0)
	return errno == 0
}
