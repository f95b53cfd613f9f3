package fft

import (
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// runShared runs one stage on threads goroutines (num.For): its
// butterflies are independent, so each thread takes a range of p (the
// stage's sub-transforms) or, where there are fewer of those than of q
// (the columns, at the last stages), a range of q. The pieces keep the
// vector the stage's code runs whole: blocks of transposeBlock at stride
// 1, pairs of p at the pair kernel's (pairBlock), zmm vectors of q. Each output is computed as on one thread, so the
// result does not depend on the thread count.
func runShared[C Complex](lvl isa.Level, st *stage[C], y, x []C, inverse bool, threads int) {
	if st.m >= st.s || st.blk > 0 {
		align := max(1, st.blk) // the stride-1 and pair kernels' whole vectors
		num.For(st.m, threads, align, max(1, minSharedButterflies/st.s), func(_, lo, hi int) {
			runStage(lvl, st, y, x, inverse, span{lo, hi, 0, st.s})
		})
		return
	}
	align := 1
	if st.asm {
		align = zmmComplex[C]()
	}
	num.For(st.s, threads, align, max(1, minSharedButterflies/st.m), func(_, lo, hi int) {
		runStage(lvl, st, y, x, inverse, span{0, st.m, lo, hi})
	})
}

// minSharedButterflies is the fewest butterflies of a piece of a shared
// stage: about a microsecond of work, as long as a num.For handoff.
const minSharedButterflies = 512

// worthSharing reports whether a transform of n values of C shares its
// stages between threads: when its input and output fill the L2 cache
// (isa.Caches) or outgrow it, so that each stage streams from L3 or
// memory and a second core adds to the bandwidth and its own L2. Below it
// a second core only moves the data between the cores' caches at every
// stage: 64 Ki complex64 (1 MiB in and out, 2 MiB L2) ran 87–89 µs on two
// threads against 72–74 µs on one; 64 Ki complex128 (2 MiB), with its
// stages fused in pairs, 166–173 µs on two against 231–233 µs on one
// (BenchmarkShared-like runs, alternated, Rocket Lake Xeon VM).
func worthSharing[C Complex](n, threads int) bool {
	var z C
	return pastCache(2*n*int(unsafe.Sizeof(z)), n, threads)
}

// pastCache reports whether a pass of n steps over bytes of data is
// shared between threads: more than one, bytes at least the L2 cache,
// and n at least minParallelLen.
func pastCache(bytes, n, threads int) bool {
	cut := shareAbove
	if cut == 0 {
		cut = isa.Caches().L2
	}
	return threads > 1 && n >= minParallelLen && bytes >= cut
}

// shareAbove replaces the L2 cache's size in pastCache when not 0: the
// tests set it to share lengths whose definition they can compute.
var shareAbove int

// minParallelLen is the fewest steps (a transform's length) shared
// between threads, whatever the cache: each stage then has 8 Ki values,
// tens of microseconds of work, against the microsecond or two of a
// handoff.
const minParallelLen = 1 << 13
