// Package conv is the deep-learning layers of peakbench's own backends:
// convolution (direct, and lowered to a GEMM by im2col), max, average and
// adaptive average pooling, and batch, layer and group normalization
// (inference), generic over float32 and float64 and split over an explicit
// number of goroutines.
//
// Tensors are N×C×D×H×W (NCHW) or N×D×H×W×C (NHWC), row-major; one, two
// and three spatial dimensions are all three-dimensional here, with the
// unused leading ones of extent 1 (window 1, stride 1, padding 0, dilation
// 1). Convolution filters are K×C×T×R×S for NCHW and K×T×R×S×C for NHWC.
//
// Every function takes an isa.Level: the inner loops are the gobackend
// kernels of that level (gemm.Gemm, reduce.Sum and reduce.Dot), so
// isa.Generic runs pure Go and a higher level the assembly. Caller mistakes (a bad geometry, a slice of the wrong length,
// threads < 1) panic with a message starting "conv: ".
package conv

import (
	"fmt"

	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// Float is the element type: float32, float64 or a type defined on them.
type Float = num.Float

// Params is the geometry of a convolution or a pooling, over three spatial
// dimensions (D, H, W: index 0, 1, 2).
type Params struct {
	N, C   int    // batch, input channels
	K      int    // convolution output channels (unused by pooling)
	In     [3]int // input extents D, H, W
	Window [3]int // filter or pooling window T, R, S
	Stride [3]int
	Pad    [3]int // zero padding on both sides
	Dil    [3]int // dilation (1: none)
	NHWC   bool   // channels last
}

// Out returns the output extents: ⌊(in + 2·pad − dil·(window−1) − 1)/stride⌋ + 1.
func (p Params) Out() [3]int {
	var o [3]int
	for i := range 3 {
		o[i] = (p.In[i]+2*p.Pad[i]-p.Dil[i]*(p.Window[i]-1)-1)/p.Stride[i] + 1
	}
	return o
}

func prod(v [3]int) int { return v[0] * v[1] * v[2] }

// InLen, FilterLen and OutLen are the element counts of x, w and y.
func (p Params) InLen() int     { return p.N * p.C * prod(p.In) }
func (p Params) FilterLen() int { return p.K * p.C * prod(p.Window) }
func (p Params) OutLen() int    { return p.N * p.K * prod(p.Out()) }

// check panics unless p is a valid geometry with at least one output.
func (p Params) check(conv bool) {
	if p.N < 1 || p.C < 1 || (conv && p.K < 1) {
		panic(fmt.Sprintf("conv: bad sizes N=%d C=%d K=%d", p.N, p.C, p.K))
	}
	for i := range 3 {
		if p.In[i] < 1 || p.Window[i] < 1 || p.Stride[i] < 1 || p.Dil[i] < 1 || p.Pad[i] < 0 {
			panic(fmt.Sprintf("conv: bad geometry in dimension %d: %+v", i, p))
		}
		if p.In[i]+2*p.Pad[i] < p.Dil[i]*(p.Window[i]-1)+1 {
			panic(fmt.Sprintf("conv: window larger than the padded input in dimension %d", i))
		}
	}
}

func checkLen(name string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("conv: len(%s) = %d, want %d", name, got, want))
	}
}

func checkThreads(threads int) {
	if threads < 1 {
		panic("conv: threads < 1")
	}
}

// validRange returns the outputs o in [0, n) whose input o·stride + off
// lies in [0, in): the window tap at off is inside the input for them.
func validRange(n, stride, off, in int) (lo, hi int) {
	if off < 0 {
		lo = (-off + stride - 1) / stride
	}
	if in-1-off < 0 {
		return lo, lo
	}
	hi = min(n, (in-1-off)/stride+1)
	return lo, max(lo, hi)
}

// Direct computes y = x ⋆ w (cross-correlation, as every DL framework) by
// a direct convolution: no lowered copy of x, the input read in place (see
// DirectConv). It allocates the packed filter; DirectConv.Run does not.
func Direct[T Float](lvl isa.Level, p Params, x, w, y []T, threads int) {
	NewDirectConv[T](p).Run(lvl, x, w, y, threads)
}

// DirectConv computes convolutions directly, in the way of Zhang et al.'s
// "zero-memory-overhead direct convolutions" (2018): for every output row
// and filter tap, the tap's K×C slice of the filter times the C×width
// slice of the input the row sees, in place, is one small gemm.Gemm
// (serial; goroutines split the output rows):
//
//   - NHWC: y[row] (Q×K) += x[pixels] (Q×C, row stride stride·C) · w[tap]ᵀ
//     (w[tap] K×C, row stride T·R·S·C), at any stride.
//   - NCHW: y[:, row] (K×Q, row stride P) += w[tap] (K×C) · x[:, row]
//     (C×Q, row stride D·H·W); the filter taps are first copied into K×C
//     matrices (K·C·T·R·S elements, inside Run, a 1/P fraction of the
//     work). With a W stride over 1 the input row is not contiguous: the
//     C×Q values the tap sees are gathered into a per-goroutine buffer
//     first (a 1/K fraction of the work).
//
// x holds N·C·D·H·W elements, w K·C·T·R·S and y N·K·P₀·P₁·P₂; y is
// overwritten. A DirectConv is not safe for concurrent Runs (the packed
// filter is shared).
type DirectConv[T Float] struct {
	p      Params
	packed []T   // NCHW: the filter as T·R·S matrices K×C
	gather [][]T // NCHW with a W stride over 1: one C×Q buffer per goroutine
	// tile: the tile path's state (direct_tile.go), for tileLvl; nil
	// when the last Run's level did not take it.
	tile    *tileState[T]
	tileLvl isa.Level
}

// NewDirectConv prepares a direct convolution of geometry p.
func NewDirectConv[T Float](p Params) *DirectConv[T] {
	p.check(true)
	return &DirectConv[T]{p: p}
}

// Run computes y = x ⋆ w with threads goroutines.
func (d *DirectConv[T]) Run(lvl isa.Level, x, w, y []T, threads int) {
	p := d.p
	checkThreads(threads)
	checkLen("x", len(x), p.InLen())
	checkLen("w", len(w), p.FilterLen())
	checkLen("y", len(y), p.OutLen())
	if d.tile == nil || d.tileLvl != lvl {
		d.tile, d.tileLvl = nil, lvl
		if g, ok := newTileGeom[T](lvl, p); ok {
			d.tile = &tileState[T]{g: g}
		}
	}
	if d.tile != nil {
		d.runTiles(x, w, y, threads)
		return
	}
	o := p.Out()
	rows := p.N * o[0] * o[1]
	taps := prod(p.Window)
	switch {
	case p.NHWC:
		num.For(rows, threads, 1, 1, func(_, lo, hi int) {
			for row := lo; row < hi; row++ {
				directRowNHWC(lvl, p, o, row, x, w, y)
			}
		})
	default:
		if d.packed == nil {
			d.packed = make([]T, p.FilterLen())
		}
		// packed[tap] is K×C: packed[(tap·K + k)·C + c] = w[(k·C + c)·taps + tap].
		for k := range p.K {
			for c := range p.C {
				src := w[(k*p.C+c)*taps : (k*p.C+c+1)*taps]
				for tap, v := range src {
					d.packed[(tap*p.K+k)*p.C+c] = v
				}
			}
		}
		var gather [][]T
		if p.Stride[2] != 1 {
			parts, _ := num.Chunks(rows, threads, 1, 1) // For's pieces: one buffer each
			for len(d.gather) < parts {
				d.gather = append(d.gather, make([]T, p.C*o[2]))
			}
			gather = d.gather
		}
		num.For(rows, threads, 1, 1, func(part, lo, hi int) {
			var buf []T
			if gather != nil {
				buf = gather[part]
			}
			for row := lo; row < hi; row++ {
				directRowNCHW(lvl, p, o, row, x, d.packed, y, buf)
			}
		})
	}
}

// directRowNHWC computes output row (n, o0, o1) of an NHWC convolution.
func directRowNHWC[T Float](lvl isa.Level, p Params, o [3]int, row int, x, w, y []T) {
	n, o0, o1 := row/(o[0]*o[1]), row/o[1]%o[0], row%o[1]
	yrow := y[row*o[2]*p.K : (row+1)*o[2]*p.K]
	clear(yrow)
	ldb := prod(p.Window) * p.C
	for t := range p.Window[0] {
		i0 := o0*p.Stride[0] + t*p.Dil[0] - p.Pad[0]
		if i0 < 0 || i0 >= p.In[0] {
			continue
		}
		for r := range p.Window[1] {
			i1 := o1*p.Stride[1] + r*p.Dil[1] - p.Pad[1]
			if i1 < 0 || i1 >= p.In[1] {
				continue
			}
			for s := range p.Window[2] {
				off := s*p.Dil[2] - p.Pad[2]
				lo, hi := validRange(o[2], p.Stride[2], off, p.In[2])
				if lo >= hi {
					continue
				}
				px := ((n*p.In[0]+i0)*p.In[1]+i1)*p.In[2] + lo*p.Stride[2] + off
				tap := ((t*p.Window[1]+r)*p.Window[2] + s) * p.C
				gemm.Gemm(lvl, false, true, hi-lo, p.K, p.C, 1, x[px*p.C:], p.Stride[2]*p.C,
					w[tap:], ldb, 1, yrow[lo*p.K:], p.K, 1)
			}
		}
	}
}

// directRowNCHW computes output row (n, o0, o1) of an NCHW convolution
// from the packed filter; buf (C·Q elements) gathers strided input rows.
func directRowNCHW[T Float](lvl isa.Level, p Params, o [3]int, row int, x, packed, y, buf []T) {
	n, o0, o1 := row/(o[0]*o[1]), row/o[1]%o[0], row%o[1]
	osz, isz := prod(o), prod(p.In)
	yn := y[n*p.K*osz : (n+1)*p.K*osz]
	rowOff := (o0*o[1] + o1) * o[2]
	for k := range p.K {
		clear(yn[k*osz+rowOff : k*osz+rowOff+o[2]])
	}
	xn := x[n*p.C*isz : (n+1)*p.C*isz]
	for t := range p.Window[0] {
		i0 := o0*p.Stride[0] + t*p.Dil[0] - p.Pad[0]
		if i0 < 0 || i0 >= p.In[0] {
			continue
		}
		for r := range p.Window[1] {
			i1 := o1*p.Stride[1] + r*p.Dil[1] - p.Pad[1]
			if i1 < 0 || i1 >= p.In[1] {
				continue
			}
			for s := range p.Window[2] {
				off := s*p.Dil[2] - p.Pad[2]
				st := p.Stride[2]
				lo, hi := validRange(o[2], st, off, p.In[2])
				if lo >= hi {
					continue
				}
				tap := (t*p.Window[1]+r)*p.Window[2] + s
				src, ld := xn[(i0*p.In[1]+i1)*p.In[2]+lo*st+off:], isz
				if st != 1 {
					n := hi - lo
					for c := range p.C {
						row := src[c*isz:]
						dst := buf[c*n : (c+1)*n]
						for q := range dst {
							dst[q] = row[q*st]
						}
					}
					src, ld = buf, n
				}
				gemm.Gemm(lvl, false, false, p.K, hi-lo, p.C, 1, packed[tap*p.K*p.C:], p.C,
					src, ld, 1, yn[rowOff+lo:], osz, 1)
			}
		}
	}
}
