package conv

import (
	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// The direct convolution's tile path (NCHW, stride 1 in every dimension,
// at the assembly levels): an implicit GEMM with the taps summed in
// registers. A tile kernel (../_asm/conv_direct.go) computes mr output
// channels × nr consecutive output positions over all C·T·R·S steps at
// once — y[k, q] = Σ_{c, tap} w[k, c, tap] · x[c, q + off(tap)] — reading
// the filter where it lies (row k of w is the GEMM's row of A: C·T·R·S
// values in (c, tap) order) and x at the tap's offset, so that neither the
// filter is packed nor the im2col matrix built, and each output is
// written once.
//
// Positions are flat within an output plane (o0) in the padded input's
// row width Wp: output (o1, o2) is q = o1·Wp + o2 and tap (t, r, s) reads
// q + (t·dil₀·Hp + r·dil₁)·Wp + s·dil₂ of the padded plane, so one offset
// list serves every position and a tile may run across output rows (the
// Wp − Wo positions between rows are computed and dropped: 2 of 58 for a
// 3×3 layer at 56×56). With padding the input is first copied into a
// zero-bordered buffer (its borders written once, at the first Run); without,
// x is read in place.
//
// Work: the tiles of every plane (columns) and the row tiles of K, cut
// into a grid of one block per thread (directGrid's rule: the fewest tiles
// for the busiest thread); within a block, columns in runs whose input
// lines fit half of L2 (isa.Caches), each run swept by every row tile, so
// that the run of x stays in L2 while each row tile's filter rows (mr·C·
// T·R·S values) are read once per run.

// tileGeom is the geometry of a convolution on the tile path.
type tileGeom struct {
	k      vecImpl
	mr, nr int    // tallest kernel, tile width (elements)
	pd     [3]int // padded input extents
	padded bool   // x is copied into a zero-bordered buffer
	plane  int    // padded plane Hp·Wp
	ldx    int    // channel stride of the source
	L      int    // flat positions per output plane: (Ho−1)·Wp + Wo
	tp     int    // tiles per output plane
	offs   []int  // per tap (w's order), in elements
	maxOff int
}

// tileKernels reports the tile kernels at lvl: tallest height and width
// (0, 0: none, the generic level or no assembly).
func tileKernels[T Float](lvl isa.Level) (k vecImpl, mr, nr int) {
	k = vecImplFor(lvl)
	switch k {
	case vecAVX512:
		return k, 8, 3 * 64 / num.Size[T]()
	case vecAVX2:
		return k, 4, 3 * 32 / num.Size[T]()
	}
	return k, 0, 0
}

// newTileGeom returns p's geometry on the tile path at lvl, or false when
// the path does not take p.
func newTileGeom[T Float](lvl isa.Level, p Params) (tileGeom, bool) {
	k, mr, nr := tileKernels[T](lvl)
	if mr == 0 || p.NHWC || p.Stride != [3]int{1, 1, 1} {
		return tileGeom{}, false
	}
	o := p.Out()
	g := tileGeom{k: k, mr: mr, nr: nr}
	for i := range 3 {
		g.pd[i] = p.In[i] + 2*p.Pad[i]
	}
	g.plane = g.pd[1] * g.pd[2]
	g.ldx = g.pd[0] * g.plane
	g.L = (o[1]-1)*g.pd[2] + o[2]
	g.tp = (g.L + nr - 1) / nr
	// Without padding x is read in place, which needs a plane of at least
	// one tile (the last tile of a plane is moved back to end at L, so
	// that no tile reads past the input).
	g.padded = p.Pad != [3]int{} || g.L < nr
	for t := range p.Window[0] {
		for r := range p.Window[1] {
			for s := range p.Window[2] {
				off := (t*p.Dil[0]*g.pd[1]+r*p.Dil[1])*g.pd[2] + s*p.Dil[2]
				g.offs = append(g.offs, off)
				g.maxOff = max(g.maxOff, off)
			}
		}
	}
	return g, true
}

// srcLen is the length of the padded copy: N·C planes of the padded
// input, and one tile of slack past the last (a short plane's tile reads
// up to nr positions from its start).
func (g *tileGeom) srcLen(p Params) int { return p.N*p.C*g.ldx + g.nr }

// tileState is a DirectConv's buffers on the tile path.
type tileState[T Float] struct {
	g       tileGeom
	src     []T   // the padded copy (nil: x in place)
	scratch [][]T // per piece of work: one mr×nr tile
}

// runTiles computes y = x ⋆ w on the tile path.
func (d *DirectConv[T]) runTiles(x, w, y []T, threads int) {
	p, ts := d.p, d.tile
	g := &ts.g
	src := x
	if g.padded {
		if ts.src == nil {
			ts.src = make([]T, g.srcLen(p)) // zero borders, written once
		}
		src = ts.src
		padCopy(p, g, x, src, threads)
	}
	o := p.Out()
	P := prod(o)
	taps := prod(p.Window)
	lda := p.C * taps
	rowTiles := (p.K + g.mr - 1) / g.mr
	base, extra := p.K/rowTiles, p.K%rowTiles
	rowOf := func(it int) (k0, h int) {
		if it < extra {
			return it * (base + 1), base + 1
		}
		return it*base + extra, base
	}
	planes := p.N * o[0]
	cols := planes * g.tp
	tr, tc := tileGrid(rowTiles, cols, threads)
	for len(ts.scratch) < tr*tc {
		ts.scratch = append(ts.scratch, make([]T, g.mr*g.nr))
	}
	// run: the columns in runs whose x fits half of L2.
	perCol := max(1, p.C*num.Size[T]()*g.nr*max(1, prod(p.Window)/p.Window[2]))
	runCols := max(1, isa.Caches().L2/2/perCol)
	wo := o[2]
	onePlane := g.pd[2] == wo // rows of the flat positions are the output's
	scratch := ts.scratch
	// start is column tile col's first position and its offset in src.
	start := func(col int) (q0, lo, xoff int) {
		pl, jt := col/g.tp, col%g.tp
		n, o0 := pl/o[0], pl%o[0]
		lo = jt * g.nr
		q0 = lo
		if !g.padded && lo+g.nr > g.L {
			q0 = g.L - g.nr
		}
		return q0, lo, n*p.C*g.ldx + o0*g.plane + q0
	}
	// one computes row tile it × column tile col.
	one := func(tile []T, it, col int) {
		k0, h := rowOf(it)
		a := w[k0*lda:]
		q0, lo, xoff := start(col)
		pl := col / g.tp
		n, o0 := pl/o[0], pl%o[0]
		hi := min(g.L, lo+g.nr)
		xs := src[xoff:]
		yp := y[(n*p.K+k0)*P+o0*o[1]*wo:]
		if q0 == lo && hi-lo == g.nr && (onePlane || q0%g.pd[2]+g.nr <= wo) {
			tileCall(g, h, p.C, taps, a, lda, xs, yp[q0/g.pd[2]*wo+q0%g.pd[2]:], P)
			return
		}
		tileCall(g, h, p.C, taps, a, lda, xs, tile, g.nr)
		scatterTile(tile, g.nr, h, q0, lo, hi, g.pd[2], wo, yp, P)
	}
	num.For(tr*tc, tr*tc, 1, 1, func(part, lo, hi int) {
		tile := scratch[part]
		for b := lo; b < hi; b++ {
			r, q := b/tc, b%tc
			t0, t1 := rowTiles*r/tr, rowTiles*(r+1)/tr
			c0, c1 := cols*q/tc, cols*(q+1)/tc
			for cr := c0; cr < c1; cr += runCols {
				cEnd := min(c1, cr+runCols)
				for it := t0; it < t1; it++ {
					for col := cr; col < cEnd; col++ {
						one(tile, it, col)
					}
				}
			}
		}
	})
}

// scatterTile writes the positions [lo, hi) of a tile computed from q0
// (h rows, stride ld) to the output plane yp (rows of wo, channel stride
// P), leaving out the positions between rows (q mod wp ≥ wo).
func scatterTile[T Float](tile []T, ld, h, q0, lo, hi, wp, wo int, yp []T, P int) {
	for q := lo; q < hi; {
		row, col := q/wp, q%wp
		end := min(hi, q-col+wp)
		if col < wo {
			n := min(end, q-col+wo) - q
			for i := range h {
				copy(yp[i*P+row*wo+col:][:n], tile[i*ld+q-q0:][:n])
			}
		}
		q = end
	}
}

// padCopy writes x into src's zero-bordered planes (the borders are never
// written, so they stay zero).
func padCopy[T Float](p Params, g *tileGeom, x, src []T, threads int) {
	rows := p.N * p.C * p.In[0] * p.In[1]
	num.For(rows, threads, 1, max(1, minCopy/p.In[2]), func(_, lo, hi int) {
		for row := lo; row < hi; row++ {
			nc, d, h := row/(p.In[0]*p.In[1]), row/p.In[1]%p.In[0], row%p.In[1]
			dst := src[nc*g.ldx+((d+p.Pad[0])*g.pd[1]+h+p.Pad[1])*g.pd[2]+p.Pad[2]:]
			copy(dst[:p.In[2]], x[row*p.In[2]:(row+1)*p.In[2]])
		}
	})
}

// tileGrid is directGrid's rule for the tile path: the grid (rows × columns
// of blocks) at most threads blocks that gives the busiest block the
// fewest tiles.
func tileGrid(rowTiles, colTiles, threads int) (tr, tc int) {
	best := -1
	tr, tc = 1, 1
	for t := threads; t >= 1; t-- {
		for r := 1; r <= t; r++ {
			c := t / r
			if r*c != t || r > rowTiles || c > colTiles {
				continue
			}
			most := ((rowTiles + r - 1) / r) * ((colTiles + c - 1) / c)
			if best < 0 || most < best {
				best, tr, tc = most, r, c
			}
		}
	}
	return tr, tc
}
