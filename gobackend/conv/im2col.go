package conv

import (
	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// Lowered computes convolutions by im2col and GEMM (Caffe's lowering): for
// each sample, the input values every output position sees are copied into
// a column matrix, and one gemm.Gemm multiplies it with the filter.
//
//	NCHW: col is (C·T·R·S)×P, y[n] (K×P) = w (K×C·T·R·S) · col
//	NHWC: col is P×(T·R·S·C), y[n] (P×K) = col · wᵀ (w: K×T·R·S·C)
//
// P is the number of output positions. A 1×1 convolution with stride 1 and
// no padding needs no copy: x itself is the column matrix (the whole batch
// at once for NHWC). NCHW with more output positions than one L2-sized
// tile is lowered and multiplied a tile of positions at a time
// (im2col_tile.go). The im2col copy is part of every Run: it is the cost
// of the method.
type Lowered[T Float] struct {
	p   Params
	col []T // one sample's column matrix; nil when none is needed or tiled
	// tiled: NCHW lowered a tile of output positions at a time
	// (im2col_tile.go); tiles holds one column tile per piece of the
	// goroutines' work, made by the first Run.
	tiled bool
	tiles [][]T
}

// NewLowered allocates the column buffer of p (Window·C·P elements), or
// none when p is lowered in tiles.
func NewLowered[T Float](p Params) *Lowered[T] {
	p.check(true)
	l := &Lowered[T]{p: p}
	switch {
	case l.pointwise():
	case !p.NHWC && prod(p.Out()) > colTileCols[T](p):
		l.tiled = true
	default:
		l.col = make([]T, prod(p.Window)*p.C*prod(p.Out()))
	}
	return l
}

// pointwise reports whether x is its own column matrix.
func (l *Lowered[T]) pointwise() bool {
	p := l.p
	return p.Window == [3]int{1, 1, 1} && p.Stride == [3]int{1, 1, 1} && p.Pad == [3]int{}
}

// ColLen is the size of the column buffer (0 for a pointwise convolution,
// and the column tiles' when tiled: known after the first Run).
func (l *Lowered[T]) ColLen() int {
	n := len(l.col)
	for _, t := range l.tiles {
		n += len(t)
	}
	return n
}

// Run computes y = x ⋆ w with threads goroutines (im2col and gemm.Gemm
// each use all of them; tiled, each goroutine lowers and multiplies its
// own tiles). Lengths as for Direct. A Lowered is not safe for
// concurrent Runs: they share the column buffer.
func (l *Lowered[T]) Run(lvl isa.Level, x, w, y []T, threads int) {
	p := l.p
	checkThreads(threads)
	checkLen("x", len(x), p.InLen())
	checkLen("w", len(w), p.FilterLen())
	checkLen("y", len(y), p.OutLen())
	P, isz := prod(p.Out()), prod(p.In)
	kdim := prod(p.Window) * p.C // the GEMM's inner dimension
	if p.NHWC && l.pointwise() {
		gemm.Gemm(lvl, false, true, p.N*P, p.K, p.C, 1, x, p.C, w, p.C, 0, y, p.K, threads)
		return
	}
	if l.tiled {
		l.runTiled(lvl, x, w, y, threads)
		return
	}
	for n := range p.N {
		xn := x[n*p.C*isz : (n+1)*p.C*isz]
		yn := y[n*p.K*P : (n+1)*p.K*P]
		col := xn
		if !l.pointwise() {
			Im2col(p, xn, l.col, threads)
			col = l.col
		}
		if p.NHWC {
			gemm.Gemm(lvl, false, true, P, p.K, kdim, 1, col, kdim, w, kdim, 0, yn, p.K, threads)
		} else {
			gemm.Gemm(lvl, false, false, p.K, P, kdim, 1, w, kdim, col, P, 0, yn, P, threads)
		}
	}
}

// minCopy keeps short im2col work on one goroutine (elements per piece).
const minCopy = 1 << 15

// Im2col writes the column matrix of one sample x (C·D·H·W elements, in
// p's layout) into col: (C·T·R·S)×P for NCHW, P×(T·R·S·C) for NHWC, zero
// where a tap falls in the padding.
func Im2col[T Float](p Params, x, col []T, threads int) {
	o := p.Out()
	P, taps := prod(o), prod(p.Window)
	checkLen("x", len(x), p.C*prod(p.In))
	checkLen("col", len(col), taps*p.C*P)
	if p.NHWC {
		rowLen := taps * p.C
		num.For(P, threads, 1, max(1, minCopy/rowLen), func(_, lo, hi int) {
			for q := lo; q < hi; q++ {
				o0, o1, o2 := q/(o[1]*o[2]), q/o[2]%o[1], q%o[2]
				row := col[q*rowLen : (q+1)*rowLen]
				for t := range p.Window[0] {
					i0 := o0*p.Stride[0] + t*p.Dil[0] - p.Pad[0]
					for r := range p.Window[1] {
						i1 := o1*p.Stride[1] + r*p.Dil[1] - p.Pad[1]
						for s := range p.Window[2] {
							i2 := o2*p.Stride[2] + s*p.Dil[2] - p.Pad[2]
							dst := row[((t*p.Window[1]+r)*p.Window[2]+s)*p.C:][:p.C]
							if i0 < 0 || i1 < 0 || i2 < 0 || i0 >= p.In[0] || i1 >= p.In[1] || i2 >= p.In[2] {
								clear(dst)
								continue
							}
							copy(dst, x[((i0*p.In[1]+i1)*p.In[2]+i2)*p.C:])
						}
					}
				}
			}
		})
		return
	}
	num.For(p.C*taps, threads, 1, max(1, minCopy/P), func(_, lo, hi int) {
		for rowIdx := lo; rowIdx < hi; rowIdx++ {
			im2colRow(p, o, x, col[rowIdx*P:(rowIdx+1)*P], rowIdx, 0, P)
		}
	})
}
