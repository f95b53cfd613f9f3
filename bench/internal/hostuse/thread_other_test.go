//go:build !linux

package hostuse

import "time"

// threadCPU is the calling thread's CPU time: unknown here (the tests
// that need it skip).
func threadCPU() (time.Duration, bool) { return 0, false }
