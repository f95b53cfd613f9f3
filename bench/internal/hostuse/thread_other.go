//go:build !linux

package hostuse

import "time"

// threadCPU is the calling thread's CPU time: unknown here.
func threadCPU() (time.Duration, bool) { return 0, false }
