package hostuse

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the calling thread's user and system time (the tests'
// spinners measure their own share of the wall clock by it).
func threadCPU() (time.Duration, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
