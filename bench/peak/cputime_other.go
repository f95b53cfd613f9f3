//go:build !linux

package peak

import "time"

// threadCPU reports that this OS does not tell a thread's CPU time here.
func threadCPU() (time.Duration, bool) { return 0, false }
