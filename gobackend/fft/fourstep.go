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
	g                  int        // blocks of b per piece of a pass: lines of a row gathered at once
	cols, rows         []stage[C] // b transforms of n1, of n2, side by side
	tw                 []C        // W_n^(j2·k1) at [j2/b][k1][j2%b], pass 1's order
	free               chan *fourScratch[C]
}

// fourScratch is one thread's buffers: the gathered block (pass 1), the
// block's transform and the stages' other buffer.
type fourScratch[C Complex] struct{ in, out, work []C }

// lineBytes is the cache line a block's row fills.
const lineBytes = 64

// groupLines is how many cache lines of a row a pass moves at once (at
// most): with one, pass 1's gather at a stride of n2 values waited on
// memory at each line (2.2× the one-pass plan's time at 1 Mi complex128).
const groupLines = 4

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
		f.g = 1
		for f.g < groupLines && n1%(2*f.g*b) == 0 && n2%(2*f.g*b) == 0 {
			f.g *= 2
		}
		f.tw = f.twiddles()
		f.free = make(chan *fourScratch[C], f.threads)
		for range f.threads {
			l := b * max(n1, n2)
			f.free <- &fourScratch[C]{in: make([]C, f.g*n1*b), out: make([]C, f.g*l), work: make([]C, l)}
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
	tw := hugeSlice[C](f, n)
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
	f.pass(f.n2/(f.g*f.b), func(blk int, sc *fourScratch[C]) { f.column(blk, mid, x, sc) })
	f.pass(f.n1/(f.g*f.b), func(blk int, sc *fourScratch[C]) { f.row(blk, y, mid, sc) })
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

// column runs pass 1 on columns [blk·g·b, (blk+1)·g·b): gathered from x
// (g·b values of each row, g lines side by side, so that the hardware's
// prefetch of adjacent lines serves a strided gather), transformed b at
// a time, twiddled into mid. mid holds the rows of each block of b rows
// side by side, as pass 2 reads them (value (k1, j2) at
// (k1/b)·n2·b + j2·b + k1%b), so each b×b tile of a transform's output
// is transposed on the way.
func (f *fourStep[C]) column(blk int, mid, x []C, sc *fourScratch[C]) {
	n1, n2, b, g := f.n1, f.n2, f.b, f.g
	gb := g * b
	in := sc.in[:n1*gb]
	for j1 := range n1 {
		row := x[j1*n2+blk*gb : j1*n2+blk*gb+gb]
		for sub := range g {
			copyLine(in[sub*n1*b+j1*b:sub*n1*b+j1*b+b], row[sub*b:sub*b+b])
		}
	}
	out := sc.out[:n1*b]
	for sub := range g {
		j0 := blk*gb + sub*b
		runStages(f.lvl, f.cols, out, in[sub*n1*b:(sub+1)*n1*b], sc.work[:n1*b], f.inverse, 1)
		tw := f.tw[j0*n1 : (j0+b)*n1]
		for k0 := 0; k0 < n1; k0 += b {
			tile := mid[k0*n2+j0*b : k0*n2+j0*b+b*b]
			for u := range b {
				src, w := out[(k0+u)*b:(k0+u+1)*b], tw[(k0+u)*b:(k0+u+1)*b]
				for t := range src {
					tile[t*b+u] = src[t] * w[t]
				}
			}
		}
	}
}

// row runs pass 2 on rows [blk·g·b, (blk+1)·g·b), b side by side in mid:
// transformed b at a time, written to their columns of y, g·b values
// (g lines) at a time.
func (f *fourStep[C]) row(blk int, y, mid []C, sc *fourScratch[C]) {
	n1, n2, b, g := f.n1, f.n2, f.b, f.g
	gb := g * b
	out := sc.out[:n2*gb]
	for sub := range g {
		k0 := blk*gb + sub*b
		runStages(f.lvl, f.rows, out[sub*n2*b:(sub+1)*n2*b], mid[k0*n2:(k0+b)*n2], sc.work[:n2*b], f.inverse, 1)
	}
	for k2 := range n2 {
		dst := y[k2*n1+blk*gb : k2*n1+blk*gb+gb]
		for sub := range g {
			copyLine(dst[sub*b:sub*b+b], out[sub*n2*b+k2*b:sub*n2*b+k2*b+b])
		}
	}
}

// copyLine copies src to dst (b values: a cache line or less) inline:
// copy's call to memmove costs as much as moving 64 bytes.
func copyLine[C Complex](dst, src []C) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v
	}
}
