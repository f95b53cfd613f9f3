// Package num holds what the gobackend kernel packages share: the element
// type constraint and the one way they split work over goroutines.
package num

import "sync"

// Float is the element type of every gobackend kernel.
type Float interface{ ~float32 | ~float64 }

// Chunks says how [0,n) is cut for For: into parts pieces of size step
// (the last one shorter), step a multiple of align. It uses at most threads
// pieces and no more than leaves each piece minChunk elements, so a short
// input runs serially instead of paying for goroutines it cannot use.
func Chunks(n, threads, align, minChunk int) (parts, step int) {
	if n <= 0 {
		return 0, 0
	}
	if align < 1 {
		align = 1
	}
	parts = threads
	if minChunk > 0 && n/minChunk < parts {
		parts = n / minChunk
	}
	if parts < 1 {
		parts = 1
	}
	// Round the step up to align, then drop the pieces that rounding emptied.
	step = (n + parts - 1) / parts
	step = (step + align - 1) / align * align
	parts = (n + step - 1) / step
	return parts, step
}

// For runs fn(part, lo, hi) over the pieces Chunks gives, piece 0 on the
// calling goroutine and each other one on its own goroutine, and returns when
// all are done. The pieces depend only on n and the arguments, never on
// timing, so a caller combining per-piece results in piece order is
// deterministic for a given thread count.
func For(n, threads, align, minChunk int, fn func(part, lo, hi int)) {
	parts, step := Chunks(n, threads, align, minChunk)
	if parts == 0 {
		return
	}
	if parts == 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(parts - 1)
	for p := 1; p < parts; p++ {
		lo := p * step
		hi := min(lo+step, n)
		go func() {
			defer wg.Done()
			fn(p, lo, hi)
		}()
	}
	fn(0, 0, min(step, n))
	wg.Wait()
}
