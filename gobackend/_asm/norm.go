package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Normalization kernels of gobackend/conv. layernorm's statistics are
// reduce's sum and dot kernels; its second pass, one row at a time, is
// this one:
//
//	normrow  y[i] = (x[i] − mu)·rstd·gamma[i] + beta[i]  for i < n
//
// (x − mu)·rstd first, then one FMA with γ and β: the same roundings at
// every position, tails under a mask.

func genNorm(g *gen) {
	for _, w := range []width{ymm, zmm} {
		for _, t := range []dtype{f32, f64} {
			g.normRow(t, w)
		}
	}
}

func (g *gen) normRow(t dtype, w width) {
	g.vecFunc(t, w, "normrow", "func(n int, x, gamma, beta, y *%s, mu, rstd %[1]s)",
		append([]string{fmt.Sprintf("%snormrow%s sets y[i] = (x[i] − mu)·rstd·gamma[i] + beta[i] for i < n", t.char, w.name),
			"((x − mu)·rstd rounded, then one FMA)."}, needs(w)...)...)
	n, x, gm, bt, y := g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("gamma"), gm)
	g.Load(g.Param("beta"), bt)
	g.Load(g.Param("y"), y)
	mu, rstd := g.vec(w), g.vec(w)
	g.vbroadcast(t, g.addr("mu"), mu)
	g.vbroadcast(t, g.addr("rstd"), rstd)
	g.loopW(t, w, 4, n, []Register{x, gm, bt, y}, func(u, _ int, k Op) {
		at := func(p Register) Mem { return Mem{Base: p, Disp: u * w.bytes} }
		a, b, c := g.vec(w), g.vec(w), g.vec(w)
		g.vloadW(t, w, at(x), k, a)
		g.vsub(t, mu, a, a)
		g.vmul(t, rstd, a, a)
		g.vloadW(t, w, at(gm), k, b)
		g.vloadW(t, w, at(bt), k, c)
		g.vfmadd213(t, c, b, a)
		g.vstoreW(t, w, a, at(y), k)
	})
	g.VZEROUPPER()
	g.RET()
}
