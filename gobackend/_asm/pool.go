package main

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Pooling kernels of gobackend/conv. Both fold a list of taps — element
// offsets into x, one per window element inside the input — into outputs
// vectorized along the layout's contiguous dimension, for m runs of n
// outputs (y advancing ys bytes and x xs bytes from one run to the next):
//
//	maxpool, avgpool    y[i·ys + j] = op over taps of x[i·xs + off + j]
//	                    (channels in NHWC, a stride-1 row in NCHW)
//	maxpool2, avgpool2  y[i·ys + j] = op over taps of x[i·xs + off + 2j]
//	                    (a stride-2 row in NCHW)
//	maxplanes,          y[i] = op over x[i·l … i·l + l − 1]
//	avgplanes           (global pooling in NCHW: a plane per output)
//
// op is max, or the sum times scale. The first tap starts the fold, so
// there is no -Inf or zero to load; the caller never passes an empty list.
// VMAXPS drops a NaN of its first source, so max also adds x·0 into
// accumulators by FMA (NaN for a NaN or infinite x), a chain per block of
// outputs ORed into one at its end (one chain through the whole call
// would serialize it on the FMA's latency), and returns 1 when one ended NaN: the caller then recomputes those outputs in Go. The loads in
// the tap loop go through registers because of that FMA.

func genConv(g *gen) {
	for _, w := range []width{ymm, zmm} {
		for _, t := range []dtype{f32, f64} {
			for _, avg := range []bool{false, true} {
				g.poolTaps(t, w, avg)
				g.poolTaps2(t, w, avg)
				g.poolPlanes(t, w, avg)
			}
		}
	}
	genNorm(g)
	genConvTiles(g) // conv_direct.go
}

func poolName(avg bool) string {
	if avg {
		return "avgpool"
	}
	return "maxpool"
}

// poolDoc is the doc comment of a pooling kernel: what it sets, what
// (lines), and what it returns.
func poolDoc(t dtype, w width, name string, avg bool, what ...string) []string {
	op := "max"
	if avg {
		op = "sum × scale"
	}
	doc := append([]string{fmt.Sprintf("%s%s%s sets y[i·ys + j] (ys, xs in bytes) for i < m, j < n to the %s of", t.char, name, w.name, op)}, what...)
	if avg {
		doc = append(doc, "It returns 0.")
	} else {
		doc = append(doc, "It returns 1 when a value read was NaN or infinite (the result may have", "dropped a NaN), else 0.")
	}
	return append(doc, needs(w)...)
}

// poolFold is the fold of one tap into acc: max, tracking NaN in nan, or
// the sum.
func (g *gen) poolFold(t dtype, avg bool, a, acc, zero, nan VecVirtual) {
	if avg {
		g.vadd(t, a, acc, acc)
		return
	}
	g.vmax(t, a, acc, acc)
	g.vfmadd231(t, a, zero, nan)
}

// poolEpilogue ORs the NaN accumulators into the return value (max) and
// returns.
func (g *gen) poolEpilogue(t dtype, w width, avg bool, nan []VecVirtual) {
	ret := g.GP64()
	g.XORQ(ret, ret)
	if !avg {
		for _, v := range nan[1:] {
			g.vadd(t, v, nan[0], nan[0])
		}
		ok := g.label("ordered")
		if w == zmm {
			k := g.K()
			if t.f64 {
				g.VCMPPD(U8(cmpUNORD), nan[0], nan[0], k)
			} else {
				g.VCMPPS(U8(cmpUNORD), nan[0], nan[0], k)
			}
			g.KORTESTW(k, k)
		} else {
			c := g.YMM()
			g.vcmp(t, cmpUNORD, nan[0], nan[0], c)
			g.VPTEST(c, c)
		}
		g.JZ(LabelRef(ok))
		g.MOVQ(U32(1), ret)
		g.Label(ok)
	}
	g.VZEROUPPER()
	g.Store(ret, g.ReturnIndex(0))
	g.RET()
}

// poolSetup loads what both kernels share: the scale (avg), or a zero and
// nacc NaN accumulators (max).
func (g *gen) poolSetup(t dtype, w width, avg bool, nacc int) (scale, zero VecVirtual, nan []VecVirtual) {
	if avg {
		scale = g.vec(w)
		g.vbroadcast(t, g.addr("scale"), scale)
		return
	}
	zero = g.vec(w)
	g.vxor(t, zero, zero, zero)
	for range nacc {
		v := g.vec(w)
		g.vxor(t, v, v, v)
		nan = append(nan, v)
	}
	return
}

// poolRuns emits the loop over the m runs, and in each the loop over its n
// outputs: unroll vectors a trip (block(yr, xr, unroll, nil)), then one,
// then the last n mod lanes under a mask (block(yr, xr, 1, k)). adv is the
// bytes of x one output vector moves.
func (g *gen) poolRuns(t dtype, w width, unroll, adv int, block func(yr, xr Register, of int, k Op)) {
	lanes := w.lanes(t)
	y, x, m := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("y"), y)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("m"), m)
	row, done := g.label("run"), g.label("runsdone")
	g.Label(row)
	g.TESTQ(m, m)
	g.JZ(LabelRef(done))
	yr, xr, cnt := g.GP64(), g.GP64(), g.GP64()
	g.MOVQ(y, yr)
	g.MOVQ(x, xr)
	g.MOVQ(g.addr("n"), cnt)
	big, single, tail, next := g.label("big"), g.label("single"), g.label("tail"), g.label("next")
	g.Label(big)
	g.CMPQ(cnt, U32(unroll*lanes))
	g.JL(LabelRef(single))
	block(yr, xr, unroll, nil)
	g.ADDQ(U32(unroll*w.bytes), yr)
	g.ADDQ(U32(unroll*adv), xr)
	g.SUBQ(U32(unroll*lanes), cnt)
	g.JMP(LabelRef(big))
	g.Label(single)
	if unroll > 1 {
		g.CMPQ(cnt, U32(lanes))
		g.JL(LabelRef(tail))
		block(yr, xr, 1, nil)
		g.ADDQ(U32(w.bytes), yr)
		g.ADDQ(U32(adv), xr)
		g.SUBQ(U32(lanes), cnt)
		g.JMP(LabelRef(single))
	}
	g.Label(tail)
	g.TESTQ(cnt, cnt)
	g.JZ(LabelRef(next))
	block(yr, xr, 1, cnt)
	g.Label(next)
	g.ADDQ(g.addr("ys"), y)
	g.ADDQ(g.addr("xs"), x)
	g.DECQ(m)
	g.JMP(LabelRef(row))
	g.Label(done)
}

// poolTaps: outputs along contiguous input, unroll vectors a trip.
func (g *gen) poolTaps(t dtype, w width, avg bool) {
	name := poolName(avg)
	g.vecFunc(t, w, name, "func(y, x *%s, offs *int, ntaps, n, m, ys, xs int, scale %[1]s) int",
		poolDoc(t, w, name, avg, "x[i·xs + offs[t] + j] over t < ntaps (ntaps ≥ 1).")...)
	unroll := 4
	scale, zero, nan := g.poolSetup(t, w, avg, unroll)
	g.poolRuns(t, w, unroll, w.bytes, func(yr, xr Register, of int, r Op) {
		var k Op
		if r != nil {
			k = g.tailMask(t, w, r.(Register))
		}
		tp, off, tn := g.GP64(), g.GP64(), g.GP64()
		g.MOVQ(g.addr("offs"), tp)
		g.MOVQ(Mem{Base: tp}, off)
		acc, bn := make([]VecVirtual, of), make([]VecVirtual, of)
		for u := range acc {
			acc[u] = g.vec(w)
			g.vloadW(t, w, Mem{Base: xr, Index: off, Scale: uint8(t.size), Disp: u * w.bytes}, k, acc[u])
			if !avg {
				bn[u] = g.vec(w)
				g.vmul(t, acc[u], zero, bn[u])
			}
		}
		g.MOVQ(g.addr("ntaps"), tn)
		taps, fold := g.label("taps"), g.label("fold")
		g.DECQ(tn)
		g.JZ(LabelRef(fold))
		g.Label(taps)
		g.ADDQ(U8(8), tp)
		g.MOVQ(Mem{Base: tp}, off)
		for u := range acc {
			a := g.vec(w)
			g.vloadW(t, w, Mem{Base: xr, Index: off, Scale: uint8(t.size), Disp: u * w.bytes}, k, a)
			g.poolFold(t, avg, a, acc[u], zero, bn[u])
		}
		g.DECQ(tn)
		g.JNZ(LabelRef(taps))
		g.Label(fold)
		for u := range acc {
			if avg {
				g.vmul(t, scale, acc[u], acc[u])
			} else {
				g.vor(t, bn[u], nan[u], nan[u])
			}
			g.vstoreW(t, w, acc[u], Mem{Base: yr, Disp: u * w.bytes}, k)
		}
	})
	g.poolEpilogue(t, w, avg, nan)
}

// poolTaps2: outputs at every second input. Each tap loads the two vectors
// from its offset and keeps their even lanes (tap offsets s of the window
// that are even) or odd lanes (odd s, loaded from s−1): the even taps fold
// into one pair of accumulators, the odd into another, and only the two
// pairs are deinterleaved, once per output vector. nodd may be 0 (a
// window one wide): the odd pair starts as zero (avg) or -Inf (max), and a
// max without odd taps skips it.
func (g *gen) poolTaps2(t dtype, w width, avg bool) {
	name := poolName(avg) + "2"
	g.vecFunc(t, w, name, "func(y, x *%s, even *int, neven int, odd *int, nodd, n, m, ys, xs int, scale %[1]s) int",
		poolDoc(t, w, name, avg, "x[i·xs + even[t] + 2j] over t < neven (neven ≥ 1) and x[i·xs + odd[t] + 2j + 1]",
			"over t < nodd. It reads x[i·xs + off + 2j + 1] for every offset.")...)
	scale, zero, nan := g.poolSetup(t, w, avg, 1)
	var idxE, idxO VecVirtual
	if w == zmm {
		idxE, idxO = g.vec(w), g.vec(w)
		g.VMOVDQU64(g.laneIndex(t, 0), idxE)
		g.VMOVDQU64(g.laneIndex(t, 1), idxO)
	}
	lanes := w.lanes(t)
	g.poolRuns(t, w, 1, 2*w.bytes, func(yr, xr Register, _ int, r Op) {
		var kA, kB, kY Op
		if r != nil {
			// 2r input lanes: min(2r, lanes) in the first vector, the
			// rest in the second.
			rA, rB, l := g.GP64(), g.GP64(), g.GP64()
			g.LEAQ(Mem{Base: r.(Register), Index: r.(Register), Scale: 1}, rB)
			g.MOVQ(U32(lanes), l)
			g.MOVQ(rB, rA)
			g.CMPQ(rA, l)
			g.CMOVQGT(l, rA)
			g.SUBQ(rA, rB)
			kA, kB, kY = g.tailMask(t, w, rA), g.tailMask(t, w, rB), g.tailMask(t, w, r.(Register))
		}
		pair := func(off Register) (a, b VecVirtual) {
			a, b = g.vec(w), g.vec(w)
			g.vloadW(t, w, Mem{Base: xr, Index: off, Scale: uint8(t.size)}, kA, a)
			g.vloadW(t, w, Mem{Base: xr, Index: off, Scale: uint8(t.size), Disp: w.bytes}, kB, b)
			return a, b
		}
		// bn, bn2: this block's NaN chains, two so that the pair's FMAs
		// do not wait on each other; ORed into nan[0] at its end.
		var bn, bn2 VecVirtual
		foldPair := func(a, b, accA, accB VecVirtual) {
			g.poolFold(t, avg, a, accA, zero, bn)
			g.poolFold(t, avg, b, accB, zero, bn2)
		}
		// tapLoop folds the taps of list (count in cnt, ≥ 0) into the pair.
		tapLoop := func(list, cnt string, accA, accB VecVirtual, skipFirst bool) {
			tp, tn, off := g.GP64(), g.GP64(), g.GP64()
			g.MOVQ(g.addr(list), tp)
			g.MOVQ(g.addr(cnt), tn)
			loop, end := g.label("taps"), g.label("tapsdone")
			if skipFirst {
				g.ADDQ(U8(8), tp)
				g.DECQ(tn)
			}
			g.Label(loop)
			g.TESTQ(tn, tn)
			g.JZ(LabelRef(end))
			g.MOVQ(Mem{Base: tp}, off)
			a, b := pair(off)
			foldPair(a, b, accA, accB)
			g.ADDQ(U8(8), tp)
			g.DECQ(tn)
			g.JMP(LabelRef(loop))
			g.Label(end)
		}
		first := g.GP64()
		g.MOVQ(g.addr("even"), first)
		g.MOVQ(Mem{Base: first}, first)
		eA, eB := pair(first)
		if !avg {
			bn, bn2 = g.vec(w), g.vec(w)
			g.vmul(t, eA, zero, bn)
			g.vmul(t, eB, zero, bn2)
		}
		tapLoop("even", "neven", eA, eB, true)
		oA, oB := g.vec(w), g.vec(w)
		if avg {
			g.vxor(t, oA, oA, oA)
			g.vxor(t, oB, oB, oB)
		} else {
			bits := uint64(math.Float32bits(float32(math.Inf(-1))))
			if t.f64 {
				bits = math.Float64bits(math.Inf(-1))
			}
			g.vbroadcast(t, g.sconst(t, "neginf", bits), oA)
			g.vmovu(t, oA, oB)
		}
		tapLoop("odd", "nodd", oA, oB, false)
		res := g.deinterleave(t, w, avg, eA, eB, oA, oB, idxE, idxO)
		if avg {
			g.vmul(t, scale, res, res)
		} else {
			g.vor(t, bn2, bn, bn)
			g.vor(t, bn, nan[0], nan[0])
		}
		g.vstoreW(t, w, res, Mem{Base: yr}, kY)
	})
	g.poolEpilogue(t, w, avg, nan)
}

// deinterleave returns op(even lanes of eA:eB, odd lanes of oA:oB), op max
// or add; max without odd taps the even lanes alone. With ymm, the in-lane shuffles of both pairs come first, then the
// op, then one cross-lane permute (it commutes with the op).
func (g *gen) deinterleave(t dtype, w width, avg bool, eA, eB, oA, oB, idxE, idxO VecVirtual) VecVirtual {
	op := func(t dtype, y, x, dst Op) {
		if avg {
			g.vadd(t, y, x, dst)
			return
		}
		skip := g.label("noodd")
		g.CMPQ(g.addr("nodd"), U8(0))
		g.JE(LabelRef(skip))
		g.vmax(t, y, x, dst)
		g.Label(skip)
	}
	if w == zmm {
		if t.f64 {
			g.VPERMT2PD(eB, idxE, eA)
			g.VPERMT2PD(oB, idxO, oA)
		} else {
			g.VPERMT2PS(eB, idxE, eA)
			g.VPERMT2PS(oB, idxO, oA)
		}
		op(t, oA, eA, eA)
		return eA
	}
	// Per 128-bit lane: f32 [a0 a2 b0 b2 | a4 a6 b4 b6], f64 [a0 b0 | a2 b2];
	// VPERMPD $0xD8 then orders the 64-bit quarters 0, 2, 1, 3.
	e, o := g.YMM(), g.YMM()
	if t.f64 {
		g.VUNPCKLPD(eB, eA, e)
		g.VUNPCKHPD(oB, oA, o)
	} else {
		g.VSHUFPS(U8(0x88), eB, eA, e)
		g.VSHUFPS(U8(0xDD), oB, oA, o)
	}
	op(t, o, e, e)
	g.VPERMPD(U8(0xD8), e, e)
	return e
}

// laneIndex is the 64-byte VPERMT2PS/PD index of lanes first, first+2, …
// of a pair of zmm registers of t.
func (g *gen) laneIndex(t dtype, first int) Mem {
	key := fmt.Sprintf("%spoolidx%d", t.char, first)
	if m, ok := g.consts[key]; ok {
		return m
	}
	m := g.StaticGlobal(key)
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := range zmm.lanes(t) {
		if t.f64 {
			g.AddDatum(8*i, U64(uint64(first+2*i)))
		} else {
			g.AddDatum(4*i, U32(uint32(first+2*i)))
		}
	}
	if g.consts == nil {
		g.consts = map[string]Mem{}
	}
	g.consts[key] = m
	return m
}

// poolPlanes: one output per run of l contiguous inputs (a plane): the
// run folds into up to four vector accumulators, the last l mod lanes
// under a mask (max: the masked lanes -Inf), and they fold into one lane.
// Every plane starts fresh chains (accumulators and NaN), so that planes
// overlap in the core.
func (g *gen) poolPlanes(t dtype, w width, avg bool) {
	name := poolName(avg)[:3] + "planes"
	doc := poolDoc(t, w, name, avg, "x[i·l + j] over j < l (l ≥ 1).")
	doc[0] = fmt.Sprintf("%s%s%s sets y[i] for i < n to the %s of", t.char, name, w.name, map[bool]string{false: "max", true: "sum × scale"}[avg])
	g.vecFunc(t, w, name, "func(y, x *%s, l, n int, scale %[1]s) int", doc...)
	const unroll = 4
	lanes := w.lanes(t)
	scale, zero, nan := g.poolSetup(t, w, avg, 1)
	var ninf VecVirtual
	if !avg {
		ninf = g.vec(w)
		bits := uint64(math.Float32bits(float32(math.Inf(-1))))
		if t.f64 {
			bits = math.Float64bits(math.Inf(-1))
		}
		g.vbroadcast(t, g.sconst(t, "neginf", bits), ninf)
	}
	y, x, n, l := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("y"), y)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("n"), n)
	g.Load(g.Param("l"), l)
	// The tail mask of l mod lanes, the same for every plane.
	r := g.GP64()
	g.MOVQ(l, r)
	g.ANDQ(U32(lanes-1), r)
	var k Op
	noTail := g.label("notail")
	if w == zmm {
		k = g.K()
		g.KXORW(k, k, k)
	} else {
		k = g.YMM()
		g.VPXOR(k, k, k)
	}
	g.TESTQ(r, r)
	g.JZ(LabelRef(noTail))
	if w == zmm {
		tbl := g.GP64()
		g.LEAQ(g.kmaskTable(), tbl)
		g.KMOVW(Mem{Base: tbl, Index: r, Scale: 2}, k)
	} else {
		tbl, off := g.GP64(), g.GP64()
		g.LEAQ(g.maskTable(), tbl)
		g.MOVQ(r, off)
		g.SHLQ(U8(log2(t.size)), off)
		g.NEGQ(off)
		g.VMOVDQU(Mem{Base: tbl, Index: off, Scale: 1, Disp: 32}, k)
	}
	g.Label(noTail)

	op := g.vadd
	if !avg {
		op = g.vmax
	}
	plane, done := g.label("plane"), g.label("planesdone")
	g.Label(plane)
	g.TESTQ(n, n)
	g.JZ(LabelRef(done))
	acc := make([]VecVirtual, unroll)
	for u := range acc {
		acc[u] = g.vec(w)
		if avg {
			g.vxor(t, acc[u], acc[u], acc[u])
		} else {
			g.vmovu(t, ninf, acc[u])
		}
	}
	var bn VecVirtual
	if !avg {
		bn = g.vec(w)
		g.vxor(t, bn, bn, bn)
	}
	p, cnt := g.GP64(), g.GP64()
	g.MOVQ(x, p)
	g.MOVQ(l, cnt)
	big, single, tail, fold := g.label("big"), g.label("single"), g.label("tail"), g.label("fold")
	g.Label(big)
	g.CMPQ(cnt, U32(unroll*lanes))
	g.JL(LabelRef(single))
	for u := range acc {
		a := g.vec(w)
		g.vmovu(t, Mem{Base: p, Disp: u * w.bytes}, a)
		g.poolFold(t, avg, a, acc[u], zero, bn)
	}
	g.ADDQ(U32(unroll*w.bytes), p)
	g.SUBQ(U32(unroll*lanes), cnt)
	g.JMP(LabelRef(big))
	g.Label(single)
	g.CMPQ(cnt, U32(lanes))
	g.JL(LabelRef(tail))
	a := g.vec(w)
	g.vmovu(t, Mem{Base: p}, a)
	g.poolFold(t, avg, a, acc[0], zero, bn)
	g.ADDQ(U32(w.bytes), p)
	g.SUBQ(U32(lanes), cnt)
	g.JMP(LabelRef(single))
	g.Label(tail)
	g.TESTQ(cnt, cnt)
	g.JZ(LabelRef(fold))
	b := g.vec(w)
	g.vloadW(t, w, Mem{Base: p}, k, b)
	if avg {
		g.vadd(t, b, acc[1], acc[1])
	} else {
		// NaN is tracked on the zeroed lanes; the max sees -Inf there.
		g.vfmadd231(t, b, zero, bn)
		c := g.vec(w)
		g.vmovu(t, ninf, c)
		switch {
		case w == zmm && t.f64:
			g.VMOVUPD(b, k, c)
		case w == zmm:
			g.VMOVUPS(b, k, c)
		case t.f64:
			g.VBLENDVPD(k, b, ninf, c)
		default:
			g.VBLENDVPS(k, b, ninf, c)
		}
		g.vmax(t, c, acc[1], acc[1])
	}
	g.Label(fold)
	op(t, acc[1], acc[0], acc[0])
	op(t, acc[3], acc[2], acc[2])
	op(t, acc[2], acc[0], acc[0])
	h := g.hfold(t, acc[0], op)
	if avg {
		g.vmul(t, scale.AsX(), h, h)
	} else {
		g.vor(t, bn, nan[0], nan[0])
	}
	g.movs(t, h, Mem{Base: y})
	g.ADDQ(U8(t.size), y)
	g.MOVQ(l, p)
	g.SHLQ(U8(log2(t.size)), p)
	g.ADDQ(p, x)
	g.DECQ(n)
	g.JMP(LabelRef(plane))
	g.Label(done)
	g.poolEpilogue(t, w, avg, nan)
}
