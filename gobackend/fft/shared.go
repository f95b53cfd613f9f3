package fft

import (
	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// runShared runs one stage on threads goroutines (num.For): its
// butterflies are independent, so each thread takes a range of p (the
// stage's sub-transforms) or, where there are fewer of those than of q
// (the columns, at the last stages), a range of q. The pieces keep the
// vector the stage's code runs whole: blocks of transposeBlock at stride
// 1, zmm vectors of q. Each output is computed as on one thread, so the
// result does not depend on the thread count.
func runShared[C Complex](lvl isa.Level, st *stage[C], y, x []C, inverse bool, threads int) {
	if st.m >= st.s {
		align := 1
		if st.asm && st.s == 1 {
			align = st.blk
		}
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

// minParallelLen is the shortest transform whose stages are shared: each
// stage then has 8 Ki values, tens of microseconds of work, against the
// microsecond or two of a num.For handoff.
const minParallelLen = 1 << 13
