package conv

import (
	"fmt"
	"math"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

//go:generate go run -C ../_asm . -pkg conv

// PoolKind selects a pooling.
type PoolKind int

const (
	// Max takes the largest input of each window; padding never wins (a
	// NaN input gives NaN).
	Max PoolKind = iota
	// Avg divides each window's sum by the window size: padding counts as
	// zeros (PyTorch's count_include_pad, oneDNN's avg_include_padding).
	Avg
	// AdaptiveAvg averages the window ⌊i·in/out⌋ … ⌈(i+1)·in/out⌉ − 1 of
	// each output i (PyTorch's AdaptiveAvgPool), ignoring Window, Stride
	// and Pad.
	AdaptiveAvg
)

// Pool pools x into y. p's K is unused (the output has C channels) and its
// Dil must be 1; out gives the output extents of AdaptiveAvg and is ignored
// otherwise (p.Out() applies). x holds N·C·D·H·W elements, y N·C·P₀·P₁·P₂,
// both in p's layout. Above isa.Generic, max and avg pooling run the
// vector kernels of pool_vec.go where they have one for the geometry;
// so does adaptive pooling whose input extents are multiples of the
// output's (every window the same: average pooling with window = stride
// = in/out), and other adaptive pooling is pure Go at every level.
func Pool[T Float](lvl isa.Level, kind PoolKind, p Params, out [3]int, x, y []T, threads int) {
	if p.Dil != [3]int{1, 1, 1} {
		panic("conv: pooling has no dilation")
	}
	if kind != AdaptiveAvg {
		p.check(false)
		out = p.Out()
	} else {
		for i := range 3 {
			if out[i] < 1 || p.In[i] < 1 {
				panic(fmt.Sprintf("conv: adaptive pooling of %v to %v", p.In, out))
			}
		}
		if q, ok := equalWindows(p.In, out); ok {
			// Every window has the same size: the ordinary average
			// pooling, with its vector kernels (7×7 → 1×1 is global).
			p.Window, p.Stride, p.Pad = q, q, [3]int{}
			kind = Avg
		}
	}
	if p.N < 1 || p.C < 1 {
		panic(fmt.Sprintf("conv: bad sizes N=%d C=%d", p.N, p.C))
	}
	checkThreads(threads)
	checkLen("x", len(x), p.InLen())
	checkLen("y", len(y), p.N*p.C*prod(out))
	if kind != AdaptiveAvg {
		k := vecImplFor(tune.Current().Level(lvl, (len(x)+len(y))*num.Size[T]()))
		if k != vecGeneric && poolVec(k, kind, p, out, x, y, threads) {
			return
		}
	}
	window := func(d, i int) (lo, hi, size int) {
		if kind == AdaptiveAvg {
			lo, hi = i*p.In[d]/out[d], ((i+1)*p.In[d]+out[d]-1)/out[d]
			return lo, hi, hi - lo
		}
		lo = i*p.Stride[d] - p.Pad[d]
		return max(lo, 0), min(lo+p.Window[d], p.In[d]), p.Window[d]
	}
	osz, isz := prod(out), prod(p.In)
	if !p.NHWC && kind != AdaptiveAvg {
		// Each output row folds in the input rows its windows see
		// (poolRow), instead of a window walk with bounds per output.
		inv := 1 / T(prod(p.Window))
		rp := newRowPlan(out[2], p.In[2], p.Window[2], p.Stride[2], p.Pad[2])
		num.For(p.N*p.C, threads, 1, 1, func(_, lo, hi int) {
			for nc := lo; nc < hi; nc++ {
				xc, yc := x[nc*isz:(nc+1)*isz], y[nc*osz:(nc+1)*osz]
				for o0 := range out[0] {
					for o1 := range out[1] {
						yrow := yc[(o0*out[1]+o1)*out[2]:][:out[2]]
						for i := range yrow {
							if kind == Max {
								yrow[i] = T(math.Inf(-1))
							} else {
								yrow[i] = 0
							}
						}
						for t := range p.Window[0] {
							i0 := o0*p.Stride[0] + t - p.Pad[0]
							if i0 < 0 || i0 >= p.In[0] {
								continue
							}
							for r := range p.Window[1] {
								i1 := o1*p.Stride[1] + r - p.Pad[1]
								if i1 < 0 || i1 >= p.In[1] {
									continue
								}
								xrow := xc[(i0*p.In[1]+i1)*p.In[2]:][:p.In[2]]
								poolRow(kind, yrow, xrow, &rp)
							}
						}
						if kind == Avg {
							for i := range yrow {
								yrow[i] *= inv
							}
						}
					}
				}
			}
		})
		return
	}
	if !p.NHWC {
		num.For(p.N*p.C, threads, 1, 1, func(_, lo, hi int) {
			for nc := lo; nc < hi; nc++ {
				xc, yc := x[nc*isz:(nc+1)*isz], y[nc*osz:(nc+1)*osz]
				for o0 := range out[0] {
					a0, b0, s0 := window(0, o0)
					for o1 := range out[1] {
						a1, b1, s1 := window(1, o1)
						for o2 := range out[2] {
							a2, b2, s2 := window(2, o2)
							acc := T(math.Inf(-1))
							if kind != Max {
								acc = 0
							}
							for i0 := a0; i0 < b0; i0++ {
								for i1 := a1; i1 < b1; i1++ {
									row := xc[(i0*p.In[1]+i1)*p.In[2]:]
									if kind == Max {
										for _, v := range row[a2:b2] {
											acc = max(acc, v)
										}
									} else {
										for _, v := range row[a2:b2] {
											acc += v
										}
									}
								}
							}
							if kind != Max {
								acc /= T(s0 * s1 * s2)
							}
							yc[(o0*out[1]+o1)*out[2]+o2] = acc
						}
					}
				}
			}
		})
		return
	}
	// NHWC: each output pixel accumulates the C-vectors of its window.
	num.For(p.N*out[0]*out[1], threads, 1, 1, func(_, lo, hi int) {
		for row := lo; row < hi; row++ {
			n, o0, o1 := row/(out[0]*out[1]), row/out[1]%out[0], row%out[1]
			a0, b0, s0 := window(0, o0)
			a1, b1, s1 := window(1, o1)
			for o2 := range out[2] {
				a2, b2, s2 := window(2, o2)
				acc := y[(row*out[2]+o2)*p.C : (row*out[2]+o2+1)*p.C]
				if kind == Max {
					for c := range acc {
						acc[c] = T(math.Inf(-1))
					}
				} else {
					clear(acc)
				}
				for i0 := a0; i0 < b0; i0++ {
					for i1 := a1; i1 < b1; i1++ {
						for i2 := a2; i2 < b2; i2++ {
							px := x[(((n*p.In[0]+i0)*p.In[1]+i1)*p.In[2]+i2)*p.C:][:p.C]
							if kind == Max {
								for c, v := range px {
									acc[c] = max(acc[c], v)
								}
							} else {
								for c, v := range px {
									acc[c] += v
								}
							}
						}
					}
				}
				if kind != Max {
					inv := 1 / T(s0*s1*s2)
					for c := range acc {
						acc[c] *= inv
					}
				}
			}
		}
	})
}

// rowPlan is how poolRow walks an output row: the interior [lo, hi)
// where every window lies inside the input, and the edge work: for window
// taps that reach outputs outside the interior, those ranges of outputs.
type rowPlan struct {
	win, st, pad, lo, hi int
	edges                []edge
}

// edge is a window tap off (= s − pad) and the outputs [a, b) it reaches.
type edge struct{ off, a, b int }

func newRowPlan(n, in, win, st, pad int) rowPlan {
	// Interior: q·st − pad ≥ 0 and q·st − pad + win − 1 ≤ in − 1.
	lo, hi := validRange(n, st, -pad, in)
	lo2, hi2 := validRange(n, st, win-1-pad, in)
	lo, hi = max(lo, lo2), min(hi, hi2)
	if lo >= hi {
		lo, hi = 0, 0
	}
	rp := rowPlan{win: win, st: st, pad: pad, lo: lo, hi: hi}
	for s := range win {
		a, b := validRange(n, st, s-pad, in)
		for _, r := range [2][2]int{{a, min(b, lo)}, {max(a, hi), b}} {
			if r[0] < r[1] {
				rp.edges = append(rp.edges, edge{s - pad, r[0], r[1]})
			}
		}
	}
	return rp
}

// poolRow folds into yrow (max, or sum) the input row xrow through the
// windows of rp: yrow[q] takes xrow[q·st + s − pad] for every tap s that
// falls inside xrow. In the interior each output folds its whole window
// (yrow[q] read and written once); at the edges tap by tap.
func poolRow[T Float](kind PoolKind, yrow, xrow []T, rp *rowPlan) {
	st, pad := rp.st, rp.pad
	for _, e := range rp.edges {
		for q := e.a; q < e.b; q++ {
			if kind == Max {
				yrow[q] = max(yrow[q], xrow[q*st+e.off])
			} else {
				yrow[q] += xrow[q*st+e.off]
			}
		}
	}
	for q := rp.lo; q < rp.hi; q++ {
		w := xrow[q*st-pad:][:rp.win]
		acc := yrow[q]
		if kind == Max {
			for _, v := range w {
				acc = max(acc, v)
			}
		} else {
			for _, v := range w {
				acc += v
			}
		}
		yrow[q] = acc
	}
}

// equalWindows returns in/out per dimension when every extent of in is a
// multiple of out's: adaptive pooling's windows are then in/out wide at a
// stride of in/out, not overlapping.
func equalWindows(in, out [3]int) (q [3]int, ok bool) {
	for i := range 3 {
		if in[i]%out[i] != 0 {
			return q, false
		}
		q[i] = in[i] / out[i]
	}
	return q, true
}
