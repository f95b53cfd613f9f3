package gemm

import (
	"math/bits"
	"sync"
	"unsafe"
)

// Packing buffers are big (kc×nc elements for B) and a benchmark calls Gemm
// back to back, so they are kept for the next call instead of allocated per
// call: in a cache of their own, by size class (a power of two of
// elements), one per element size.
//
// Not a sync.Pool, for two reasons measured on the Zen 5 VM. A pool of
// buffers of every size handed the small buffer of A's block to the next
// request for B's, which dropped it and allocated 2 MiB afresh at every
// other 1024³ SGEMM. And a pool is emptied by the garbage collector, which
// the other backends of a run keep busy; a buffer allocated again then
// faults its pages in anew, where the runtime gave them back to the
// system. In the standard suite's run of every backend, asm's one-thread
// 1024³ SGEMM took 18–20 ms against 12 ms with only two other backends.
//
// A *[]T of another type with the same size (a named float32, say) fails
// the type assertion in getBuf and is simply dropped.
var bufCaches [2]bufCache

type bufCache struct {
	mu   sync.Mutex
	free [bufClasses][]any // *[]T whose capacity is at least 1<<class
}

const (
	bufClasses = 40
	// keptPerClass buffers at most are kept per size class: a buffer per
	// thread of the largest thread counts run, and a few over.
	keptPerClass = 8
	// keptMaxBytes: larger buffers go back to the garbage collector.
	keptMaxBytes = 64 << 20
)

func cacheFor[T Float]() *bufCache {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return &bufCaches[0]
	}
	return &bufCaches[1]
}

// getBuf returns a buffer of n elements with unspecified contents, starting
// on a 64-byte boundary so that the kernels' vector loads of packed panels
// never straddle cache lines.
func getBuf[T Float](n int) *[]T {
	class := 0
	if n > 1 {
		class = bits.Len(uint(n - 1)) // the least with 1<<class ≥ n
	}
	c := cacheFor[T]()
	c.mu.Lock()
	for free := c.free[class]; len(free) > 0; free = c.free[class] {
		last := free[len(free)-1]
		c.free[class] = free[:len(free)-1]
		if p, ok := last.(*[]T); ok {
			c.mu.Unlock()
			*p = (*p)[:n]
			return p
		}
	}
	c.mu.Unlock()
	var z T
	size := int(unsafe.Sizeof(z))
	s := make([]T, 1<<class+64/size)
	off := int(-uintptr(unsafe.Pointer(&s[0])) % 64 / uintptr(size))
	s = s[off : off+n]
	return &s
}

// putBuf keeps p for a later getBuf, or drops it where its class is full
// or it is too big to keep.
func putBuf[T Float](p *[]T) {
	var z T
	capacity := cap(*p)
	if capacity == 0 || capacity*int(unsafe.Sizeof(z)) > keptMaxBytes {
		return
	}
	class := bits.Len(uint(capacity)) - 1 // the most with 1<<class ≤ capacity
	c := cacheFor[T]()
	c.mu.Lock()
	if len(c.free[class]) < keptPerClass {
		c.free[class] = append(c.free[class], p)
	}
	c.mu.Unlock()
}
