package main

import (
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Vectorized exp, tanh and sigmoid. Their maximum errors, measured by the
// sweeps of gobackend/elem's tests against a correctly rounded reference
// (every 97th float32 bit pattern; float64s spread over every binade) and
// enforced there (elem.MaxULP):
//
// exp: Cody–Waite range reduction, x = n·ln2 + r with |r| ≤ ln2/2, n =
// round(x·log2(e)) taken from the low bits of x·log2(e) + 1.5·2^p (p = 23 or
// 52) without a conversion; r = x − n·ln2hi − n·ln2lo with FMAs (ln2hi has
// trailing zero bits, so n·ln2hi is exact); exp(r) by a polynomial: for
// float32 Cephes' expf minimax (1 + r + r²·P5(r)), for float64 the Taylor
// series to r^13 (the first term dropped is below 2^-60 relative). The
// result is exp(r)·2^⌊n/2⌋·2^⌈n/2⌉: two factors, so that both are normal
// numbers over the whole range, and the last product rounds into subnormals
// correctly and overflows to +Inf. The input is first clamped to
// [−104, 89] (float32) or [−746, 710] (float64), beyond which exp is 0 or
// +Inf, keeping NaN (the clamps take x as the operand MIN/MAX return for
// NaN).
//
// tanh: for |x| < 0.625, |x| + |x|·z·P(z)/Q(z) with z = x² (Cephes' tanhf
// polynomial, Q = 1, for float32; Cephes' tanh rational for float64); above,
// 1 − 2/(exp(2|x|) + 1), which is exactly 1 once exp(2|x|) is large and for
// +Inf. Both are of the form A + B/C, so the lanes are blended before one
// division. The sign of x is put back last (tanh is odd; -0 stays -0).
//
// sigmoid: e = exp(−|x|), then 1/(1 + e) for x ≥ +0 and e/(1 + e) for
// x ≤ −0 (the numerator picked by the sign bit, one division): exp never
// overflows, large |x| gives 1 or a tiny value (subnormal, then 0) that
// keeps its relative accuracy, and e's own error partly cancels in
// e/(1 + e).

// Bits of the float constants, by name.
type expConsts struct {
	lo, hi          float64 // clamp
	magic           float64 // 1.5·2^p
	ln2hi, ln2lo    float64
	poly            []float64 // highest degree first
	bias            uint64    // magic's bits − 2·(exponent bias) for the split scale
	mantBits        int       // 23 or 52
	lowDegreeCephes bool      // poly is P of 1 + r + r²·P(r)
}

var (
	expF32 = expConsts{
		lo: -104, hi: 89,
		magic: 0x1.8p23,
		ln2hi: 0.693359375, ln2lo: -2.12194440e-4,
		poly: []float64{1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
			4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1},
		bias:     uint64(math.Float32bits(0x1.8p23)) - 2*127,
		mantBits: 23,
	}
	expF64 = expConsts{
		lo: -746, hi: 710,
		magic: 0x1.8p52,
		ln2hi: 6.93147180369123816490e-01, ln2lo: 1.90821492927058770002e-10,
		poly:     taylorExp(13),
		bias:     math.Float64bits(0x1.8p52) - 2*1023,
		mantBits: 52,
	}
)

// taylorExp returns 1/k! for k = deg down to 2: P of 1 + r + r²·P(r).
func taylorExp(deg int) []float64 {
	var p []float64
	for k := deg; k >= 2; k-- {
		f := 1.0
		for i := 2; i <= k; i++ {
			f *= float64(i)
		}
		p = append(p, 1/f)
	}
	return p
}

func (g *gen) constsFor(t dtype) expConsts {
	if t.f64 {
		return expF64
	}
	return expF32
}

// exp returns a register holding exp of x's lanes; x is clobbered.
func (g *gen) exp(t dtype, x VecVirtual) VecVirtual {
	c := g.constsFor(t)
	lim := g.YMM()
	g.vmovu(t, g.fconst(t, "explo", c.lo), lim)
	g.vmax(t, x, lim, x) // lo > x ? lo : x, and x when NaN
	g.vmovu(t, g.fconst(t, "exphi", c.hi), lim)
	g.vmin(t, x, lim, x) // hi < x ? hi : x, and x when NaN

	// tt = x·log2e + magic: n in its low bits.
	tt := g.YMM()
	g.vmovu(t, g.fconst(t, "log2e", math.Log2E), tt)
	g.vfmadd213(t, g.fconst(t, "magic", c.magic), x, tt)
	nf := g.YMM()
	g.vsub(t, g.fconst(t, "magic", c.magic), tt, nf)
	g.vfnmadd231(t, g.fconst(t, "ln2hi", c.ln2hi), nf, x) // x −= n·ln2hi
	g.vfnmadd231(t, g.fconst(t, "ln2lo", c.ln2lo), nf, x) // r = x − n·ln2lo

	// p = 1 + r + r²·P(r)
	p := g.YMM()
	g.vmovu(t, g.fconst(t, "expp0", c.poly[0]), p)
	for i, k := range c.poly[1:] {
		g.vfmadd213(t, g.fconst(t, "expp"+itoa(i+1), k), x, p)
	}
	r2 := g.YMM()
	g.vmul(t, x, x, r2)
	g.vfmadd213(t, x, r2, p) // p·r² + r
	g.vadd(t, g.fconst(t, "one", 1), p, p)

	// Scale by 2^n as two factors: m = n + 2·bias, m1 = m>>1 = ⌊n/2⌋+bias,
	// m2 = m − m1 = ⌈n/2⌉+bias; each shifted into an exponent field.
	m1, m2 := g.YMM(), g.YMM()
	if t.f64 {
		g.VPSUBQ(g.vconst(t, "expbias", c.bias), tt, m2)
		g.VPSRLQ(U8(1), m2, m1)
		g.VPSUBQ(m1, m2, m2)
		g.VPSLLQ(U8(c.mantBits), m1, m1)
		g.VPSLLQ(U8(c.mantBits), m2, m2)
	} else {
		g.VPSUBD(g.vconst(t, "expbias", c.bias), tt, m2)
		g.VPSRLD(U8(1), m2, m1)
		g.VPSUBD(m1, m2, m2)
		g.VPSLLD(U8(c.mantBits), m1, m1)
		g.VPSLLD(U8(c.mantBits), m2, m2)
	}
	g.vmul(t, m1, p, p)
	g.vmul(t, m2, p, p)
	return p
}

func (g *gen) absMask(t dtype) Mem {
	if t.f64 {
		return g.vconst(t, "absmask", 1<<63-1)
	}
	return g.vconst(t, "absmask", 1<<31-1)
}

func (g *gen) signMask(t dtype) Mem {
	if t.f64 {
		return g.vconst(t, "signmask", 1<<63)
	}
	return g.vconst(t, "signmask", 1<<31)
}

func (g *gen) blendv(t dtype, mask, y, x, dst Op) {
	// dst = mask ? y : x (by the sign bit of each lane of mask)
	if t.f64 {
		g.VBLENDVPD(mask, y, x, dst)
	} else {
		g.VBLENDVPS(mask, y, x, dst)
	}
}

// Cephes' tanhf polynomial (float32) and tanh rational (float64) for
// |x| < 0.625.
var (
	tanhF32P = []float64{-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2,
		1.33314422036e-1, -3.33332819422e-1}
	tanhF64P = []float64{-9.64399179425052238628e-1, -9.92877231001918586564e1,
		-1.61468768441708447952e3}
	tanhF64Q = []float64{1, 1.12811678491632931402e2, 2.23548839060100448583e3,
		4.84406305325125486048e3}
)

// tanh returns a register holding tanh of x's lanes; x is preserved.
func (g *gen) tanh(t dtype, x VecVirtual) VecVirtual {
	ax := g.YMM()
	g.vand(t, g.absMask(t), x, ax)

	// Small |x|: B = ax·z·P(z), C = Q(z) (1 for float32).
	z := g.YMM()
	g.vmul(t, ax, ax, z)
	bs, cs := g.YMM(), g.YMM()
	poly := tanhF32P
	if t.f64 {
		poly = tanhF64P
	}
	g.vmovu(t, g.fconst(t, "tanhp0", poly[0]), bs)
	for i, k := range poly[1:] {
		g.vfmadd213(t, g.fconst(t, "tanhp"+itoa(i+1), k), z, bs)
	}
	g.vmul(t, z, bs, bs)
	g.vmul(t, ax, bs, bs)
	if t.f64 {
		g.vmovu(t, g.fconst(t, "tanhq0", tanhF64Q[0]), cs)
		for i, k := range tanhF64Q[1:] {
			g.vfmadd213(t, g.fconst(t, "tanhq"+itoa(i+1), k), z, cs)
		}
	} else {
		g.vmovu(t, g.fconst(t, "one", 1), cs)
	}

	// Large |x|: A = 1, B = −2, C = exp(2|x|) + 1.
	e2 := g.YMM()
	g.vadd(t, ax, ax, e2)
	e := g.exp(t, e2)
	one := g.YMM()
	g.vmovu(t, g.fconst(t, "one", 1), one)
	g.vadd(t, one, e, e)

	small := g.YMM()
	g.vcmp(t, cmpLT, g.fconst(t, "tanhsmall", 0.625), ax, small)
	a, b := g.YMM(), g.YMM()
	g.blendv(t, small, ax, one, a)
	g.vmovu(t, g.fconst(t, "minus2", -2), b)
	g.blendv(t, small, bs, b, b)
	g.blendv(t, small, cs, e, e)
	g.vdiv(t, e, b, b)
	g.vadd(t, b, a, a)
	// Put the sign back.
	sign := g.YMM()
	g.vand(t, g.signMask(t), x, sign)
	g.vor(t, sign, a, a)
	return a
}

// sigmoid returns a register holding 1/(1+exp(−x)) of x's lanes; x is
// preserved.
func (g *gen) sigmoid(t dtype, x VecVirtual) VecVirtual {
	nx := g.YMM()
	g.vor(t, g.signMask(t), x, nx) // −|x|
	e := g.exp(t, nx)
	one := g.YMM()
	g.vmovu(t, g.fconst(t, "one", 1), one)
	d := g.YMM()
	g.vadd(t, one, e, d)
	g.blendv(t, x, e, one, one) // numerator: e where x's sign bit is set, else 1
	g.vdiv(t, d, one, one)
	return one
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
