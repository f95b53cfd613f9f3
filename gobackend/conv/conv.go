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
// kernels of that level (gemm.Gemm and gemm.Gemv, elem.Axpy, reduce.Sum
// and reduce.Dot), so isa.Generic runs pure Go and a higher level the
// assembly. Caller mistakes (a bad geometry, a slice of the wrong length,
// threads < 1) panic with a message starting "conv: ".
package conv

import (
	"fmt"

	"github.com/peakbench/peakbench/gobackend/elem"
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
// a direct loop nest, without a lowered copy of x:
//
//   - NCHW: each goroutine owns whole output planes (n, k); for every
//     input channel and filter tap, each output row gets an axpy of the
//     input row it sees (elem.Axpy, contiguous when the W stride is 1).
//   - NHWC: each goroutine owns output rows; for every output pixel and
//     filter tap, the pixel's K outputs get the K×C tap of the filter times
//     the C channels of the input pixel (gemm.Gemv).
//
// x holds N·C·D·H·W elements, w K·C·T·R·S and y N·K·P₀·P₁·P₂; y is
// overwritten.
func Direct[T Float](lvl isa.Level, p Params, x, w, y []T, threads int) {
	p.check(true)
	checkThreads(threads)
	checkLen("x", len(x), p.InLen())
	checkLen("w", len(w), p.FilterLen())
	checkLen("y", len(y), p.OutLen())
	if p.NHWC {
		directNHWC(lvl, p, x, w, y, threads)
		return
	}
	o := p.Out()
	osz, isz, win := prod(o), prod(p.In), prod(p.Window)
	num.For(p.N*p.K, threads, 1, 1, func(_, lo, hi int) {
		for nk := lo; nk < hi; nk++ {
			n, k := nk/p.K, nk%p.K
			yp := y[nk*osz : (nk+1)*osz]
			clear(yp)
			for c := range p.C {
				xc := x[(n*p.C+c)*isz : (n*p.C+c+1)*isz]
				wc := w[(k*p.C+c)*win : (k*p.C+c+1)*win]
				for t := range p.Window[0] {
					for r := range p.Window[1] {
						for s := range p.Window[2] {
							wv := wc[(t*p.Window[1]+r)*p.Window[2]+s]
							off := s*p.Dil[2] - p.Pad[2]
							lo2, hi2 := validRange(o[2], p.Stride[2], off, p.In[2])
							if lo2 >= hi2 {
								continue
							}
							for o0 := range o[0] {
								i0 := o0*p.Stride[0] + t*p.Dil[0] - p.Pad[0]
								if i0 < 0 || i0 >= p.In[0] {
									continue
								}
								for o1 := range o[1] {
									i1 := o1*p.Stride[1] + r*p.Dil[1] - p.Pad[1]
									if i1 < 0 || i1 >= p.In[1] {
										continue
									}
									xrow := xc[(i0*p.In[1]+i1)*p.In[2]:]
									yrow := yp[(o0*o[1]+o1)*o[2]:]
									if p.Stride[2] == 1 {
										elem.Axpy(lvl, wv, xrow[lo2+off:hi2+off], yrow[lo2:hi2], 1)
										continue
									}
									for q := lo2; q < hi2; q++ {
										yrow[q] += wv * xrow[q*p.Stride[2]+off]
									}
								}
							}
						}
					}
				}
			}
		}
	})
}

func directNHWC[T Float](lvl isa.Level, p Params, x, w, y []T, threads int) {
	o := p.Out()
	taps := prod(p.Window)
	lda := taps * p.C // stride between the filter's rows k
	num.For(p.N*o[0]*o[1], threads, 1, 1, func(_, lo, hi int) {
		for row := lo; row < hi; row++ {
			n, o0, o1 := row/(o[0]*o[1]), row/o[1]%o[0], row%o[1]
			for o2 := range o[2] {
				yp := y[(row*o[2]+o2)*p.K : (row*o[2]+o2+1)*p.K]
				clear(yp)
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
							i2 := o2*p.Stride[2] + s*p.Dil[2] - p.Pad[2]
							if i2 < 0 || i2 >= p.In[2] {
								continue
							}
							px := (((n*p.In[0]+i0)*p.In[1]+i1)*p.In[2] + i2) * p.C
							tap := ((t*p.Window[1]+r)*p.Window[2] + s) * p.C
							gemm.Gemv(lvl, false, p.K, p.C, 1, w[tap:], lda, x[px:px+p.C], 1, 1, yp, 1, 1)
						}
					}
				}
			}
		}
	})
}
