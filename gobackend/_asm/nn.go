package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func genNN(g *gen) {
	for _, t := range []dtype{f32, f64} {
		g.softmax(t)
	}
	for _, t := range []dtype{f32, f64} {
		g.softmaxAVX512(t)
	}
}

// softmax is one row in three passes: the maximum m; y = exp(x − m) with
// their sum s; y ·= 1/s. The row is re-read from cache by the second pass
// and y by the third; exp dominates the time.
func (g *gen) softmax(t dtype) {
	g.elemFunc(t, "softmax", "func(n int, x, y *%s)",
		fmt.Sprintf("%ssoftmaxAVX2 sets y[i] = exp(x[i] − m)/Σ exp(x[j] − m), m = max x[j], for", t.char),
		"i, j < n (y may be x; n ≥ 1). A row holding NaN or +Inf, or only -Inf,",
		"gives NaN throughout.")
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)

	// Pass 1: m = max x (VMAXPS may drop a NaN; then exp(NaN − m) makes
	// the sum, and every output, NaN anyway).
	ninf := g.YMM()
	g.vmovu(t, g.fconst(t, "neginf", math.Inf(-1)), ninf)
	m := [2]VecVirtual{g.YMM(), g.YMM()}
	g.vmovu(t, ninf, m[0])
	g.vmovu(t, ninf, m[1])
	cnt, p := g.GP64(), g.GP64()
	g.MOVQ(n, cnt)
	g.MOVQ(x, p)
	g.loop(t, 4, cnt, []Register{p}, func(u, _ int) {
		a := g.YMM()
		g.vload(t, p, u, a)
		if g.mask != nil {
			g.blendv(t, g.mask, a, ninf, a)
		}
		g.vmax(t, a, m[u%2], m[u%2])
	})
	g.vmax(t, m[1], m[0], m[0])
	g.broadcastLanes(t, m[0], g.vmax)

	// Pass 2: y = exp(x − m), s = Σ y.
	s := [2]VecVirtual{g.YMM(), g.YMM()}
	g.vxor(t, s[0], s[0], s[0])
	g.vxor(t, s[1], s[1], s[1])
	g.MOVQ(n, cnt)
	g.MOVQ(x, p)
	q := g.GP64()
	g.MOVQ(y, q)
	g.loop(t, 2, cnt, []Register{p, q}, func(u, _ int) {
		a := g.YMM()
		g.vload(t, p, u, a)
		g.vsub(t, m[0], a, a)
		e := g.exp(t, []VecVirtual{a})[0]
		g.vstore(t, e, q, u)
		if g.mask != nil {
			g.vand(t, g.mask, e, e) // lanes past the end must not count
		}
		g.vadd(t, e, s[u%2], s[u%2])
	})
	g.vadd(t, s[1], s[0], s[0])
	g.broadcastLanes(t, s[0], g.vadd)
	inv := g.YMM()
	g.vmovu(t, g.fconst(t, "one", 1), inv)
	g.vdiv(t, s[0], inv, inv)

	// Pass 3: y ·= 1/s.
	g.MOVQ(n, cnt)
	g.MOVQ(y, q)
	g.loop(t, 4, cnt, []Register{q}, func(u, _ int) {
		a := g.YMM()
		g.vload(t, q, u, a)
		g.vmul(t, inv, a, a)
		g.vstore(t, a, q, u)
	})
	g.VZEROUPPER()
	g.RET()
}

// softmaxAVX512 is softmax in zmm: the same passes and arithmetic, so the
// same bits, as the AVX2 kernel but for the order in which the lanes' sums
// are added. Where that one blends and masks the tail with vectors, this
// one uses the mask register of loopW: the maximum's tail is loaded over
// -Inf, the sum's is added under the mask. The second pass computes the
// exps of a trip's vectors together (interleaved chains, as the math
// kernels do).
func (g *gen) softmaxAVX512(t dtype) {
	w := zmm
	g.vecFunc(t, w, "softmax", "func(n int, x, y *%s)",
		fmt.Sprintf("%ssoftmaxAVX512 sets y[i] = exp(x[i] − m)/Σ exp(x[j] − m), m = max x[j], for", t.char),
		"i, j < n (y may be x; n ≥ 1). A row holding NaN or +Inf, or only -Inf,",
		"gives NaN throughout. It needs AVX-512F.")
	g.w = w
	defer func() { g.w = width{} }()
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)

	// Pass 1: m = max x, four accumulators.
	const nmax = 4
	ninf := g.ZMM()
	g.vmovu(t, g.fconst(t, "neginf", math.Inf(-1)), ninf)
	var m [nmax]VecVirtual
	for i := range m {
		m[i] = g.ZMM()
		g.vmovu(t, ninf, m[i])
	}
	cnt, p := g.GP64(), g.GP64()
	g.MOVQ(n, cnt)
	g.MOVQ(x, p)
	g.loopW(t, w, nmax, cnt, []Register{p}, func(u, _ int, k Op) {
		src := Mem{Base: p, Disp: u * w.bytes}
		if k == nil {
			g.vmax(t, src, m[u%nmax], m[u%nmax])
			return
		}
		a := g.ZMM()
		g.vmovu(t, ninf, a)
		if t.f64 {
			g.VMOVUPD(src, k, a)
		} else {
			g.VMOVUPS(src, k, a)
		}
		g.vmax(t, a, m[u%nmax], m[u%nmax])
	})
	g.vmax(t, m[1], m[0], m[0])
	g.vmax(t, m[3], m[2], m[2])
	g.vmax(t, m[2], m[0], m[0])
	g.broadcastLanes(t, m[0], g.vmax)

	// Pass 2: y = exp(x − m), s = Σ y.
	const nexp = 4
	var s [2]VecVirtual
	for i := range s {
		s[i] = g.ZMM()
		g.vxor(t, s[i], s[i], s[i])
	}
	g.MOVQ(n, cnt)
	g.MOVQ(x, p)
	q := g.GP64()
	g.MOVQ(y, q)
	var in []VecVirtual
	g.pin(t, g.expPins(t)...) // as the exp kernel does (vec.go: pin)
	g.loopW(t, w, nexp, cnt, []Register{p, q}, func(u, of int, k Op) {
		a := g.ZMM()
		g.vloadW(t, w, Mem{Base: p, Disp: u * w.bytes}, k, a)
		g.vsub(t, m[0], a, a)
		in = append(in, a)
		if u < of-1 {
			return
		}
		es := g.exp(t, in)
		for i, e := range es {
			v := u - len(es) + 1 + i
			g.vstoreW(t, w, e, Mem{Base: q, Disp: v * w.bytes}, k)
			if k == nil {
				g.vadd(t, e, s[v%2], s[v%2])
			} else if t.f64 { // lanes past the end must not count
				g.VADDPD(e, s[0], k, s[0])
			} else {
				g.VADDPS(e, s[0], k, s[0])
			}
		}
		in = nil
	})
	g.unpin()
	g.vadd(t, s[1], s[0], s[0])
	g.broadcastLanes(t, s[0], g.vadd)
	inv := g.ZMM()
	g.vmovu(t, g.fconst(t, "one", 1), inv)
	g.vdiv(t, s[0], inv, inv)

	// Pass 3: y ·= 1/s.
	g.MOVQ(n, cnt)
	g.MOVQ(y, q)
	g.loopW(t, w, 4, cnt, []Register{q}, func(u, _ int, k Op) {
		dst := Mem{Base: q, Disp: u * w.bytes}
		a := g.ZMM()
		if k == nil {
			g.vmul(t, dst, inv, a)
		} else {
			g.vloadW(t, w, dst, k, a)
			g.vmul(t, inv, a, a)
		}
		g.vstoreW(t, w, a, dst, k)
	})
	g.VZEROUPPER()
	g.RET()
}

// broadcastLanes reduces the lanes of v with op (max or add) and leaves the
// result in every lane.
func (g *gen) broadcastLanes(t dtype, v VecVirtual, op func(t dtype, y, x, dst Op)) {
	if v.Size() == 64 {
		w := g.ZMM()
		g.VSHUFF64X2(U8(0x4e), v, v, w) // swap the 256-bit halves
		op(t, w, v, v)
		g.VSHUFF64X2(U8(0xb1), v, v, w) // swap the 128-bit quarters in each half
		op(t, w, v, v)
		if t.f64 {
			g.VPERMILPD(U8(0x55), v, w) // swap within quarters
			op(t, w, v, v)
			return
		}
		g.VPERMILPS(U8(0x4e), v, w)
		op(t, w, v, v)
		g.VPERMILPS(U8(0xb1), v, w)
		op(t, w, v, v)
		return
	}
	w := g.YMM()
	g.VPERM2F128(U8(0x01), v, v, w) // swap the 128-bit halves
	op(t, w, v, v)
	if t.f64 {
		g.VPERMILPD(U8(0x5), v, w) // swap within halves
		op(t, w, v, v)
		return
	}
	g.VPERMILPS(U8(0x4e), v, w)
	op(t, w, v, v)
	g.VPERMILPS(U8(0xb1), v, w)
	op(t, w, v, v)
}
