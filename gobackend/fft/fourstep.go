package fft

import (
	"math"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// The four-step (Bailey) algorithm, for a length whose stages would each
// sweep more than the L2 cache holds, or whose work is worth sharing
// between threads. With n = n1·n2, the input read as n1 rows of n2
// (x[n2·j1 + j2]) and the output as n2 rows of n1 (X[k1 + n1·k2]):
//
//  1. the n1-point transform of each column j2, times W_n^(j2·k1), into
//     the middle buffer's row k1;
//  2. the n2-point transform of each of its rows k1, into column k1 of
//     the output: X[k1 + n1·k2].
//
// Each pass runs blocks of b columns (or rows) as b transforms side by
// side (newStages at stride b), gathered into a scratch that stays in the
// cache: b values of a row are one cache line (b·size = 64 bytes, where n
// allows), so the gather and scatter move whole lines. The blocks of a
// pass are independent and shared between threads by num.For; each
// block's arithmetic is the same whichever thread runs it, so the output
// does not depend on the thread count.
type fourStep[C Complex] struct {
	lvl                isa.Level
	inverse            bool
	n1, n2, b, threads int
	cols, rows         []stage[C] // b transforms of n1, of n2, side by side
	tw                 []C        // W_n^(j2·k1) at [j2/b][k1][j2%b], pass 1's order
	free               chan *fourScratch[C]
}

// fourScratch is one thread's buffers: the gathered block, the block's
// transform and the stages' other buffer.
type fourScratch[C Complex] struct{ in, out, work []C }

// lineBytes is the cache line a block's row fills.
const lineBytes = 64

// minParallelLen is the shortest length shared between threads: about
// 8·5·n·log2(n) ≈ 3 Mflop at 8 Ki, tens of microseconds, against the
// microsecond or two a num.For handoff takes.
const minParallelLen = 1 << 13

// fourStepWorth reports whether an n-point transform of C values runs the
// four-step algorithm on threads: when its input, output and buffer
// (3·n values) outgrow the L2 cache (isa.Caches), so that every stage of
// the one-pass plan would go through memory, or when threads share it.
func fourStepWorth[C Complex](n, threads int) bool {
	var z C
	if 3*n*int(unsafe.Sizeof(z)) > isa.Caches().L2 {
		return true
	}
	return threads > 1 && n >= minParallelLen
}

// newFourStep returns the four-step plan of n (a product of the radices),
// or nil when n has no split into two factors of at least 2.
func newFourStep[C Complex](lvl isa.Level, n int, inverse bool, threads int) *fourStep[C] {
	var z C
	for b := lineBytes / int(unsafe.Sizeof(z)); b >= 1; b /= 2 {
		n1 := split(n, b)
		if n1 == 0 {
			continue
		}
		n2 := n / n1
		_, r1 := factor(n1)
		_, r2 := factor(n2)
		f := &fourStep[C]{lvl: lvl, inverse: inverse, n1: n1, n2: n2, b: b, threads: max(threads, 1),
			cols: newStages[C](lvl, r1, n1&(n1-1) == 0, b, inverse),
			rows: newStages[C](lvl, r2, n2&(n2-1) == 0, b, inverse)}
		f.tw = f.twiddles()
		f.free = make(chan *fourScratch[C], f.threads)
		for range f.threads {
			l := b * max(n1, n2)
			f.free <- &fourScratch[C]{in: make([]C, l), out: make([]C, l), work: make([]C, l)}
		}
		return f
	}
	return nil
}

// split returns the largest divisor n1 ≤ √n of n with n1 and n/n1 both
// multiples of b and at least 2, or 0 when there is none: pass 1's
// length, the shorter one (its columns are gathered at a stride).
func split(n, b int) int {
	best := 0
	for d := 2; d*d <= n; d++ {
		if n%d == 0 && d%b == 0 && (n/d)%b == 0 {
			best = d
		}
	}
	return best
}

// twiddles is pass 1's table, exact from each angle in float64.
func (f *fourStep[C]) twiddles() []C {
	n := f.n1 * f.n2
	sign := -1.0
	if f.inverse {
		sign = 1
	}
	tw := make([]C, n)
	i := 0
	for j0 := 0; j0 < f.n2; j0 += f.b {
		for k1 := range f.n1 {
			for t := range f.b {
				s, c := math.Sincos(2 * math.Pi * float64((j0+t)*k1%n) / float64(n))
				tw[i] = C(complex(c, sign*s))
				i++
			}
		}
	}
	return tw
}

// kernel names the code the passes run.
func (f *fourStep[C]) kernel() string {
	return "fourstep(" + stagesKernel(f.lvl, append(append([]stage[C]{}, f.cols...), f.rows...)) + ")"
}

// transform sets y to the transform of x through mid (all of n values).
func (f *fourStep[C]) transform(y, x, mid []C) {
	f.pass(f.n2/f.b, func(blk int, sc *fourScratch[C]) { f.column(blk, mid, x, sc) })
	f.pass(f.n1/f.b, func(blk int, sc *fourScratch[C]) { f.row(blk, y, mid, sc) })
}

// pass runs do on blocks [0, blocks), shared between the threads, each
// piece with a scratch of its own.
func (f *fourStep[C]) pass(blocks int, do func(blk int, sc *fourScratch[C])) {
	num.For(blocks, f.threads, 1, 1, func(_, lo, hi int) {
		sc := <-f.free
		for blk := lo; blk < hi; blk++ {
			do(blk, sc)
		}
		f.free <- sc
	})
}

// column runs pass 1 on columns [blk·b, blk·b + b): gathered from x,
// transformed, twiddled into mid.
func (f *fourStep[C]) column(blk int, mid, x []C, sc *fourScratch[C]) {
	n1, n2, b := f.n1, f.n2, f.b
	j0 := blk * b
	in, out := sc.in[:n1*b], sc.out[:n1*b]
	for j1 := range n1 {
		copy(in[j1*b:(j1+1)*b], x[j1*n2+j0:j1*n2+j0+b])
	}
	runStages(f.lvl, f.cols, out, in, sc.work[:n1*b], f.inverse)
	tw := f.tw[blk*n1*b : (blk+1)*n1*b]
	for k1 := range n1 {
		dst, src, w := mid[k1*n2+j0:k1*n2+j0+b], out[k1*b:k1*b+b], tw[k1*b:k1*b+b]
		for t := range dst {
			dst[t] = src[t] * w[t]
		}
	}
}

// row runs pass 2 on rows [blk·b, blk·b + b) of mid: gathered side by
// side, transformed, written to their columns of y.
func (f *fourStep[C]) row(blk int, y, mid []C, sc *fourScratch[C]) {
	n1, n2, b := f.n1, f.n2, f.b
	k0 := blk * b
	in, out := sc.in[:n2*b], sc.out[:n2*b]
	for t := range b {
		for j2, v := range mid[(k0+t)*n2 : (k0+t+1)*n2] {
			in[j2*b+t] = v
		}
	}
	runStages(f.lvl, f.rows, out, in, sc.work[:n2*b], f.inverse)
	for k2 := range n2 {
		copy(y[k2*n1+k0:k2*n1+k0+b], out[k2*b:k2*b+b])
	}
}
