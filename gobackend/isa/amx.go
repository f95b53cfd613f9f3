package isa

import "sync"

var (
	amxOnce sync.Once
	amxErr  error
)

// RequestAMX asks the OS, once per process, for the AMX tile data state
// that tile instructions need; nil when granted. Both our AMX kernels and
// the peak model's AMX probes go through it.
func RequestAMX() error {
	amxOnce.Do(func() { amxErr = requestAMX() })
	return amxErr
}
