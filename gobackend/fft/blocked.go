package fft

import (
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// blocked is the cache-blocked order of a transform that outgrows the L2
// cache: its first stages run over the whole array, one after another;
// from stage from on, of stride S, the columns q mod S are independent
// sub-transforms (each later stage reads and writes only the indices of
// its own residue classes), so a block of cols adjacent columns is copied
// into a compact buffer (rows of cols values, one per S), runs through all
// the remaining stages there while it is in the cache, and is copied back.
// The compact array is the same transform with every stride scaled by
// cols/S: index q + S·j of the whole array is (q − q0) + cols·j of the
// block's, so its stages are the plan's with the same twiddles.
//
// The residue classes of a whole array cannot stay in the cache in place:
// at a power-of-two stride they fall on as small a share of the cache's
// sets as of the array, so the copy, a cache line or more per row, is what
// keeps them resident.
type blocked[C Complex] struct {
	from   int          // the first stage run in blocks
	stride int          // S: stage from's stride
	cols   int          // the columns of stride S a block holds
	stages []stage[C]   // stages from… with their strides scaled by cols/S
	bufs   chan *[2][]C // a block's two buffers of n·cols/S values, one pair per thread
}

// blockCacheBytes replaces half the L2 cache's size in newBlocked when not
// 0: the tests set it to block lengths whose definition they can compute.
var blockCacheBytes int

// blockMinBytes is the least a block's row holds: a cache line, a zmm
// vector of complex values (the stage kernels' widest).
const blockMinBytes = 64

// newBlocked returns the blocked order of stages (a plan of n values of C,
// run on up to threads goroutines), or nil where the transform's input and
// output fit in the L2 cache (isa.Caches; blockCacheBytes) or no stage
// leaves blocks of whole cache lines that fit in half of it.
func newBlocked[C Complex](lvl isa.Level, n int, stages []stage[C], threads int) *blocked[C] {
	var z C
	size := int(unsafe.Sizeof(z))
	cut := blockCacheBytes
	if cut == 0 {
		cut = isa.Caches().L2 / 2
	}
	if 2*n*size <= 2*cut {
		return nil
	}
	minCols := blockMinBytes / size
	for from, st := range stages {
		if st.s == 1 || st.blk > 0 {
			continue // the stride-1 and pair kernels: their strides are fixed
		}
		// The widest power of two dividing S whose block (two buffers of
		// cols·n/S values) fits in cut.
		rows := n / st.s
		cols := 1
		for st.s%(2*cols) == 0 && 2*(2*cols)*rows*size <= cut {
			cols *= 2
		}
		if cols < minCols {
			continue
		}
		b := &blocked[C]{from: from, stride: st.s, cols: cols}
		for _, t := range stages[from:] {
			t.s = t.s / st.s * cols
			t.asm = t.asm && asmStage[C](lvl, t)
			b.stages = append(b.stages, t)
		}
		pairs := min(max(threads, 1), st.s/cols)
		b.bufs = make(chan *[2][]C, pairs)
		for range pairs {
			b.bufs <- &[2][]C{make([]C, rows*cols), make([]C, rows*cols)}
		}
		return b
	}
	return nil
}

// run sets y to the remaining stages' transform of src (the output of the
// stage before from, or the input; y may be src: each block reads and
// writes only its own columns), the blocks shared between threads.
func (b *blocked[C]) run(lvl isa.Level, y, src []C, inverse bool, threads int) {
	blocks := b.stride / b.cols
	num.For(blocks, min(threads, cap(b.bufs)), 1, 1, func(_, lo, hi int) {
		// No more pieces run at once than threads: each takes a pair.
		bufs := <-b.bufs
		for blk := lo; blk < hi; blk++ {
			b.block(lvl, bufs, y, src, inverse, blk*b.cols)
		}
		b.bufs <- bufs
	})
}

// block runs the columns q0 ≤ q < q0+cols through the remaining stages in
// bufs.
func (b *blocked[C]) block(lvl isa.Level, bufs *[2][]C, y, src []C, inverse bool, q0 int) {
	in, out := bufs[0], bufs[1]
	s, w := b.stride, b.cols
	for r := range len(in) / w {
		copy(in[r*w:(r+1)*w], src[r*s+q0:r*s+q0+w])
	}
	for i := range b.stages {
		st := &b.stages[i]
		runStage(lvl, st, out, in, inverse, span{0, st.m, 0, st.s})
		in, out = out, in
	}
	for r := range len(in) / w {
		copy(y[r*s+q0:r*s+q0+w], in[r*w:(r+1)*w])
	}
}
