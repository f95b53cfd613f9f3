//go:build !linux

package hostuse

import "time"

// threadCPU is the calling thread's CPU time: unknown here.
func threadCPU() (time.Duration, bool) { return 0, false }

// othersCPU is the run time of this process's other threads and its
// children: unknown here, so WaitQuiet returns at once.
func othersCPU() (map[int]time.Duration, bool) { return nil, false }
