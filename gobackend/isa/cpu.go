package isa

import "sync"

// CurrentCPU is the CPU the calling thread runs on, as the operating system
// numbers it, or −1 where it cannot be read cheaply. The thread may move
// the moment after: the answer is a hint, for placing work where its data
// was left, never for correctness. Read where it costs tens of
// nanoseconds (Linux on amd64: the segment limit its vDSO's getcpu reads),
// after a check, once per process, that it agrees with the getcpu system
// call.
func CurrentCPU() int {
	if !cpuSegmentOK() {
		return -1
	}
	return int(cpuSegmentLimit() & cpuMask)
}

// cpuMask keeps the CPU of Linux's node<<12 | cpu.
const cpuMask = 1<<12 - 1

// cpuSegmentOK checks once that cpuSegmentLimit names the CPU that the
// getcpu system call names, on a thread held still: agreeing in every try
// where the thread did not move between the two system calls around it,
// and in at least cpuChecks of them.
var cpuSegmentOK = sync.OnceValue(func() bool {
	agreed := 0
	for range 4 * cpuChecks {
		before, limit, after, ok := readCPUs()
		if !ok {
			return false
		}
		if before != after {
			continue // moved: no verdict
		}
		if limit == cpuSegmentNone || int(limit&cpuMask) != before {
			return false
		}
		if agreed++; agreed == cpuChecks {
			return true
		}
	}
	return false
})

// cpuChecks is how many agreeing reads cpuSegmentOK needs.
const cpuChecks = 3

// cpuSegmentNone is what cpuSegmentLimit returns where there is no such
// segment.
const cpuSegmentNone = 0xFFFFFFFF
