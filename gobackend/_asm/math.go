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
// float32 Cephes' expf minimax (1 + r + r²·P5(r)), for float64 1 + r +
// r²·P9(r), P9 a Chebyshev fit (2^-55.8 relative). The
// result is exp(r)·2^⌊n/2⌋·2^⌈n/2⌉: two factors, so that both are normal
// numbers over the whole range, and the last product rounds into subnormals
// correctly and overflows to +Inf. The input is first clamped to
// [−104, 89] (float32) or [−746, 710] (float64), beyond which exp is 0 or
// +Inf, keeping NaN (the clamps take x as the operand MIN/MAX return for
// NaN).
//
// tanh, float64: for |x| < 0.625, |x| + |x|·z·P(z)/Q(z) with z = x²
// (Cephes' tanh rational); above, 1 − 2/(exp(2|x|) + 1), which is exactly 1
// once exp(2|x|) is large and for +Inf. Both are of the form A + B/C, so the
// lanes are blended before one division. The sign of x is put back last
// (tanh is odd; -0 stays -0). float32: a table of polynomials in |x|, no
// division (math_tanh32.go).
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
		// P of degree 9: exp's Chebyshev interpolant (near-minimax) on
		// [−ln2/2, ln2/2], from expf64fit.py (mpmath, 200 bits): 2^-55.8
		// relative with these float64s, two FMAs fewer than the Taylor
		// series to r^13 (2^-57.8), which cost a few % of the kernel's time.
		poly: []float64{2.5100375832561234e-08, 2.7620075879983367e-07, 2.7557268480310024e-06,
			2.4801521322368692e-05, 0.00019841269863040545, 0.0013888888917196719,
			0.008333333333330065, 0.041666666666624164, 0.16666666666666669, 0.5000000000000001},
		bias:     math.Float64bits(0x1.8p52) - 2*1023,
		mantBits: 52,
	}
)

func (g *gen) constsFor(t dtype) expConsts {
	if t.f64 {
		return expF64
	}
	return expF32
}

// The functions below work on several vectors at once, each step emitted
// for all of them before the next: the steps of one vector form a chain of
// some 25 dependent instructions (about 90 cycles), and interleaving the
// chains of independent vectors lets the core overlap them, which it could
// not do well enough across loop trips (the out-of-order window fills with
// one chain's waiting instructions).

// expPins are the constants exp reads once a vector with an arithmetic
// instruction (pin): the reduction's and the polynomial's but its first
// coefficient, which it loads. With exp's five vectors a trip (zmmBatch)
// they fill the 32 zmm registers in f64; f32's shorter polynomial leaves
// room for the final 1 too.
func (g *gen) expPins(t dtype) []Mem {
	c := g.constsFor(t)
	ms := []Mem{g.fconst(t, "magic", c.magic), g.fconst(t, "ln2hi", c.ln2hi), g.fconst(t, "ln2lo", c.ln2lo)}
	for k, v := range c.poly[1:] {
		ms = append(ms, g.fconst(t, "expp"+itoa(k+1), v))
	}
	if !t.f64 {
		ms = append(ms, g.fconst(t, "one", 1))
	}
	return ms
}

// exp returns registers holding exp of the lanes of xs, which it clobbers.
func (g *gen) exp(t dtype, xs []VecVirtual) []VecVirtual {
	c := g.constsFor(t)
	each := func(f func(i int)) {
		for i := range xs {
			f(i)
		}
	}
	lo, hi := g.newVec(), g.newVec()
	g.vmovu(t, g.fconst(t, "explo", c.lo), lo)
	g.vmovu(t, g.fconst(t, "exphi", c.hi), hi)
	each(func(i int) { g.vmax(t, xs[i], lo, xs[i]) }) // lo > x ? lo : x, and x when NaN
	each(func(i int) { g.vmin(t, xs[i], hi, xs[i]) }) // hi < x ? hi : x, and x when NaN

	// tt = x·log2e + magic: n in its low bits.
	tt, nf := make([]VecVirtual, len(xs)), make([]VecVirtual, len(xs))
	each(func(i int) {
		tt[i] = g.newVec()
		g.vmovu(t, g.fconst(t, "log2e", math.Log2E), tt[i])
	})
	each(func(i int) { g.vfmadd213(t, g.fconst(t, "magic", c.magic), xs[i], tt[i]) })
	each(func(i int) {
		nf[i] = g.newVec()
		g.vsub(t, g.fconst(t, "magic", c.magic), tt[i], nf[i])
	})
	each(func(i int) { g.vfnmadd231(t, g.fconst(t, "ln2hi", c.ln2hi), nf[i], xs[i]) }) // x −= n·ln2hi
	each(func(i int) { g.vfnmadd231(t, g.fconst(t, "ln2lo", c.ln2lo), nf[i], xs[i]) }) // r = x − n·ln2lo

	// p = 1 + r + r²·P(r)
	p := make([]VecVirtual, len(xs))
	each(func(i int) {
		p[i] = g.newVec()
		g.vmovu(t, g.fconst(t, "expp0", c.poly[0]), p[i])
	})
	for k, v := range c.poly[1:] {
		each(func(i int) { g.vfmadd213(t, g.fconst(t, "expp"+itoa(k+1), v), xs[i], p[i]) })
	}
	r2 := make([]VecVirtual, len(xs))
	each(func(i int) {
		r2[i] = g.newVec()
		g.vmul(t, xs[i], xs[i], r2[i])
	})
	each(func(i int) { g.vfmadd213(t, xs[i], r2[i], p[i]) }) // p·r² + r
	each(func(i int) { g.vadd(t, g.fconst(t, "one", 1), p[i], p[i]) })

	if g.width() == zmm {
		// VSCALEFPS computes p·2^n rounded once, as the two factors
		// below do, in one instruction instead of seven: the same bits.
		each(func(i int) {
			if t.f64 {
				g.VSCALEFPD(nf[i], p[i], p[i])
			} else {
				g.VSCALEFPS(nf[i], p[i], p[i])
			}
		})
		return p
	}
	// Scale by 2^n as two factors: m = n + 2·bias, m1 = m>>1 = ⌊n/2⌋+bias,
	// m2 = m − m1 = ⌈n/2⌉+bias; each shifted into an exponent field.
	m1, m2 := make([]VecVirtual, len(xs)), make([]VecVirtual, len(xs))
	each(func(i int) {
		m1[i], m2[i] = g.newVec(), g.newVec()
		if t.f64 {
			g.vpsub(t, g.vconst(t, "expbias", c.bias), tt[i], m2[i])
			g.VPSRLQ(U8(1), m2[i], m1[i])
		} else {
			g.vpsub(t, g.vconst(t, "expbias", c.bias), tt[i], m2[i])
			g.VPSRLD(U8(1), m2[i], m1[i])
		}
	})
	each(func(i int) {
		if t.f64 {
			g.VPSUBQ(m1[i], m2[i], m2[i])
			g.VPSLLQ(U8(c.mantBits), m1[i], m1[i])
			g.VPSLLQ(U8(c.mantBits), m2[i], m2[i])
		} else {
			g.VPSUBD(m1[i], m2[i], m2[i])
			g.VPSLLD(U8(c.mantBits), m1[i], m1[i])
			g.VPSLLD(U8(c.mantBits), m2[i], m2[i])
		}
	})
	each(func(i int) { g.vmul(t, m1[i], p[i], p[i]) })
	each(func(i int) { g.vmul(t, m2[i], p[i], p[i]) })
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

// blendv sets dst = mask ? y : x: by the sign bit of each lane of a vector
// mask, or by the bits of a mask register (VBLENDMPS, for zmm).
func (g *gen) blendv(t dtype, mask, y, x, dst Op) {
	switch {
	case IsK(mask) && t.f64:
		g.VBLENDMPD(y, x, mask, dst)
		return
	case IsK(mask):
		g.VBLENDMPS(y, x, mask, dst)
		return
	}
	if t.f64 {
		g.VBLENDVPD(mask, y, x, dst)
	} else {
		g.VBLENDVPS(mask, y, x, dst)
	}
}

// Cephes' tanh rational (float64) for |x| < 0.625.
var (
	tanhF64P = []float64{-9.64399179425052238628e-1, -9.92877231001918586564e1,
		-1.61468768441708447952e3}
	tanhF64Q = []float64{1, 1.12811678491632931402e2, 2.23548839060100448583e3,
		4.84406305325125486048e3}
)

// tanh returns registers holding tanh of the lanes of xs (preserved).
// float32 takes the table of math_tanh32.go.
func (g *gen) tanh(t dtype, xs []VecVirtual) []VecVirtual {
	if !t.f64 {
		return g.tanhF32(xs) // math_tanh32.go
	}
	n := len(xs)
	each := func(f func(i int)) {
		for i := range n {
			f(i)
		}
	}
	ax, z, bs := make([]VecVirtual, n), make([]VecVirtual, n), make([]VecVirtual, n)
	each(func(i int) {
		ax[i] = g.newVec()
		g.vand(t, g.absMask(t), xs[i], ax[i])
	})

	// Small |x|: B = ax·z·P(z), C = Q(z).
	each(func(i int) {
		z[i] = g.newVec()
		g.vmul(t, ax[i], ax[i], z[i])
	})
	poly := tanhF64P
	each(func(i int) {
		bs[i] = g.newVec()
		g.vmovu(t, g.fconst(t, "tanhp0", poly[0]), bs[i])
	})
	for k, v := range poly[1:] {
		each(func(i int) { g.vfmadd213(t, g.fconst(t, "tanhp"+itoa(k+1), v), z[i], bs[i]) })
	}
	each(func(i int) { g.vmul(t, z[i], bs[i], bs[i]) })
	each(func(i int) { g.vmul(t, ax[i], bs[i], bs[i]) })
	cs := make([]VecVirtual, n)
	each(func(i int) {
		cs[i] = g.newVec()
		g.vmovu(t, g.fconst(t, "tanhq0", tanhF64Q[0]), cs[i])
	})
	for k, v := range tanhF64Q[1:] {
		each(func(i int) { g.vfmadd213(t, g.fconst(t, "tanhq"+itoa(k+1), v), z[i], cs[i]) })
	}

	// Large |x|: A = 1, B = −2, C = exp(2|x|) + 1.
	e2 := make([]VecVirtual, n)
	each(func(i int) {
		e2[i] = g.newVec()
		g.vadd(t, ax[i], ax[i], e2[i])
	})
	e := g.exp(t, e2)
	each(func(i int) { g.vadd(t, g.fconst(t, "one", 1), e[i], e[i]) })

	// Blend by |x| < 0.625 (false for NaN: the large form, NaN).
	small, a, b := make([]Register, n), make([]VecVirtual, n), make([]VecVirtual, n)
	each(func(i int) {
		small[i] = g.newVec()
		if g.width() == zmm {
			small[i] = g.K()
		}
		g.vcmp(t, cmpLT, g.fconst(t, "tanhsmall", 0.625), ax[i], small[i])
	})
	each(func(i int) {
		a[i] = g.newVec()
		g.vmovu(t, g.fconst(t, "one", 1), a[i])
		g.blendv(t, small[i], ax[i], a[i], a[i])
	})
	each(func(i int) {
		b[i] = g.newVec()
		g.vmovu(t, g.fconst(t, "minus2", -2), b[i])
		g.blendv(t, small[i], bs[i], b[i], b[i])
	})
	each(func(i int) { g.blendv(t, small[i], cs[i], e[i], e[i]) })
	each(func(i int) { g.vdiv(t, e[i], b[i], b[i]) })
	each(func(i int) { g.vadd(t, b[i], a[i], a[i]) })
	// Put the sign back.
	each(func(i int) {
		sign := g.newVec()
		g.vand(t, g.signMask(t), xs[i], sign)
		g.vor(t, sign, a[i], a[i])
	})
	return a
}

// sigmoid returns registers holding 1/(1+exp(−x)) of the lanes of xs
// (preserved).
func (g *gen) sigmoid(t dtype, xs []VecVirtual) []VecVirtual {
	n := len(xs)
	nx := make([]VecVirtual, n)
	for i := range n {
		nx[i] = g.newVec()
		g.vor(t, g.signMask(t), xs[i], nx[i]) // −|x|
	}
	e := g.exp(t, nx)
	num, d := make([]VecVirtual, n), make([]VecVirtual, n)
	for i := range n {
		num[i], d[i] = g.newVec(), g.newVec()
		g.vmovu(t, g.fconst(t, "one", 1), num[i])
		g.vadd(t, num[i], e[i], d[i])
	}
	for i := range n {
		sign := Op(xs[i])
		if g.width() == zmm { // the sign bits into a mask register
			k := g.K()
			if t.f64 {
				g.VPMOVQ2M(xs[i], k)
			} else {
				g.VPMOVD2M(xs[i], k)
			}
			sign = k
		}
		g.blendv(t, sign, e[i], num[i], num[i]) // e where x's sign bit is set, else 1
	}
	for i := range n {
		g.vdiv(t, d[i], num[i], num[i])
	}
	return num
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
