package fft

import (
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
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
// stages between threads: when its input and output reach the tune
// parameter fft.share of its type (tune.FFT: by default the L2 where the
// threads share one core's, else past the last-level cache). Below it a
// second core only moves the data between the cores' caches at every
// stage; above, each stage streams from past them anyway, and a second
// core adds to the bandwidth.
func worthSharing[C Complex](n, threads int) bool {
	var z C
	return pastCache(int(unsafe.Sizeof(z))/2, 2*n*int(unsafe.Sizeof(z)), n, threads)
}

// pastCache reports whether a pass of n steps over bytes of data, of
// size-byte reals, is shared between threads: more than one, bytes at
// least fft.share (tune.Params.FFTShares), and n at least minParallelLen.
func pastCache(size, bytes, n, threads int) bool {
	return threads > 1 && n >= minParallelLen && tune.Current().FFTShares(size, bytes)
}

// minParallelLen is the fewest steps (a transform's length) shared
// between threads, whatever the cache: each stage then has 8 Ki values,
// tens of microseconds of work, against the microsecond or two of a
// handoff.
const minParallelLen = 1 << 13
