package num

import (
	"math"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// AliasWindow is how far, in page offset, a store may trail a later load
// and still hold it up: a load whose address has the same low 12 bits as
// a store's in the store buffer waits for that store (4K aliasing). An
// AVX-512 daxpy of 1024 elements, y's page offset d bytes past x's, took
// 1.2–1.37× its time at d = 128–1152 against d = 0 or 1280–3968 (the Ice
// Lake VM, best of 30 rounds each, d in steps of 128); pb places its
// operands 576 bytes apart. Past the window the loads are far enough
// ahead.
const AliasWindow = 1536

// trails reports whether a store at out trails a load at in by less than
// AliasWindow in page offset when both walk up from there.
func trails(out, in uintptr) bool {
	d := (out - in) & 4095
	return d != 0 && d < AliasWindow
}

// WalkDown reports whether a kernel that stores at out while it loads at
// ins, each walking its own array at the same pace, operands of bytes in
// all, should walk from the end down: where walking down pays at that size
// (WalkDownPays), and walking up its stores trail the loads of one of ins
// within AliasWindow of page offset while walking down they trail none.
// elem's add, mul, relu and axpy have walking-down twins and ask it per
// call.
func WalkDown(bytes int, out uintptr, ins ...uintptr) bool {
	if !WalkDownPays(bytes) {
		return false
	}
	up := false
	for _, in := range ins {
		if trails(in, out) { // walking down, the store trails this load
			return false
		}
		up = up || trails(out, in)
	}
	return up
}

// WalkDownPays reports whether a kernel whose operands take bytes in all
// may walk down (WalkDown): at any size where the hardware prefetchers
// follow a falling stream as a rising one (isa.PrefetchesFallingStreams),
// else while the operands fit in L1, where nothing is prefetched, or once
// they outgrow L2. On the Zen 5 Turin VM, with operands 576 bytes apart
// (pb's placement; AVX-512, one thread, interleaved rounds), add f32 over
// 64–512 KiB took 1.36–1.68× the time walking down and daxpy 1.44–1.83×
// (medians of 25 rounds), the falling stream from L2 outweighing the
// aliasing it avoids; from L1 (16–32 KiB) 1.00–1.05×, and past L2 (1–32
// MiB) daxpy 0.96–1.03×: there the rule of the offsets stays (pb's axpy f64
// of 256 Ki, 4 MiB, ran 1.04–1.11× as long walking up, seven alternated
// runs, the walking-up build second; 1.01–1.07× with both walking down).
func WalkDownPays(bytes int) bool { return outside(bytes, walkUpAbove, walkUpTo) }

// outside reports whether bytes lies outside (above, to].
func outside(bytes, above, to int) bool { return bytes <= above || bytes > to }

// Calls of walkUpAbove < bytes ≤ walkUpTo walk up whatever their operands'
// offsets, read once at start: a sync.OnceValue's call cost a 1 Ki f32 add
// 7–12%.
var walkUpAbove, walkUpTo = walkUpRange(isa.PrefetchesFallingStreams(), isa.Caches())

// walkUpRange is walkUpAbove and walkUpTo for a machine whose prefetchers
// follow falling streams or not (falling), with caches c: L1 to L2, or
// nothing.
func walkUpRange(falling bool, c isa.CacheSizes) (above, to int) {
	if falling {
		return math.MaxInt, math.MaxInt
	}
	return c.L1, c.L2
}
