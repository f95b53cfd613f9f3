package conv

import (
	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// NCHW lowering in column tiles: instead of one C·T·R·S × P column matrix
// per sample (7 MiB for a 64-channel 3×3 layer at 56×56, f32), written to
// memory by im2col and read back by the GEMM, each goroutine lowers a
// block of output positions into a tile of its own that stays in L2 and
// multiplies it at once: y[:, q0:q1] (K × cols, row stride P) = w · tile.
// The GEMM has few rows (K) and runs serially per tile, on gemm's direct
// path when the tile and filter are within its tuned bytes (it then reads
// the tile in place from L2), else its streaming path; the goroutines
// split the tiles.

// colTileBytes is the size of one goroutine's column tile: half of the
// core's L2 (isa.Caches), the rest for the filter the GEMM reads beside
// it. 1 MiB on the 2-vCPU Intel VM (2 MiB L2), where the tiles ran
// 1.07–1.31× oneDNN against 0.92–1.16× for the whole column matrix
// (docs/layers.md); other fractions were not measured.
func colTileBytes() int { return isa.Caches().L2 / 2 }

// minTileCols keeps a tile wide enough for gemm's streaming path (at
// least two chunks of the widest micro-panels: 2·4·32 columns).
const minTileCols = 256

// colTileCols is the widest tile of output positions for p.
func colTileCols[T Float](p Params) int {
	if testTileCols > 0 {
		return testTileCols
	}
	kdim := prod(p.Window) * p.C
	return max(minTileCols, colTileBytes()/(kdim*num.Size[T]()))
}

// testTileCols, when > 0, is colTileCols whatever p (tests: many small
// tiles, each crossing output rows).
var testTileCols int

// runTiled is Run for an NCHW convolution lowered in column tiles.
func (l *Lowered[T]) runTiled(lvl isa.Level, x, w, y []T, threads int) {
	p := l.p
	o := p.Out()
	P, isz := prod(o), prod(p.In)
	kdim := prod(p.Window) * p.C
	widest := colTileCols[T](p)
	perSample := (P + widest - 1) / widest
	if p.N == 1 && threads > 1 {
		// Whole tiles for every thread: one piece of work each.
		perSample = (perSample + threads - 1) / threads * threads
	}
	cols := (P + perSample - 1) / perSample
	perSample = (P + cols - 1) / cols
	total := p.N * perSample
	minChunk := (total + threads - 1) / threads
	parts, _ := num.Chunks(total, threads, 1, minChunk)
	for len(l.tiles) < parts {
		l.tiles = append(l.tiles, make([]T, kdim*cols))
	}
	tiles := l.tiles
	num.For(total, threads, 1, minChunk, func(part, lo, hi int) {
		buf := tiles[part]
		for it := lo; it < hi; it++ {
			n, q0 := it/perSample, it%perSample*cols
			q1 := min(P, q0+cols)
			xn := x[n*p.C*isz : (n+1)*p.C*isz]
			yn := y[n*p.K*P : (n+1)*p.K*P]
			tile := buf[:kdim*(q1-q0)]
			im2colTile(p, o, xn, tile, q0, q1)
			gemm.Gemm(lvl, false, false, p.K, q1-q0, kdim, 1, w, kdim, tile, q1-q0, 0, yn[q0:], P, 1)
		}
	})
}

// im2colTile writes columns [q0, q1) of an NCHW sample's column matrix
// into tile ((C·T·R·S) × (q1−q0), row stride q1−q0), zero where a tap falls
// in the padding.
func im2colTile[T Float](p Params, o [3]int, x, tile []T, q0, q1 int) {
	nb := q1 - q0
	for rowIdx := range p.C * prod(p.Window) {
		im2colRow(p, o, x, tile[rowIdx*nb:(rowIdx+1)*nb], rowIdx, q0, q1)
	}
}

// im2colRow writes columns [q0, q1) of row rowIdx (channel and tap) of an
// NCHW sample's column matrix into row, zero where the tap falls in the
// padding: the whole matrix's rows (Im2col) and a tile's (im2colTile).
func im2colRow[T Float](p Params, o [3]int, x, row []T, rowIdx, q0, q1 int) {
	taps, isz := prod(p.Window), prod(p.In)
	c, tap := rowIdx/taps, rowIdx%taps
	t, r, s := tap/(p.Window[1]*p.Window[2]), tap/p.Window[2]%p.Window[1], tap%p.Window[2]
	xc := x[c*isz : (c+1)*isz]
	off := s*p.Dil[2] - p.Pad[2]
	lo2, hi2 := validRange(o[2], p.Stride[2], off, p.In[2])
	// The output rows (o0, o1) the columns span, each from column a to b.
	for q := q0; q < q1; {
		orow := q / o[2]
		a, b := q-orow*o[2], min(o[2], q1-orow*o[2])
		dst := row[q-q0 : q-q0+b-a]
		q += b - a
		o0, o1 := orow/o[1], orow%o[1]
		i0 := o0*p.Stride[0] + t*p.Dil[0] - p.Pad[0]
		i1 := o1*p.Stride[1] + r*p.Dil[1] - p.Pad[1]
		lo, hi := max(a, lo2), min(b, hi2)
		if i0 < 0 || i1 < 0 || i0 >= p.In[0] || i1 >= p.In[1] || lo >= hi {
			clear(dst)
			continue
		}
		src := xc[(i0*p.In[1]+i1)*p.In[2]:]
		if rows := wholeRows(p, o, a, b, q1-q+(b-a), o1, i1); rows > 1 {
			// Whole output rows in a run of whole input rows, at stride
			// 1 and as wide as the input: the valid values of all of
			// them are one contiguous stretch of x, copied at once, and
			// only the padding columns of each row are set apart (a
			// copy per row cost more than the copying at W = 28).
			w := o[2]
			dst = row[q-(b-a)-q0 : q-(b-a)-q0+rows*w]
			q += (rows - 1) * w
			copy(dst[lo2:(rows-1)*w+hi2], src[lo2+off:(rows-1)*w+hi2+off])
			if lo2 == 0 && hi2 == w {
				continue
			}
			// A column or two of padding per row: clear() per row was
			// a third of the copy's time at W = 28.
			for k := range rows {
				d := dst[k*w : (k+1)*w]
				for j := range lo2 {
					d[j] = 0
				}
				for j := hi2; j < len(d); j++ {
					d[j] = 0
				}
			}
			continue
		}
		clear(dst[:lo-a])
		clear(dst[hi-a:])
		if p.Stride[2] == 1 {
			copy(dst[lo-a:hi-a], src[lo+off:hi+off])
			continue
		}
		for j := lo; j < hi; j++ {
			dst[j-a] = src[j*p.Stride[2]+off]
		}
	}
}

// wholeRows is how many output rows, from row o1 on (input row i1,
// valid), im2colRow may copy as one stretch: the columns [a, b) are a
// whole row, left whole rows (of left columns) follow, the W stride is 1
// and the output as wide as the input (one input row per output row),
// the H stride 1 (consecutive input rows), within one output plane and
// the input's rows. 1 when the rows must go one at a time.
func wholeRows(p Params, o [3]int, a, b, left, o1, i1 int) int {
	if a != 0 || b != o[2] || p.Stride[2] != 1 || p.Stride[1] != 1 || o[2] != p.In[2] {
		return 1
	}
	return max(1, min(left/o[2], o[1]-o1, p.In[1]-i1))
}
