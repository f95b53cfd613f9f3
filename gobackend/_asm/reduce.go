package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Reductions: Sum and Dot with eight vector accumulators, folded into
// float64 totals every 2048 elements (32 terms per lane for float32, as in
// the generic kernels' blocks, 64 for float64), so a float32 sum of millions of elements keeps float64-like
// accuracy at float32 speed. Max tracks NaN on the side, as VMAXPS drops it.

func genReduce(g *gen) {
	for _, t := range []dtype{f32, f64} {
		g.sum(t, false)
		g.sum(t, true)
		g.max(t)
	}
}

const sumBlock = 2048 // elements summed in T before a fold into float64

func (g *gen) sum(t dtype, dot bool) {
	name, sig := "sum", "func(n int, x *%s) float64"
	what := "Σ x[i]"
	if dot {
		name, sig, what = "dot", "func(n int, x, y *%[1]s) float64", "Σ x[i]·y[i]"
	}
	// Accumulators: eight for both. A sum is bound by its adds (two per
	// cycle, 3 cycles of latency: six chains at least); a dot product by
	// its two loads per FMA, but with four chains of 4-cycle FMAs its
	// latency floor equals the load floor, and a short vector (the 4 KiB
	// working sets of the benchmarks) loses a fifth to that.
	nacc := 8
	doc := []string{fmt.Sprintf("%s%sAVX2 returns %s for i < n, in %d vector accumulators", t.char, name, what, nacc),
		fmt.Sprintf("folded (pairwise) into float64 totals every %d elements; the last", sumBlock),
		"partial block is reduced in its own type, then converted."}
	g.elemFunc(t, name, sig, doc...)
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	ptrs := []Register{x}
	if dot {
		g.Load(g.Param("y"), y)
		ptrs = append(ptrs, y)
	}
	acc := make([]VecVirtual, nacc)
	for i := range acc {
		acc[i] = g.YMM()
		g.vxor(t, acc[i], acc[i], acc[i])
	}
	body := func(u, _ int) {
		a := g.YMM()
		g.vload(t, x, u, a)
		switch {
		case dot && g.mask == nil:
			g.vfmadd231(t, Mem{Base: y, Disp: u * 32}, a, acc[u%nacc])
		case dot:
			b := g.YMM()
			g.vload(t, y, u, b)
			g.vfmadd231(t, b, a, acc[u%nacc])
		default:
			g.vadd(t, a, acc[u%nacc], acc[u%nacc])
		}
	}
	// fold adds the accumulators into acc[0] (pairwise).
	fold := func() {
		for step := 1; step < nacc; step *= 2 {
			for i := 0; i+step < nacc; i += 2 * step {
				g.vadd(t, acc[i+step], acc[i], acc[i])
			}
		}
	}
	// Blocks of sumBlock elements in T, folded into float64 totals: the
	// error bound is that of sumBlock/(lanes·nacc)-term sums, plus one
	// float64 addition per block.
	var tot [2]VecVirtual
	tot[0], tot[1] = g.YMM(), g.YMM()
	g.VXORPD(tot[0], tot[0], tot[0])
	g.VXORPD(tot[1], tot[1], tot[1])
	toF64 := func() {
		fold()
		if t.f64 {
			g.VADDPD(acc[0], tot[0], tot[0])
		} else {
			lo, hi := g.YMM(), g.YMM()
			g.VCVTPS2PD(acc[0].AsX(), lo)
			g.VEXTRACTF128(U8(1), acc[0], hi.AsX())
			g.VCVTPS2PD(hi.AsX(), hi)
			g.VADDPD(lo, tot[0], tot[0])
			g.VADDPD(hi, tot[1], tot[1])
		}
		for i := range acc {
			g.vxor(t, acc[i], acc[i], acc[i])
		}
	}
	vw := 32 / t.size
	blocks, inner, rest := g.label("blocks"), g.label("inner"), g.label("rest")
	cnt := g.GP64()
	g.Label(blocks)
	g.CMPQ(n, U32(sumBlock))
	g.JL(LabelRef(rest))
	const unroll = 8
	g.MOVQ(U32(sumBlock/(unroll*vw)), cnt)
	g.Label(inner)
	for u := 0; u < unroll; u++ {
		body(u, unroll)
	}
	for _, p := range ptrs {
		g.ADDQ(U32(unroll*32), p)
	}
	g.DECQ(cnt)
	g.JNZ(LabelRef(inner))
	toF64()
	g.SUBQ(U32(sumBlock), n)
	g.JMP(LabelRef(blocks))
	g.Label(rest)
	g.loop(t, unroll, n, ptrs, body)
	// The last partial block: its accumulators reduced in T, converted
	// once, added to the horizontal sum of the float64 totals. (The two
	// chains run side by side; on a short vector only the first counts.)
	fold()
	r := g.XMM()
	g.VEXTRACTF128(U8(1), acc[0], r)
	g.vadd(t, r, acc[0].AsX(), r)
	p := g.XMM()
	if t.f64 {
		g.VPERMILPD(U8(1), r, p)
		g.VADDSD(p, r, r)
	} else {
		g.VPERMILPS(U8(0x4e), r, p)
		g.VADDPS(p, r, r)
		g.VPERMILPS(U8(0xb1), r, p)
		g.VADDSS(p, r, r)
		g.VCVTSS2SD(r, r, r)
	}
	g.VADDPD(tot[1], tot[0], tot[0])
	h := g.XMM()
	g.VEXTRACTF128(U8(1), tot[0], h)
	g.VADDPD(h, tot[0].AsX(), h)
	l := g.XMM()
	g.VPERMILPD(U8(1), h, l)
	g.VADDSD(l, h, h)
	g.VADDSD(r, h, h)
	g.VZEROUPPER()
	g.Store(h, g.ReturnIndex(0))
	g.RET()
}

// max returns the largest element, NaN if any is NaN, -Inf for n == 0. It
// does not order ±0 (the caller does).
func (g *gen) max(t dtype) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.elemFunc(t, "max", "func(n int, x *%[1]s) "+elem,
		fmt.Sprintf("%smaxAVX2 returns max x[i] for i < n: NaN if any x[i] is NaN, -Inf if n == 0.", t.char),
		"Of +0 and -0 it may return either.")
	n, x := g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	const nacc = 4
	ninf := g.YMM()
	g.vmovu(t, g.fconst(t, "neginf", math.Inf(-1)), ninf)
	acc, nan := make([]VecVirtual, nacc), make([]VecVirtual, nacc)
	for i := range acc {
		acc[i], nan[i] = g.YMM(), g.YMM()
		g.vmovu(t, ninf, acc[i])
		g.vxor(t, nan[i], nan[i], nan[i])
	}
	var pending VecVirtual // an even vector of a trip, waiting for its partner
	g.loop(t, nacc, n, []Register{x}, func(u, of int) {
		a := g.YMM()
		g.vload(t, x, u, a)
		if g.mask != nil {
			// Lanes past the end read 0: make them -Inf.
			g.blendv(t, g.mask, a, ninf, a)
		}
		// In a trip of several vectors one unordered compare covers a
		// pair; a single vector is compared with itself.
		switch {
		case of > 1 && u%2 == 0:
			pending = a
		case of > 1:
			c := g.YMM()
			g.vcmp(t, cmpUNORD, pending, a, c)
			g.vor(t, c, nan[u%nacc], nan[u%nacc])
		default:
			c := g.YMM()
			g.vcmp(t, cmpUNORD, a, a, c)
			g.vor(t, c, nan[0], nan[0])
		}
		g.vmax(t, a, acc[u%nacc], acc[u%nacc])
	})
	// Fold.
	g.vmax(t, acc[1], acc[0], acc[0])
	g.vmax(t, acc[3], acc[2], acc[2])
	g.vmax(t, acc[2], acc[0], acc[0])
	g.vor(t, nan[1], nan[0], nan[0])
	g.vor(t, nan[3], nan[2], nan[2])
	g.vor(t, nan[2], nan[0], nan[0])
	h := g.XMM()
	g.VEXTRACTF128(U8(1), acc[0], h)
	g.vmax(t, h, acc[0].AsX(), h)
	l := g.XMM()
	if t.f64 {
		g.VPERMILPD(U8(1), h, l)
		g.VMAXSD(l, h, h)
	} else {
		g.VPERMILPS(U8(0x4e), h, l)
		g.VMAXPS(l, h, h)
		g.VPERMILPS(U8(0xb1), h, l)
		g.VMAXPS(l, h, h)
	}
	done := g.label("done")
	g.VPTEST(nan[0], nan[0])
	g.JZ(LabelRef(done))
	g.vmovu(t, g.vconst(t, "nan", nanBits(t)), h)
	g.Label(done)
	g.VZEROUPPER()
	g.Store(h, g.ReturnIndex(0))
	g.RET()
}

func nanBits(t dtype) uint64 {
	if t.f64 {
		return 0x7ff8000000000000
	}
	return 0x7fc00000
}
