package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// FMA throughput loops of gobackend/isa, whose probe (isa.FullRateZMM)
// times them to learn whether the core runs a 512-bit FMA as fast as a
// 256-bit one (two full-width units, as Zen 5 and Intel's server cores)
// or as two halves (Zen 4, Zen 5's mobile parts):
//
//	fmaLoopAVX2, fmaLoopAVX512  n rounds of fmaChains independent FMAs
//
// Twelve chains cover two pipes of four-cycle latency with room to spare,
// so the loop runs at the FMA units' throughput, not their latency.

const fmaChains = 12

func genISA(g *gen) {
	for _, w := range []width{ymm, zmm} {
		g.fmaLoop(w)
	}
}

func (g *gen) fmaLoop(w width) {
	name := "fmaLoop" + w.name
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(n int)")
	g.Doc(fmt.Sprintf("%s runs n rounds (n ≥ 1) of %d independent %d-bit f32 FMAs.", name, fmaChains, 8*w.bytes))
	n := g.Load(g.Param("n"), g.GP64())
	acc := make([]VecVirtual, fmaChains)
	for i := range acc {
		acc[i] = g.vec(w)
		g.VXORPS(acc[i], acc[i], acc[i])
	}
	a, b := g.vec(w), g.vec(w)
	g.VXORPS(a, a, a)
	g.VXORPS(b, b, b)
	loop := g.label("fmaloop")
	g.Label(loop)
	for _, r := range acc {
		g.VFMADD231PS(a, b, r)
	}
	g.DECQ(n)
	g.JNE(LabelRef(loop))
	g.VZEROUPPER()
	g.RET()
}
