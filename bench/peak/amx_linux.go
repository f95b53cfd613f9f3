//go:build linux && amd64

package peak

import (
	"fmt"
	"sync"
	"syscall"
)

// Linux hands out the AMX tile data state only on request, once per
// process (arch/x86/include/uapi/asm/prctl.h): without it the first tile
// instruction faults.
const (
	archReqXcompPerm  = 0x1023 // ARCH_REQ_XCOMP_PERM
	xfeatureXTileData = 18     // XFEATURE_XTILEDATA
)

var (
	amxOnce sync.Once
	amxErr  error
)

// requestAMX asks Linux for the tile data state for this process; nil
// when granted (before or now).
func requestAMX() error {
	amxOnce.Do(func() {
		if _, _, e := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXTileData, 0); e != 0 {
			amxErr = fmt.Errorf("arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): %v", e)
		}
	})
	return amxErr
}
