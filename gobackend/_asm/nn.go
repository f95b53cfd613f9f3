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

// broadcastLanes reduces the lanes of v with op (max or add) and leaves the
// result in every lane.
func (g *gen) broadcastLanes(t dtype, v VecVirtual, op func(t dtype, y, x, dst Op)) {
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
