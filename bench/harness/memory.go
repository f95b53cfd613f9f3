package harness

import (
	"fmt"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/procmem"
	"github.com/peakbench/peakbench/bench/measure"
	"github.com/peakbench/peakbench/bench/result"
)

// GoCode is implemented by backends whose kernels are Go code run in this
// process (go, asm, gonum): the Go heap allocations made during their calls
// are theirs, and each result counts them.
type GoCode interface{ GoCode() bool }

// OwnProcess is implemented by backends that run in a process of their own
// (the framework workers): their memory figures are that process's, read
// through its process id.
type OwnProcess interface{ PID() int }

// memWatch follows one backend's memory on one workload: over Prepare and
// the verifying run, then over each of its timed runs (memTarget).
type memWatch struct {
	pid     int // 0: this process
	process string
	goHeap  bool

	probe    procmem.Probe
	heap0    procmem.Heap
	ok       bool
	method   string
	prep     int64 // the most Prepare and verify took above the start
	kept     int64 // what they left resident
	run      int64 // the most any one run took above the level before it
	prepHeap procmem.Heap
	runHeap  procmem.Heap
	iters    int64
}

// startMemory begins watching b just before it prepares a workload. The
// heap counters are read last, so that the probe's own reads of /proc are
// not counted as the backend's.
func startMemory(b backend.Backend) *memWatch {
	mw := &memWatch{process: "peakbench"}
	if p, ok := b.(OwnProcess); ok && p.PID() > 0 {
		mw.pid, mw.process = p.PID(), fmt.Sprintf("worker pid %d", p.PID())
	}
	if g, ok := b.(GoCode); ok && mw.pid == 0 {
		mw.goHeap = g.GoCode()
	}
	mw.probe = procmem.Start(mw.pid)
	if mw.goHeap {
		mw.heap0 = procmem.ReadHeap()
	}
	return mw
}

// prepared closes the Prepare-and-verify phase.
func (mw *memWatch) prepared() {
	if mw.goHeap {
		mw.prepHeap = procmem.ReadHeap().Sub(mw.heap0)
	}
	g, method, ok := mw.probe.Growth()
	if !ok {
		return
	}
	mw.ok, mw.method, mw.prep = true, method, g
	mw.kept, _ = mw.probe.Held()
}

// memTarget is a kernel as measure samples it, with its resident memory
// read around each run (outside the timed region, which the kernel times
// itself). Its Go heap is read by a heapTarget inside: memTarget wraps the
// host readings (usageTarget), which allocate as they walk /proc.
type memTarget struct {
	k  measure.Target
	mw *memWatch
}

func (t memTarget) Run(iters int) (time.Duration, error) {
	mw := t.mw
	pr := procmem.Start(mw.pid)
	d, err := t.k.Run(iters)
	if g, _, ok := pr.Growth(); ok {
		mw.run = max(mw.run, g)
	}
	mw.iters += int64(iters)
	return d, err
}

// heapTarget reads the Go heap's counters right around a kernel's runs,
// innermost of the wrappers, so that only the kernel's allocations count:
// read outside the host readings, the asm axpy of 4 Mi f32 on one thread
// showed 40 allocations an iteration, all filepath.Glob's of /proc.
type heapTarget struct {
	k  measure.Target
	mw *memWatch
}

func (t heapTarget) Run(iters int) (time.Duration, error) {
	if !t.mw.goHeap {
		return t.k.Run(iters)
	}
	h0 := procmem.ReadHeap()
	d, err := t.k.Run(iters)
	t.mw.runHeap = t.mw.runHeap.Add(procmem.ReadHeap().Sub(h0))
	return d, err
}

// result is the memory of the result, nil when nothing could be read. The
// peak is the larger of what Prepare and verify took and what they kept
// plus the most one timed run took on top: a library that allocates a
// workspace per call shows it, one that packs into buffers kept from
// Prepare shows those.
func (mw *memWatch) result() *result.Memory {
	if mw == nil || !mw.ok {
		return nil
	}
	m := &result.Memory{PeakGrowthBytes: max(mw.prep, mw.kept+mw.run), Method: mw.method, Process: mw.process}
	switch {
	case mw.goHeap:
		h := &result.GoHeap{PrepareBytes: mw.prepHeap.Bytes, PrepareAllocs: mw.prepHeap.Objects}
		if mw.iters > 0 {
			h.BytesPerIter = float64(mw.runHeap.Bytes) / float64(mw.iters)
			h.AllocsPerIter = float64(mw.runHeap.Objects) / float64(mw.iters)
		}
		m.GoHeap = h
	case mw.pid != 0:
		m.AllocNote = "a worker's allocations are not counted (its own allocator)"
	default:
		m.AllocNote = "a C library's allocations (malloc, device memory) are not counted without interposing its allocator"
	}
	return m
}
