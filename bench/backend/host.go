package backend

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
)

// Float is an element type of host memory.
type Float interface{ ~float32 | ~float64 }

// slotStride separates the start of buffers placed in consecutive slots:
// buffer k of a kernel's operand sets starts (k·576) mod 4096 bytes into a
// page, the rule the C jobs follow (PB_STAGGER in native/timing.c), so that
// Go and C backends stream from the same page offsets. Large Go allocations
// are page-aligned, so without it every operand would start at the same
// offset, and loads from one stream would falsely alias stores to another
// (4K aliasing; it costs glibc's memcpy 10×). The distance matters beyond
// that: on Zen 4 a zmm axpy with y 192 bytes past x ran 13–17% slower from
// L2 than with y 576 bytes past x, and OpenBLAS's likewise (ymm: 1–3%).
const slotStride = 9 * 64

// SetSlots is how many slots one set of w's operands takes, as the C jobs
// count buffers: its inputs, then its output unless it stores into an input
// (axpy's y). Set c's input i goes in slot c·SetSlots+i, its output in slot
// c·SetSlots+inputs.
func SetSlots(w workload.Workload, inputs int) int {
	if w.InPlace() {
		return inputs
	}
	return inputs + 1
}

// Place returns a copy of v converted to T, starting (slot·576) mod 4096
// bytes into a page, from mem (hostmem.Slice: buffers of 2 MiB and more
// are mapped on their own, advised for huge pages, as the C jobs' are).
func Place[T Float](mem *hostmem.Arena, v []float64, slot int) []T {
	out := PlaceZero[T](mem, len(v), slot)
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}

// PlaceZero returns n zeros of T placed like Place.
func PlaceZero[T Float](mem *hostmem.Arena, n, slot int) []T {
	return hostmem.Slice[T](mem, n, SlotOffset(slot))
}

// SlotOffset is where in a page the buffer of slot starts: for operands of
// other element types than Place's (the low-precision gemm's and the
// quantization ops' 8- and 16-bit ones, hostmem.Slice), placed like Place's.
func SlotOffset(slot int) int { return slot * slotStride % hostmem.Page }

// Widen converts a result to float64 for verification.
func Widen[T Float](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// HostKernel is a Kernel for code that runs on the calling goroutine: Run
// runs the iterations, rotating through the buffer copies, and times the
// loop with the monotonic clock.
type HostKernel struct {
	mem    *hostmem.Arena
	copies int
	steps  func(copy, iters int)
	output func(copy int) []float64
	last   int
}

// NewHostKernel makes a kernel over copies buffer sets, placed in mem
// (which Close frees; nil when they are all the Go heap's); step runs the
// workload on one set and output reads one set's result.
func NewHostKernel(mem *hostmem.Arena, copies int, step func(copy int), output func(copy int) []float64) *HostKernel {
	return NewHostBatchKernel(mem, copies, func(c, iters int) {
		for range iters {
			step(c)
		}
	}, output)
}

// NewHostBatchKernel is NewHostKernel for a steps function that runs the
// workload iters times on one set in a loop of its own: a hot run (one set)
// then times a loop that calls the library directly, as the C backends'
// timing loop does, rather than through a function value per iteration
// (a few nanoseconds, a tenth of a 4 KiB dot product).
func NewHostBatchKernel(mem *hostmem.Arena, copies int, steps func(copy, iters int), output func(copy int) []float64) *HostKernel {
	return &HostKernel{mem: mem, copies: max(copies, 1), steps: steps, output: output}
}

// Run implements Kernel.
func (k *HostKernel) Run(iters int) (time.Duration, error) {
	if iters < 1 {
		return 0, fmt.Errorf("backend: Run(%d): iterations must be at least 1", iters)
	}
	c := k.last
	start := time.Now()
	if k.copies == 1 {
		k.steps(0, iters)
	} else {
		for range iters {
			c++
			if c == k.copies {
				c = 0
			}
			k.steps(c, 1)
		}
	}
	d := time.Since(start)
	k.last = c
	return d, nil
}

// Output implements Kernel.
func (k *HostKernel) Output() ([]float64, error) { return k.output(k.last), nil }

// Close implements Kernel: it frees the buffers' mappings, so neither Run
// nor Output may follow it.
func (k *HostKernel) Close() error {
	if k.mem != nil {
		k.mem.Free()
	}
	return nil
}

// ModuleVersion returns the version of module path this binary was built
// with ("(devel)" for the main module built from a checkout).
func ModuleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if bi.Main.Path == path {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return "unknown"
}
