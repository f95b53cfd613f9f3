package conv

import (
	"sync"

	"github.com/peakbench/peakbench/gobackend/internal/num"
)

// Separable NCHW max and avg pooling: both are a fold over the window's
// rows, then over its columns. The first pass folds, for each output row,
// the input rows its windows see into one row of the input's width (the
// taps are the rows' offsets, the kernel's vectors run along the row); the
// second folds each of those rows along the columns at the window's
// stride. A 3×3 window costs 3 + 3 loads per output vector instead of 9,
// and neither pass has an edge case inside a row: the rows of the first
// pass are whole, and the second reads them from a scratch whose borders
// stand in for the padding (zeros for avg; for max each row's own first
// and last element, which are inside every window that reaches past
// them). The scratch holds as many rows as 16 KiB of f64 (8 KiB of f32),
// so that the second pass reads what the first just wrote from L1.

// sepPlan is what every plane shares: the first pass's calls and the
// second's taps.
type sepPlan struct {
	rows       []sepRows // first pass, in output row order
	wp, lp, rp int       // scratch row pitch, left and right border widths
	block      int       // scratch rows
	even, odd  []int     // second pass taps (odd only at stride 2)
}

// sepRows is one first-pass call: m output rows from row (in the plane's
// output rows) whose windows see the input rows at taps (offsets in the
// plane), the next row's xs elements further on.
type sepRows struct {
	row, m, xs int
	taps       []int
}

// newSepPlan plans p's separable pooling, out its output extents.
func newSepPlan(p Params, out [3]int) *sepPlan {
	w := p.In[2]
	sp := &sepPlan{lp: p.Pad[2]}
	// Columns the second pass reads: window taps up to
	// (out−1)·stride − pad + S − 1, and at stride 2 one past the last
	// even tap's odd lane.
	last := (out[2]-1)*p.Stride[2] - p.Pad[2] + p.Window[2] - 1
	if p.Stride[2] == 2 {
		last = max(last, (out[2]-1)*2-p.Pad[2]+(p.Window[2]-1)&^1+1)
	}
	sp.rp = max(last-(w-1), 0)
	sp.wp = sp.lp + w + sp.rp
	for s := range p.Window[2] {
		if p.Stride[2] == 2 && s%2 == 1 {
			sp.odd = append(sp.odd, s-1)
		} else {
			sp.even = append(sp.even, s)
		}
	}
	sp.block = max(1, 16<<10/(sp.wp*8))
	rlo, rhi := interior(out[1], p.In[1], p.Window[1]-1, p.Stride[1], p.Pad[1])
	var planes []int
	for o0 := range out[0] {
		planes = validTaps(planes[:0], p, 0, o0, 0, p.In[1])
		rowsOf := func(o1 int) []int {
			var taps []int
			for _, r0 := range planes {
				taps = validTaps(taps, p, 1, o1, r0*w, w)
			}
			return taps
		}
		for o1 := 0; o1 < out[1]; o1++ {
			m := 1
			if o1 == rlo && rlo < rhi {
				m = rhi - rlo
			}
			for lo := o1; lo < o1+m; lo += sp.block {
				sp.rows = append(sp.rows, sepRows{
					row: o0*out[1] + lo, m: min(sp.block, o1+m-lo),
					xs: p.Stride[1] * w, taps: rowsOf(lo),
				})
			}
			o1 += m - 1
		}
	}
	return sp
}

// sepCase reports whether p is a geometry the separable kernels run:
// NCHW at a column stride of 1 or 2 where the two passes load less than
// one (rows + S loads per output vector against rows·S: 3×3 and 2×2×2
// windows, not 2×2, which measured slower), and padding narrower than the
// window (so every window holds an input, the row fold has taps and a
// max's borders have a row end to copy).
func sepCase(p Params) bool {
	for d := range 3 {
		if p.Pad[d] >= p.Window[d] {
			return false
		}
	}
	rows, s := p.Window[0]*p.Window[1], p.Window[2]
	return !p.NHWC && p.Stride[2] <= 2 && rows*s > rows+s
}

// poolSeparable pools NCHW x into y in the two passes of sepPlan.
func poolSeparable[T Float](k vecImpl, kind PoolKind, p Params, out [3]int, x, y []T, threads int) {
	sp := newSepPlan(p, out)
	sz, w := num.Size[T](), p.In[2]
	scale := 1 / T(prod(p.Window))
	isz, osz := prod(p.In), prod(out)
	num.For(p.N*p.C, threads, 1, 1, func(_, lo, hi int) {
		v := sepScratch[T](sp, kind)
		defer sepScratchPool.Put(v)
		for nc := lo; nc < hi; nc++ {
			xc, yc := x[nc*isz:(nc+1)*isz], y[nc*osz:(nc+1)*osz]
			nan := false
			first, have := 0, 0 // plane output row in v's first row, rows in v
			flush := func() {
				if have == 0 {
					return
				}
				if kind == Max {
					replicateEdges(v[:have*sp.wp], sp.wp, sp.lp, w)
				}
				yr := yc[first*out[2]:]
				if p.Stride[2] == 2 {
					nan = poolCall2(k, kind, yr, v, sp.even, sp.odd, out[2], have, out[2]*sz, sp.wp*sz, scale) || nan
				} else {
					nan = poolCall(k, kind, yr, v, sp.even, out[2], have, out[2]*sz, sp.wp*sz, scale) || nan
				}
				have = 0
			}
			for _, r := range sp.rows {
				if have+r.m > sp.block {
					flush()
				}
				if have == 0 {
					first = r.row
				}
				// Avg scales in the second pass, the first by 1.
				nan = poolCall(k, kind, v[have*sp.wp+sp.lp:], xc, r.taps, w, r.m, sp.wp*sz, r.xs*sz, 1) || nan
				have += r.m
			}
			flush()
			if nan {
				recomputePlane(kind, p, out, xc, yc)
			}
		}
	})
}

// replicateEdges sets the borders of each max-pooling scratch row in v
// (w elements from lp, pitch wp) to the row's first and last element.
func replicateEdges[T Float](v []T, wp, lp, w int) {
	for r := 0; r+wp <= len(v); r += wp {
		row := v[r : r+wp]
		for i := range lp {
			row[i] = row[lp]
		}
		for i := lp + w; i < wp; i++ {
			row[i] = row[lp+w-1]
		}
	}
}

// recomputePlane sets every output of a channel plane from the definition
// (after a kernel reported a NaN it may have dropped).
func recomputePlane[T Float](kind PoolKind, p Params, out [3]int, xc, yc []T) {
	step := [3]int{p.In[1] * p.In[2], p.In[2], 1}
	for o0 := range out[0] {
		for o1 := range out[1] {
			for o2 := range out[2] {
				yc[(o0*out[1]+o1)*out[2]+o2] = poolAt(kind, p, xc, [3]int{o0, o1, o2}, step)
			}
		}
	}
}

// sepScratchPool keeps the scratch rows between calls: a new one per
// piece of num.For (several per thread) would cost about as much as a
// small pooling.
var sepScratchPool sync.Pool

// sepScratch returns a scratch of sp.block rows from the pool, avg's
// borders zero (a max's are set before each use).
func sepScratch[T Float](sp *sepPlan, kind PoolKind) []T {
	n := sp.block * sp.wp
	v, _ := sepScratchPool.Get().([]T)
	if cap(v) < n {
		return make([]T, n)
	}
	v = v[:n]
	if kind == Avg {
		for r := 0; r < n; r += sp.wp {
			clear(v[r : r+sp.lp])
			clear(v[r+sp.wp-sp.rp : r+sp.wp])
		}
	}
	return v
}
