package main

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Reductions: Sum and Dot with eight vector accumulators, folded into
// float64 totals every 2048 elements (4096 with zmm): 32 terms per lane for
// float32, as in the generic kernels' blocks, 64 for float64, so a float32
// sum of millions of elements keeps float64-like accuracy at float32 speed. Max tracks NaN on the side, as VMAXPS drops it.

func genReduce(g *gen) {
	for _, t := range []dtype{f32, f64} {
		g.sum(t, false, ymm)
		g.sum(t, true, ymm)
		g.max(t)
		g.maxAVX512(t)
		g.sum(t, false, zmm)
		g.sum(t, true, zmm)
		g.sumPrefetch(t, true, zmm, dotPrefetch)
	}
}

// dotPrefetch is how far ahead of its loads the prefetching AVX-512 dot
// (<t>dotpfAVX512) asks for x and y, in bytes. On the Zen 5 VM (f32, 1
// thread, 31 interleaved rounds) 512 B to 2 KiB ahead ran a dot over 2 MiB
// and 8 MiB of x and y (from L3) in 0.89–0.92× the time of the plain
// kernel, 256 B ahead as long as it; from L2 (512 KiB) every distance took
// 1–6% longer, 2 KiB the most; f64 over 16 MiB 5% longer. gobackend/reduce
// uses it past the L2, up to a quarter of L3 (dotPrefetches).
const dotPrefetch = 1024

// sum emits Σ x[i] (dot: Σ x[i]·y[i]) with vectors of width w.
func (g *gen) sum(t dtype, dot bool, w width) { g.sumPrefetch(t, dot, w, 0) }

const sumBlock = 2048 // elements summed in T (ymm) before a fold into float64

// sumPrefetch emits Σ x[i] (dot: Σ x[i]·y[i]) with vectors of width w;
// with pf > 0 (<t>dotpf…, <t>sumpf…) its block loop prefetches (PREFETCHT0)
// each cache line it loads pf bytes ahead, with the same arithmetic.
func (g *gen) sumPrefetch(t dtype, dot bool, w width, pf int) {
	name, sig := "sum", "func(n int, x *%s) float64"
	what := "Σ x[i]"
	if dot {
		name, sig, what = "dot", "func(n int, x, y *%[1]s) float64", "Σ x[i]·y[i]"
	}
	if pf > 0 {
		name += "pf"
	}
	// Accumulators: eight for both. A sum is bound by its adds (two per
	// cycle, 3 cycles of latency: six chains at least); a dot product by
	// its two loads per FMA, but with four chains of 4-cycle FMAs its
	// latency floor equals the load floor, and a short vector (the 4 KiB
	// working sets of the benchmarks) loses a fifth to that (ymm; with zmm,
	// four and eight ran alike).
	const nacc = 8
	// Blocks of the same number of terms per lane at either width: with
	// zmm, half as many folds (a 16 KiB sum or dot 0–4% faster than with
	// 2048).
	block := sumBlock * w.bytes / 32
	doc := []string{fmt.Sprintf("%s%s%s returns %s for i < n, in %d vector accumulators", t.char, name, w.name, what, nacc),
		fmt.Sprintf("folded (pairwise) into float64 totals every %d elements; the last", block),
		"partial block is reduced in its own type, then converted."}
	if pf > 0 {
		doc = append(doc, fmt.Sprintf("Its block loop prefetches every cache line it loads %d bytes ahead.", pf))
	}
	if w == zmm {
		doc = append(doc, "It needs AVX-512F.")
	}
	g.vecFunc(t, w, name, sig, doc...)
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
		acc[i] = g.vec(w)
		g.vxor(t, acc[i], acc[i], acc[i])
	}
	// Whole vectors are added from memory: one instruction instead of a
	// load and an add ran a 16 KiB sum 5–8% faster on Zen 4.
	// prefetch asks for the lines of vector u pf bytes ahead: one per
	// cache line (64 bytes), in the block loop only.
	prefetch := func(u int) {
		if pf == 0 || (u*w.bytes)%64 != 0 {
			return
		}
		for _, p := range ptrs {
			g.PREFETCHT0(Mem{Base: p, Disp: u*w.bytes + pf})
		}
	}
	body := func(u, _ int, k Op) {
		m := Mem{Base: x, Disp: u * w.bytes}
		a := acc[u%nacc]
		if !dot && k == nil {
			g.vadd(t, m, a, a)
			return
		}
		v := g.vec(w)
		g.vloadW(t, w, m, k, v)
		switch {
		case dot && k == nil:
			g.vfmadd231(t, Mem{Base: y, Disp: u * w.bytes}, v, a)
		case dot:
			b := g.vec(w)
			g.vloadW(t, w, Mem{Base: y, Disp: u * w.bytes}, k, b)
			g.vfmadd231(t, b, v, a)
		default:
			g.vadd(t, v, a, a)
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
	// Blocks of block elements in T, folded into float64 totals: the error
	// bound is that of block/(lanes·nacc)-term sums, plus one float64
	// addition per block.
	var tot [2]VecVirtual
	tot[0], tot[1] = g.vec(w), g.vec(w)
	g.VXORPD(tot[0], tot[0], tot[0])
	g.VXORPD(tot[1], tot[1], tot[1])
	toF64 := func() {
		fold()
		if t.f64 {
			g.VADDPD(acc[0], tot[0], tot[0])
		} else {
			lo, hi := g.vec(w), g.vec(w)
			g.VCVTPS2PD(lowHalf(acc[0]), lo)
			g.extractHigh(acc[0], lowHalf(hi))
			g.VCVTPS2PD(lowHalf(hi), hi)
			g.VADDPD(lo, tot[0], tot[0])
			g.VADDPD(hi, tot[1], tot[1])
		}
		for i := range acc {
			g.vxor(t, acc[i], acc[i], acc[i])
		}
	}
	lanes := w.lanes(t)
	blocks, inner, rest := g.label("blocks"), g.label("inner"), g.label("rest")
	// A vector shorter than a block never touches the float64 totals: it
	// returns its own sum, sparing their fold (about 15 cycles of latency,
	// a sixth of a 4 KiB dot product).
	short := g.GP64()
	g.MOVQ(n, short)
	cnt := g.GP64()
	g.Label(blocks)
	g.CMPQ(n, U32(block))
	g.JL(LabelRef(rest))
	const unroll = 8
	g.MOVQ(U32(block/(unroll*lanes)), cnt)
	g.Label(inner)
	for u := 0; u < unroll; u++ {
		prefetch(u)
		body(u, unroll, nil)
	}
	for _, p := range ptrs {
		g.ADDQ(U32(unroll*w.bytes), p)
	}
	g.DECQ(cnt)
	g.JNZ(LabelRef(inner))
	toF64()
	g.SUBQ(U32(block), n)
	g.JMP(LabelRef(blocks))
	g.Label(rest)
	g.loopW(t, w, unroll, n, ptrs, body)
	// The last partial block: its accumulators reduced in T, converted
	// once, added to the horizontal sum of the float64 totals. (The two
	// chains run side by side; on a short vector only the first counts.)
	fold()
	r := g.hfold(t, acc[0], g.vadd)
	if !t.f64 {
		g.VCVTSS2SD(r, r, r)
	}
	full := g.label("full")
	g.CMPQ(short, U32(block))
	g.JGE(LabelRef(full))
	g.VZEROUPPER()
	g.Store(r, g.ReturnIndex(0))
	g.RET()
	g.Label(full)
	g.VADDPD(tot[1], tot[0], tot[0])
	h := g.hfold(f64, tot[0], g.vadd)
	g.VADDSD(r, h, h)
	g.VZEROUPPER()
	g.Store(h, g.ReturnIndex(0))
	g.RET()
}

// hfold folds the lanes of v (a ymm or zmm register of t) pairwise with op
// (vadd, vmax) into lane 0 of the X register it returns.
func (g *gen) hfold(t dtype, v VecVirtual, op func(t dtype, y, x, dst Op)) VecVirtual {
	if v.Size() == 64 {
		h := g.YMM()
		g.extractHigh(v, h)
		op(t, h, v.AsY(), h)
		v = h
	}
	r := g.XMM()
	g.extractHigh(v, r)
	op(t, r, v.AsX(), r)
	p := g.XMM()
	if t.f64 {
		g.VPERMILPD(U8(1), r, p)
		op(t, p, r, r)
	} else {
		g.VPERMILPS(U8(0x4e), r, p)
		op(t, p, r, r)
		g.VPERMILPS(U8(0xb1), r, p)
		op(t, p, r, r)
	}
	return r
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
	h := g.hfold(t, acc[0], g.vmax) // of the ordered lanes: VMAXPS drops NaN, tracked aside
	done := g.label("done")
	g.VPTEST(nan[0], nan[0])
	g.JZ(LabelRef(done))
	g.vmovu(t, g.vconst(t, "nan", nanBits(t)), h)
	g.Label(done)
	g.VZEROUPPER()
	g.Store(h, g.ReturnIndex(0))
	g.RET()
}

// maxAVX512 is max with 512-bit vectors: eight accumulators (VMAXPS has a
// latency of two cycles or more and issues two per cycle: four ymm chains
// left Zen 4 at two thirds of its load rate). NaN, which VMAXPS drops, is
// watched for on the other FP pipes: the main loop adds x·0 into four
// accumulators by FMA, which become NaN if any x is NaN or infinite; only
// then is that part of x rescanned with unordered compares, one per pair of
// vectors, into a mask register (the other loops compare directly). On Zen 4
// at L1 the compares in the main loop (VCMPPS + KORW per pair) ran at 82% of
// the speed of the maxima alone, the FMAs at 97% (bare loops alternated); the
// ymm kernel's compare-and-OR in vector registers cost 30%. The tail loads
// under a mask over -Inf.
func (g *gen) maxAVX512(t dtype) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.Function(fmt.Sprintf("%smaxAVX512", t.char))
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf("func(n int, x *%[1]s) %[1]s", elem))
	g.Doc(fmt.Sprintf("%smaxAVX512 returns max x[i] for i < n: NaN if any x[i] is NaN, -Inf if n == 0.", t.char),
		"Of +0 and -0 it may return either. It needs AVX-512F.")
	n, x := g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	const nacc = 8
	lanes := 64 / t.size
	ninf := g.ZMM()
	if t.f64 {
		g.VBROADCASTSD(g.fconst(t, "neginf", math.Inf(-1)), ninf)
	} else {
		g.VBROADCASTSS(g.fconst(t, "neginf", math.Inf(-1)), ninf)
	}
	acc := make([]VecVirtual, nacc)
	for i := range acc {
		acc[i] = g.ZMM()
		g.vmovu(t, ninf, acc[i])
	}
	nan := g.K()
	g.KXORW(nan, nan, nan)
	// The main loop's NaN-or-infinity watch, and where the loop starts.
	const nseen = 4
	zero, seen := g.ZMM(), make([]VecVirtual, nseen)
	g.vxor(t, zero, zero, zero)
	for i := range seen {
		seen[i] = g.ZMM()
		g.vxor(t, seen[i], seen[i], seen[i])
	}
	x0, n0 := g.GP64(), g.GP64()
	g.MOVQ(x, x0)
	g.MOVQ(n, n0)
	zmax := func(src, dst Op) {
		if t.f64 {
			g.VMAXPD(src, dst, dst)
		} else {
			g.VMAXPS(src, dst, dst)
		}
	}
	unord := func(a, b Op) {
		k := g.K()
		g.vcmp(t, cmpUNORD, a, b, k)
		g.KORW(k, nan, nan)
	}
	big, single, tail, done := g.label("big"), g.label("single"), g.label("tail"), g.label("done")
	g.Label(big)
	g.CMPQ(n, U32(nacc*lanes))
	g.JL(LabelRef(single))
	v := make([]VecVirtual, nacc)
	for u := range v {
		v[u] = g.ZMM()
		g.vmovu(t, Mem{Base: x, Disp: u * 64}, v[u])
	}
	// The maxima, then the FMAs: interleaved, the loop ran 20% slower at L1
	// on Zen 4.
	for u := range v {
		zmax(v[u], acc[u])
	}
	for u := range v {
		g.vfmadd231(t, zero, v[u], seen[u%nseen])
	}
	g.ADDQ(U32(nacc*64), x)
	g.SUBQ(U32(nacc*lanes), n)
	g.JMP(LabelRef(big))

	g.Label(single)
	g.CMPQ(n, U32(lanes))
	g.JL(LabelRef(tail))
	a := g.ZMM()
	g.vmovu(t, Mem{Base: x}, a)
	unord(a, a)
	zmax(a, acc[0])
	g.ADDQ(U32(64), x)
	g.SUBQ(U32(lanes), n)
	g.JMP(LabelRef(single))

	g.Label(tail)
	g.TESTQ(n, n)
	g.JZ(LabelRef(done))
	// Lanes past the end keep -Inf: a masked load merging into a copy of it.
	km, tbl := g.K(), g.GP64()
	g.LEAQ(g.kmaskTable(), tbl)
	g.KMOVW(Mem{Base: tbl, Index: n, Scale: 2}, km)
	b := g.ZMM()
	g.vmovu(t, ninf, b)
	if t.f64 {
		g.VMOVUPD(Mem{Base: x}, km, b)
	} else {
		g.VMOVUPS(Mem{Base: x}, km, b)
	}
	unord(b, b)
	zmax(b, acc[1])
	g.Label(done)

	// Fold the accumulators, then 512 → 256 → 128 bits → one lane.
	for step := 1; step < nacc; step *= 2 {
		for i := 0; i+step < nacc; i += 2 * step {
			zmax(acc[i+step], acc[i])
		}
	}
	h := g.hfold(t, acc[0], g.vmax)

	// A NaN or an infinity went through the main loop: compare its part of x.
	for step := 1; step < nseen; step *= 2 {
		for i := 0; i+step < nseen; i += 2 * step {
			g.vadd(t, seen[i+step], seen[i], seen[i])
		}
	}
	flagged, rescan, check := g.K(), g.label("rescan"), g.label("check")
	g.vcmp(t, cmpUNORD, seen[0], seen[0], flagged)
	g.KORTESTW(flagged, flagged)
	g.JZ(LabelRef(check))
	g.ANDQ(I32(-nacc*lanes), n0) // the elements the main loop took
	g.Label(rescan)
	g.TESTQ(n0, n0)
	g.JZ(LabelRef(check))
	for u := 0; u < nacc; u += 2 {
		a, b := g.ZMM(), g.ZMM()
		g.vmovu(t, Mem{Base: x0, Disp: u * 64}, a)
		g.vmovu(t, Mem{Base: x0, Disp: (u + 1) * 64}, b)
		unord(a, b)
	}
	g.ADDQ(U32(nacc*64), x0)
	g.SUBQ(U32(nacc*lanes), n0)
	g.JMP(LabelRef(rescan))

	g.Label(check)
	clean := g.label("clean")
	g.KORTESTW(nan, nan)
	g.JZ(LabelRef(clean))
	g.vmovu(t, g.vconst(t, "nan", nanBits(t)), h)
	g.Label(clean)
	g.VZEROUPPER()
	g.Store(h, g.ReturnIndex(0))
	g.RET()
}

// kmaskTable is 17 uint16 masks, entry r holding the low r bits set: the
// mask register of an AVX-512 tail of r lanes.
func (g *gen) kmaskTable() Mem {
	if m, ok := g.consts["kmask"]; ok {
		return m
	}
	m := g.StaticGlobal("kmask")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for r := 0; r <= 16; r++ {
		g.AddDatum(2*r, U16(uint16(1<<r-1)))
	}
	if g.consts == nil {
		g.consts = map[string]Mem{}
	}
	g.consts["kmask"] = m
	return m
}

func nanBits(t dtype) uint64 {
	if t.f64 {
		return 0x7ff8000000000000
	}
	return 0x7fc00000
}
