package conv

import (
	"math"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/reduce"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// Max and avg pooling with the vector kernels of conv_amd64.s. A window is
// a list of taps, the element offsets of its elements inside the input
// (taps in the padding are left out: padding never wins a max and adds
// zero to a sum, whose divisor stays the window size), and a kernel folds
// the taps along the layout's contiguous dimension: the channels in NHWC,
// for any stride; the output row in NCHW, at stride 1 (one load per tap)
// or 2 (two loads per tap and a deinterleave, poolTaps2 in ../_asm). The
// outputs whose window crosses the input's edge in that dimension get a
// list of their own (NHWC) or a call per column (NCHW). NCHW windows of
// 3×3 and the like fold rows, then columns (pool_sep.go); a window of the
// whole plane (global pooling) is the planes kernel, one output per
// plane. Other NCHW strides run the generic code, except a window that
// spans whole rows, which reduce folds as one run.

// vecImpl is a set of the package's vector kernels: pooling, and the rows of
// layernorm.
type vecImpl uint8

const (
	vecGeneric vecImpl = iota
	vecAVX2
	vecAVX512
)

// vecImplFor returns the kernels lvl runs (clamped to what the CPU runs).
func vecImplFor(lvl isa.Level) vecImpl {
	switch l := lvl.Clamp(); {
	case !haveAsm || l < isa.AVX2:
		return vecGeneric
	case l >= isa.AVX512:
		return vecAVX512
	}
	return vecAVX2
}

// PoolKernel names the kernels max and avg pooling run at lvl: "generic",
// "AVX2", or at AVX512 isa.ZMMKernel's name (tune's zmm.memory).
func PoolKernel(lvl isa.Level) string {
	switch vecImplFor(lvl) {
	case vecAVX2:
		return "AVX2"
	case vecAVX512:
		return isa.ZMMKernel(tune.Current().ZMM.Memory)
	}
	return "generic"
}

// poolVec pools x into y (Max or Avg) with k's kernels and reports true,
// or reports false, having done nothing, for a geometry it has no kernel
// for.
func poolVec[T Float](k vecImpl, kind PoolKind, p Params, out [3]int, x, y []T, threads int) bool {
	switch {
	case p.NHWC:
		poolNHWC(k, kind, p, out, x, y, threads)
	case p.Window == p.In && p.Pad == [3]int{}:
		poolGlobal(k, kind, p, x, y, threads)
	case out[2] == 1 && p.Window[2] == p.In[2] && p.Pad[2] == 0:
		poolWholeRows(k, kind, p, out, x, y, threads)
	case sepCase(p):
		poolSeparable(k, kind, p, out, x, y, threads)
	case p.Stride[2] <= 2:
		poolNCHW(k, kind, p, out, x, y, threads)
	default:
		return false
	}
	return true
}

// validTaps appends to taps, for output o of dimension d, base plus
// i·step for every input i of its window inside the input.
func validTaps(taps []int, p Params, d, o, base, step int) []int {
	for s := range p.Window[d] {
		if i := o*p.Stride[d] + s - p.Pad[d]; i >= 0 && i < p.In[d] {
			taps = append(taps, base+i*step)
		}
	}
	return taps
}

// poolNHWC: each output pixel folds the C-vectors of its window; the
// pixels of an output row whose windows lie inside the row share one tap
// list and one kernel call.
func poolNHWC[T Float](k vecImpl, kind PoolKind, p Params, out [3]int, x, y []T, threads int) {
	c, sz := p.C, num.Size[T]()
	scale := 1 / T(prod(p.Window))
	rowLen := p.In[2] * c
	lo, hi := interior(out[2], p.In[2], p.Window[2]-1, p.Stride[2], p.Pad[2])
	num.For(p.N*out[0]*out[1], threads, 1, 1, func(_, rlo, rhi int) {
		var rows, taps, planes []int // reused across rows: made per row, planes were most of a call's allocations
		for row := rlo; row < rhi; row++ {
			n, o0, o1 := row/(out[0]*out[1]), row/out[1]%out[0], row%out[1]
			xn := x[n*prod(p.In)*c : (n+1)*prod(p.In)*c]
			yrow := y[row*out[2]*c : (row+1)*out[2]*c]
			rows = rows[:0]
			planes = validTaps(planes[:0], p, 0, o0, 0, p.In[1])
			for _, r0 := range planes {
				rows = validTaps(rows, p, 1, o1, r0*rowLen, rowLen)
			}
			run := func(yr []T, xb []T, taps []int, m int) {
				if poolCall(k, kind, yr, xb, taps, c, m, c*sz, p.Stride[2]*c*sz, scale) {
					for i := range m {
						o2 := (len(yrow)-len(yr))/c + i
						poolPixelGo(kind, p, xn, yrow[o2*c:(o2+1)*c], o0, o1, o2)
					}
				}
			}
			if lo < hi {
				taps = taps[:0]
				for _, r := range rows {
					for s := range p.Window[2] {
						taps = append(taps, r+s*c)
					}
				}
				run(yrow[lo*c:], xn[(lo*p.Stride[2]-p.Pad[2])*c:], taps, hi-lo)
			}
			for o2 := 0; o2 < out[2]; o2++ {
				if o2 == lo && lo < hi {
					o2 = hi - 1
					continue
				}
				taps = taps[:0]
				for _, r := range rows {
					taps = validTaps(taps, p, 2, o2, r, c)
				}
				run(yrow[o2*c:], xn, taps, 1)
			}
		}
	})
}

// poolNCHW: each channel plane's output rows fold their window's input
// rows; the rows whose windows lie inside the plane share one tap list and
// one kernel call, and the one or two outputs of a row whose window
// crosses the row's ends are computed in Go.
func poolNCHW[T Float](k vecImpl, kind PoolKind, p Params, out [3]int, x, y []T, threads int) {
	sz, st := num.Size[T](), p.Stride[2]
	scale := 1 / T(prod(p.Window))
	isz, osz, w2 := prod(p.In), prod(out), p.In[2]
	// The inputs a vector output reads reach span past its first: the
	// window, and at stride 2 the odd lane after the last even tap.
	span := p.Window[2] - 1
	if st == 2 {
		span = (p.Window[2]-1)&^1 + 1
	}
	vlo, vhi := interior(out[2], w2, span, st, p.Pad[2])
	rlo, rhi := interior(out[1], p.In[1], p.Window[1]-1, p.Stride[1], p.Pad[1])
	num.For(p.N*p.C, threads, 1, 1, func(_, lo, hi int) {
		var rows, taps, odd, planes []int // reused across channels: made per channel, planes were most of a call's allocations
		for nc := lo; nc < hi; nc++ {
			xc, yc := x[nc*isz:(nc+1)*isz], y[nc*osz:(nc+1)*osz]
			for o0 := range out[0] {
				planes = validTaps(planes[:0], p, 0, o0, 0, p.In[1])
				// rowsOf lists the offsets of the input rows output row o1's
				// windows see.
				rowsOf := func(o1 int) []int {
					rows = rows[:0]
					for _, r0 := range planes {
						rows = validTaps(rows, p, 1, o1, r0*w2, w2)
					}
					return rows
				}
				// run pools m output rows from o1 whose windows share rows.
				run := func(o1, m int, rows []int) {
					ybase := (o0*out[1] + o1) * out[2]
					xbase := vlo*st - p.Pad[2]
					if vlo < vhi {
						taps, odd = taps[:0], odd[:0]
						for _, r := range rows {
							for s := range p.Window[2] {
								if st == 2 && s%2 == 1 {
									odd = append(odd, r+s-1)
								} else {
									taps = append(taps, r+s)
								}
							}
						}
						nan := false
						yr := yc[ybase+vlo:]
						if st == 2 {
							nan = poolCall2(k, kind, yr, xc[xbase:], taps, odd, vhi-vlo, m, out[2]*sz, p.Stride[1]*w2*sz, scale)
						} else {
							nan = poolCall(k, kind, yr, xc[xbase:], taps, vhi-vlo, m, out[2]*sz, p.Stride[1]*w2*sz, scale)
						}
						if nan {
							for i := range m {
								for o2 := vlo; o2 < vhi; o2++ {
									yc[ybase+i*out[2]+o2] = poolAt(kind, p, xc, [3]int{o0, o1 + i, o2}, [3]int{p.In[1] * w2, w2, 1})
								}
							}
						}
					}
					// The columns whose windows cross the row's ends, one
					// call per column for the m rows, n = 1.
					for o2 := 0; o2 < out[2]; o2++ {
						if o2 == vlo && vlo < vhi {
							o2 = vhi - 1
							continue
						}
						taps = taps[:0]
						for _, r := range rows {
							taps = validTaps(taps, p, 2, o2, r, 1)
						}
						if poolCall(k, kind, yc[ybase+o2:], xc, taps, 1, m, out[2]*sz, p.Stride[1]*w2*sz, scale) {
							for i := range m {
								yc[ybase+i*out[2]+o2] = poolAt(kind, p, xc, [3]int{o0, o1 + i, o2}, [3]int{p.In[1] * w2, w2, 1})
							}
						}
					}
				}
				for o1 := 0; o1 < out[1]; o1++ {
					if o1 == rlo && rlo < rhi {
						run(rlo, rhi-rlo, rowsOf(rlo))
						o1 = rhi - 1
						continue
					}
					run(o1, 1, rowsOf(o1))
				}
			}
		}
	})
}

// interior returns the outputs o in [0, n) whose inputs o·stride − pad …
// o·stride − pad + span all lie in [0, in).
func interior(n, in, span, stride, pad int) (lo, hi int) {
	lo, hi = validRange(n, stride, -pad, in)
	lo2, hi2 := validRange(n, stride, span-pad, in)
	lo, hi = max(lo, lo2), min(hi, hi2)
	if lo >= hi {
		return 0, 0
	}
	return lo, hi
}

// poolGlobal: NCHW windows that are the whole plane, one output per
// channel: a run of planes in one call of the planes kernel, which folds
// each plane with whole vectors.
func poolGlobal[T Float](k vecImpl, kind PoolKind, p Params, x, y []T, threads int) {
	isz := prod(p.In)
	scale := 1 / T(isz)
	num.For(p.N*p.C, threads, 1, 1, func(_, lo, hi int) {
		if poolPlanesCall(k, kind, y[lo:hi], x[lo*isz:hi*isz], isz, scale) {
			for nc := lo; nc < hi; nc++ {
				y[nc] = poolAt(kind, p, x[nc*isz:(nc+1)*isz], [3]int{}, [3]int{p.In[1] * p.In[2], p.In[2], 1})
			}
		}
	})
}

// poolWholeRows: NCHW windows one output wide that span whole input rows
// (global pooling): each window row range is one contiguous run.
func poolWholeRows[T Float](k vecImpl, kind PoolKind, p Params, out [3]int, x, y []T, threads int) {
	lvl := isa.AVX2
	if k == vecAVX512 {
		lvl = isa.AVX512
	}
	scale := 1 / T(prod(p.Window))
	isz, osz, w2 := prod(p.In), prod(out), p.In[2]
	num.For(p.N*p.C, threads, 1, 1, func(_, lo, hi int) {
		var planes []int
		for nc := lo; nc < hi; nc++ {
			xc, yc := x[nc*isz:(nc+1)*isz], y[nc*osz:(nc+1)*osz]
			for o0 := range out[0] {
				planes = validTaps(planes[:0], p, 0, o0, 0, p.In[1])
				for o1 := range out[1] {
					a1 := max(o1*p.Stride[1]-p.Pad[1], 0)
					b1 := min(o1*p.Stride[1]-p.Pad[1]+p.Window[1], p.In[1])
					acc := T(math.Inf(-1))
					if kind == Avg {
						acc = 0
					}
					for _, r0 := range planes {
						run := xc[(r0+a1)*w2 : (r0+b1)*w2]
						if kind == Max {
							acc = max(acc, reduce.Max(lvl, run, 1))
						} else {
							acc += reduce.Sum(lvl, run, 1)
						}
					}
					if kind == Avg {
						acc *= scale
					}
					yc[o0*out[1]+o1] = acc
				}
			}
		}
	})
}

// poolAt computes one output o of a channel from the definition: xb holds
// the channel's input at origin (stride of dimension d: step[d]).
func poolAt[T Float](kind PoolKind, p Params, xb []T, o, step [3]int) T {
	acc := T(math.Inf(-1))
	if kind == Avg {
		acc = 0
	}
	var lo, hi [3]int
	for d := range 3 {
		lo[d] = max(o[d]*p.Stride[d]-p.Pad[d], 0)
		hi[d] = min(o[d]*p.Stride[d]-p.Pad[d]+p.Window[d], p.In[d])
	}
	for i0 := lo[0]; i0 < hi[0]; i0++ {
		for i1 := lo[1]; i1 < hi[1]; i1++ {
			for i2 := lo[2]; i2 < hi[2]; i2++ {
				v := xb[i0*step[0]+i1*step[1]+i2*step[2]]
				if kind == Max {
					acc = max(acc, v)
				} else {
					acc += v
				}
			}
		}
	}
	if kind == Avg {
		acc *= 1 / T(prod(p.Window))
	}
	return acc
}

// poolPixelGo computes the C channels of NHWC output pixel (o0, o1, o2) of
// sample xn into px, in Go: after a kernel reported a NaN it may have
// dropped.
func poolPixelGo[T Float](kind PoolKind, p Params, xn, px []T, o0, o1, o2 int) {
	step := [3]int{p.In[1] * p.In[2] * p.C, p.In[2] * p.C, p.C}
	for c := range px {
		px[c] = poolAt(kind, p, xn[c:], [3]int{o0, o1, o2}, step)
	}
}
