// Package procmem measures the memory a process takes while it runs a
// workload: how far its resident set rose above where it stood (Probe),
// and what Go code allocated on the Go heap (Heap).
//
// It is the one measurement whichever process runs a backend calls: the
// harness for the backends it runs in its own process, and a process that
// runs a backend on peakbench's behalf (a worker), for itself or, given its
// process id, from outside.
package procmem

import "runtime"

// Method names how a Probe read the resident set.
const (
	// HWM: the kernel's high-water mark of the resident set (VmHWM),
	// reset at Start through /proc/PID/clear_refs: a transient peak inside
	// a library call is caught.
	HWM = "vmhwm"
	// RSS: where the high-water mark cannot be reset (a kernel before 4.0,
	// a process of another user), the resident set (VmRSS) read at Start
	// and at Growth; a transient peak that is freed before Growth is
	// missed, so the figure is a lower bound.
	RSS = "vmrss"
)

// Probe follows one process's resident set from Start.
type Probe struct {
	pid    int
	method string // HWM, RSS, or "" when nothing can be read here
	start  int64  // resident bytes at Start
}

// Start begins following the resident set of process pid (0: this
// process): it resets the high-water mark where the kernel allows it and
// reads the resident set.
func Start(pid int) Probe {
	p := Probe{pid: pid}
	rss, ok := readStatus(pid, "VmRSS")
	if !ok {
		return p // not Linux, or the process is gone: nothing to report
	}
	p.method = RSS
	if resetHWM(pid) == nil {
		p.method = HWM
		// The reset sets the mark to the resident set at the moment of
		// the write; read again after it so that start ≤ mark.
		if r, ok := readStatus(pid, "VmRSS"); ok {
			rss = r
		}
	}
	p.start = rss
	return p
}

// Growth is how far the resident set rose above its level at Start, in
// bytes (never negative: memory freed since counts as no growth), and the
// method that read it; ok is false when nothing could be read. The kernel
// keeps resident counts per CPU and folds them in batches, so the figure
// is good to a few hundred KiB, not to the page.
func (p Probe) Growth() (bytes int64, method string, ok bool) {
	field := "VmRSS"
	if p.method == HWM {
		field = "VmHWM"
	}
	if p.method == "" {
		return 0, "", false
	}
	now, ok := readStatus(p.pid, field)
	if !ok {
		return 0, "", false
	}
	return max(now-p.start, 0), p.method, true
}

// Held is how far the resident set is above its level at Start now, in
// bytes (never negative): what the interval kept, where Growth is the most
// it took.
func (p Probe) Held() (int64, bool) {
	if p.method == "" {
		return 0, false
	}
	now, ok := readStatus(p.pid, "VmRSS")
	return max(now-p.start, 0), ok
}

// Heap is the Go heap's cumulative allocation counters of this process.
type Heap struct {
	Bytes   uint64 // runtime.MemStats.TotalAlloc
	Objects uint64 // runtime.MemStats.Mallocs
}

// ReadHeap reads the Go heap's counters. It stops the world for a moment
// (runtime.ReadMemStats): call it outside timed regions.
func ReadHeap() Heap {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Heap{Bytes: ms.TotalAlloc, Objects: ms.Mallocs}
}

// Sub is what was allocated between o and h (h read later).
func (h Heap) Sub(o Heap) Heap { return Heap{Bytes: h.Bytes - o.Bytes, Objects: h.Objects - o.Objects} }

// Add sums two deltas.
func (h Heap) Add(o Heap) Heap { return Heap{Bytes: h.Bytes + o.Bytes, Objects: h.Objects + o.Objects} }
