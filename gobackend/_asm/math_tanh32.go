package main

import (
	"math"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// tanh in float32 by a table of polynomials, with no division: |x| is
// clamped to 9.5 (tanh rounds to 1 from 9.011 on; a NaN stays NaN), its
// interval found from the bits of max(|x|, 1/16) shifted right by 22 (the
// exponent and the top mantissa bit: [0, 1/8), then two intervals per
// binade up to [8, 9.5]), and tanh(|x|) = c0 + c1·t + … + c6·t^6 with
// t = |x| − start (exact) by Horner's rule with FMAs. The 15 values of the
// shifted bits fall in distinct slots of their low 4 bits, so each of
// start, c0 … c6 is one 16-lane table in memory, read by one VPERMPS in
// zmm, or by two (its halves) and a blend by bit 3 in ymm: the same lanes,
// so the same bits. The sign of x is put back last (-0 stays -0). tanhfit
// computes the table and each interval's largest error (1.232 ulp, which
// TestAllFloat32 measures on every float32).
//
// Keeping the tables in zmm registers instead (one load each per loop
// trip rather than a memory operand per lookup) made no difference in Go
// benchmarks here.

// tanhF32Table is tanhfit's output: per interval, its start and c0 … c6.
var tanhF32Table = [][8]float32{
	{0, 0, 1, -3.8981216e-08, -0.3333289, -0.00016385879, 0.1359831, -0.01952003},
	{0.125, 0.124353, 0.9845396, -0.1230715, -0.26774618, -1.3503706, 20.86274, -112.49608},
	{0.1875, 0.1853332, 0.9656429, -0.17730263, -0.40483797, 3.7577834, -52.449085, 283.32346},
	{0.25, 0.24491866, 0.9400167, -0.23040551, -0.25067827, 0.04057961, 0.7905264, -2.0161905},
	{0.375, 0.3583574, 0.8715792, -0.3122599, -0.18129067, 0.21036467, -0.28619796, 0.75575507},
	{0.5, 0.46211717, 0.7864453, -0.36331284, -0.096312776, 0.18181255, -0.09274491, 0.05231926},
	{0.75, 0.63514894, 0.5965887, -0.3790558, 0.044123314, 0.081961825, -0.0021094189, -0.0758112},
	{1, 0.7615942, 0.4199718, -0.31979907, 0.10325885, 0.028567689, -0.04652827, 0.017865092},
	{1.5, 0.90514827, 0.18070485, -0.16352965, 0.08756119, -0.024342222, -0.0024224163, 0.0039204056},
	{2, 0.9640276, 0.07065032, -0.068102404, 0.042081453, -0.017882938, 0.0049773124, -0.00069657795},
	{3, 0.9950548, 0.009863846, -0.009788481, 0.006337931, -0.002839787, 0.000805122, -0.00010408628},
	{4, 0.9993293, 0.0013389615, -0.0013219813, 0.00083122286, -0.00034426866, 8.5440566e-05, -9.488117e-06},
	{6, 0.9999877, 2.4210214e-05, -2.2298707e-05, 1.1066906e-05, -2.251542e-06, -2.5160006e-07, 1.3090532e-07},
	{8, 0.99999976, 1.0770877e-06, -5.3027115e-06, 1.4070149e-05, -1.7824528e-05, 1.0514017e-05, -2.3318394e-06},
}

const (
	tanhF32Floor = 1.0 / 16 // max(|x|, 1/16): below 1/8, the bits of [0, 1/8)'s two slots
	tanhF32Clamp = 9.5
)

// tanhF32Slot is the table slot of interval i: the low 4 bits of the
// shifted bits of its start (of 1/16 and 3/32 for [0, 1/8)).
func tanhF32Slot(start float32) int { return int(math.Float32bits(start)>>22) & 15 }

// tanhF32Tables defines the 8 tables (start, c0 … c6) of 16 float32s,
// 64 bytes each: lane s holds the value of the interval whose slot is s;
// the one slot no |x| reaches repeats the last interval.
func (g *gen) tanhF32Tables() [8]Mem {
	var tabs [8]Mem
	for k := range tabs {
		name := "stanhtab" + itoa(k)
		if m, ok := g.consts[name]; ok {
			tabs[k] = m
			continue
		}
		var lanes [16]float32
		for s := range lanes {
			lanes[s] = tanhF32Table[len(tanhF32Table)-1][k]
		}
		for i, row := range tanhF32Table {
			if i == 0 { // [0, 1/8): the slots of max(|x|, 1/16)
				lanes[tanhF32Slot(tanhF32Floor)] = row[k]
				lanes[tanhF32Slot(3.0/32)] = row[k]
				continue
			}
			lanes[tanhF32Slot(row[0])] = row[k]
		}
		m := g.StaticGlobal(name)
		g.DataAttributes(attr.RODATA | attr.NOPTR)
		for s, v := range lanes {
			g.AddDatum(4*s, U32(math.Float32bits(v)))
		}
		if g.consts == nil {
			g.consts = map[string]Mem{}
		}
		g.consts[name] = m
		tabs[k] = m
	}
	return tabs
}

// tanhF32 returns registers holding tanh of the float32 lanes of xs
// (preserved).
func (g *gen) tanhF32(xs []VecVirtual) []VecVirtual {
	t, n := f32, len(xs)
	each := func(f func(i int)) {
		for i := range n {
			f(i)
		}
	}
	tabs := g.tanhF32Tables()
	floor, clamp := g.newVec(), g.newVec()
	g.vmovu(t, g.fconst(t, "tanhfloor", tanhF32Floor), floor)
	g.vmovu(t, g.fconst(t, "tanhclamp", tanhF32Clamp), clamp)

	ax, slot, bit3 := make([]VecVirtual, n), make([]VecVirtual, n), make([]VecVirtual, n)
	each(func(i int) {
		ax[i] = g.newVec()
		g.vand(t, g.absMask(t), xs[i], ax[i])
	})
	each(func(i int) { g.vmin(t, ax[i], clamp, ax[i]) }) // clamp < ax ? clamp : ax, and ax when NaN
	each(func(i int) {
		slot[i] = g.newVec()
		g.vmax(t, ax[i], floor, slot[i])
	})
	each(func(i int) { g.VPSRLD(U8(22), slot[i], slot[i]) })
	if g.width() == ymm {
		each(func(i int) {
			bit3[i] = g.newVec()
			g.VPSLLD(U8(28), slot[i], bit3[i]) // bit 3 into the sign bit, for VBLENDVPS
		})
	}
	// lookup returns lane slot of table k.
	lookup := func(k, i int) VecVirtual {
		v := g.newVec()
		g.VPERMPS(tabs[k], slot[i], v)
		if g.width() == ymm {
			hi := g.newVec()
			g.VPERMPS(tabs[k].Offset(32), slot[i], hi)
			g.blendv(t, bit3[i], hi, v, v)
		}
		return v
	}
	each(func(i int) { g.vsub(t, lookup(0, i), ax[i], ax[i]) }) // t = |x| − start
	acc := make([]VecVirtual, n)
	each(func(i int) { acc[i] = lookup(7, i) })
	for k := 6; k >= 1; k-- {
		each(func(i int) { g.vfmadd213(t, lookup(k, i), ax[i], acc[i]) }) // acc·t + c
	}
	each(func(i int) {
		sign := g.newVec()
		g.vand(t, g.signMask(t), xs[i], sign)
		g.vor(t, sign, acc[i], acc[i])
	})
	return acc
}
