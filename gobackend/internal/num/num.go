// Package num holds what the gobackend kernel packages share: the element
// type constraint and the one way they split work over goroutines.
package num

import "unsafe"

// Float is the element type of every gobackend kernel.
type Float interface{ ~float32 | ~float64 }

// Size is the size of T in bytes: 4 or 8.
func Size[T Float]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// Elems is how many elements of T fit in bytes, at least 1: a minimum piece
// size given in bytes, for Chunks, For and Single.
func Elems[T Float](bytes int) int { return max(1, bytes/Size[T]()) }

// Chunks says how [0,n) is cut for For: into parts pieces of size step
// (the last one shorter), step a multiple of align. Each piece gets at
// least minChunk elements, so a short input runs serially instead of paying
// for goroutines it cannot use. Up to one piece per thread is made as soon
// as n allows; more, up to PiecesPerThread·threads, only while each still
// gets balanceChunks·minChunk elements.
func Chunks(n, threads, align, minChunk int) (parts, step int) {
	if n <= 0 {
		return 0, 0
	}
	if align < 1 {
		align = 1
	}
	if threads <= 1 || n < 2*minChunk {
		// One piece, without the divisions below (tens of cycles each):
		// the kernels on short vectors take not much more.
		return 1, (n + align - 1) / align * align
	}
	parts = threads * PiecesPerThread
	if minChunk > 0 {
		parts = min(parts, max(min(threads, n/minChunk), n/(balanceChunks*minChunk)))
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

// PiecesPerThread is how many pieces For makes per thread when the input is
// long enough: each thread runs its own stretch of them first, then takes
// what is left of the others' (pool.go, job.work), so when one thread is
// held up (its core busy with another process) the others take its share,
// and the last piece it was caught in is small.
const PiecesPerThread = 4

// balanceChunks is how many times minChunk a piece keeps when there are
// more pieces than threads. A thread held up loses the pieces taken from
// its stretch to another core, and with them the data its core's caches
// held from the call before; with pieces of just minChunk, on the 2-vCPU
// Zen 4 VM, 2-thread add and ReLU of 1.5–6 MiB ran 0.71–0.87× as fast as
// with the earlier, larger pieces (3 alternated runs each; pieces were then
// taken as they come); with this rule, those of 2–12 MiB ran 1.01–1.12× as
// fast (5 runs each).
const balanceChunks = 4

// For runs fn(part, lo, hi) over the pieces Chunks gives, shared between the
// calling goroutine and workers of a pool that stays awake between calls
// (pool.go), and returns when all are done. Each takes a contiguous stretch
// of the pieces, the same at every call, then helps with the others'. The
// pieces depend only on n and the arguments, never on timing (which
// goroutine runs one does), so a caller combining per-piece results in
// piece order is deterministic for a given thread count.
//
// A caller on a hot path with short inputs can check Single first and call
// its kernel directly: fn is a closure that escapes to the goroutines, so
// making it allocates.
func For(n, threads, align, minChunk int, fn func(part, lo, hi int)) {
	parts, step := Chunks(n, threads, align, minChunk)
	if parts == 0 {
		return
	}
	if parts == 1 {
		fn(0, 0, n)
		return
	}
	j := newJob(fn, n, step, parts, threads)
	for me := 1; me < len(j.runs); me++ {
		dispatch(j, me)
	}
	j.finish(j.work(j.begin(0)))
	j.wait()
}

// Single reports whether For would run [0,n) as one piece on the caller's
// goroutine; it costs a compare or two.
func Single(n, threads, minChunk int) bool {
	return threads <= 1 || n < 2*minChunk
}
