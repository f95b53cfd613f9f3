package backend

import (
	"fmt"
	"runtime/debug"
	"time"
	"unsafe"
)

// Float is an element type of host memory.
type Float interface{ ~float32 | ~float64 }

// slotStride separates the start of buffers placed in consecutive slots.
// Large Go allocations are page-aligned, so without it every operand would
// start at the same address modulo 4 KiB, and loads from one stream would
// falsely alias stores to another (4K aliasing; it costs glibc's memcpy 10×
// on this project's development machine).
const slotStride = 3 * 64

// Place returns a copy of v converted to T, starting slot·192 bytes into a
// page, so that operands given distinct slots never alias by 4 KiB.
func Place[T Float](v []float64, slot int) []T {
	out := PlaceZero[T](len(v), slot)
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}

// PlaceZero returns n zeros of T placed like Place.
func PlaceZero[T Float](n, slot int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	perPage := 4096 / size
	off := (slot * slotStride / size) % perPage
	buf := make([]T, n+perPage)
	return buf[off : off+n : off+n]
}

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
	copies int
	steps  func(copy, iters int)
	output func(copy int) []float64
	last   int
}

// NewHostKernel makes a kernel over copies buffer sets; step runs the
// workload on one set and output reads one set's result.
func NewHostKernel(copies int, step func(copy int), output func(copy int) []float64) *HostKernel {
	return NewHostBatchKernel(copies, func(c, iters int) {
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
func NewHostBatchKernel(copies int, steps func(copy, iters int), output func(copy int) []float64) *HostKernel {
	return &HostKernel{copies: max(copies, 1), steps: steps, output: output}
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

// Close implements Kernel.
func (k *HostKernel) Close() error { return nil }

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
