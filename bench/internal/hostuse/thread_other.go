//go:build !linux

package hostuse

import "time"

// othersCPU is the run time of this process's other threads and its
// children: unknown here, so WaitQuiet returns at once.
func othersCPU() (run map[int]time.Duration, runnable, ok bool) { return nil, false, false }
