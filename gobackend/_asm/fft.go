package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Stockham FFT stages of gobackend/fft, on interleaved complex values
// (complex64: "c" kernels over float32; complex128: "z" over float64). A
// stage of radix r over sub-transforms of length r·m at stride s reads the
// butterfly (p, q)'s inputs at x[q + s·(p + k·m)] and writes its outputs,
// times the twiddles W^(k·p), at y[q + s·(r·p + k)] (gobackend/fft's
// stage type).
//
//	fft4b, fft2b  radix 4 and 2 with s a multiple of the complex values per
//	              vector: the vector runs across q, the twiddles of p
//	              broadcast (tw: W^p, W^2p, W^3p per p, interleaved)
//	fft4t         radix 4 at s = 1 (the first stage): the vector runs
//	              across p (tw: blocks of W^p, W^2p, W^3p for the vector's
//	              p), and a transpose in registers puts each butterfly's
//	              four outputs side by side
//	fft16b        two radix-4 stages in one pass (s a multiple of the
//	              vector): stage A of stride s and m, then stage B of
//	              stride 4s and m/4, the 16 values of a group in zmm
//	              registers between them, or in ymm through a stack buffer
//	              (fft16bx2: two ymm vectors of q a step)
//	fft16t        the first two stages (s = 1, then s = 4) in one pass
//	              (zmm): the vector across p' as in fft4t, both stages'
//	              butterflies in registers, then a transpose of the
//	              sixteen outputs of each of the vector's p'
//	fft4u, fft2u, the last stage (m = 1: every twiddle is 1) without the
//	fft16u, fft8u twiddles; fft16u: fft16b whose second stage is the
//	              last; fft8u: the same with a last stage of radix 2
//	fft4p         radix 4 with s half a zmm vector (complex64, s = 4):
//	              the vector holds q < s of two p (tw: per pair of p, for
//	              k = 1…3 a vector of W^kp in its low half and W^k(p+1)
//	              in its high half)
//
// i·(b − d) is swap(b − d) times the sign vector the caller passes, −1
// in one lane of each pair: the even lanes for the forward transform
// (i·z), the odd ones for the inverse (−i·z), so one kernel serves both
// (butterfly4).
// A complex product u·w is fmaddsub(u, re w, swap(u)·im w).

func genFFT(g *gen) {
	for _, t := range []dtype{f32, f64} {
		for _, w := range []width{ymm, zmm} {
			g.fftBroadcast(t, w, 4)
			g.fftBroadcast(t, w, 2)
		}
		for _, wh := range []struct {
			w      width
			halves int
		}{{ymm, 1}, {ymm, 2}, {zmm, 1}} {
			g.fftFusedBroadcast(t, wh.w, 4, false, wh.halves)
			g.fftFusedBroadcast(t, wh.w, 4, true, wh.halves)
			g.fftFusedBroadcast(t, wh.w, 2, true, wh.halves) // radix 2 is only ever a plan's last stage
		}
		for _, w := range []width{ymm, zmm} {
			g.fftUnit(t, w, 4)
			g.fftUnit(t, w, 2)
		}
		g.fft4Transposed(t)
		g.fft4TransposedZMM(t)
		g.fft16Transposed(t)
		if !t.f64 { // complex128's strides are 1 or multiples of 4: none is half a zmm
			g.fft4Pairs(t)
		}
		for _, w := range []width{ymm, zmm} {
			g.splitReal(t, w)
		}
	}
}

// cplx is the kernel-name prefix of t's complex type: BLAS's c and z.
func cplx(t dtype) string {
	if t.f64 {
		return "z"
	}
	return "c"
}

func (g *gen) fftFunc(t dtype, w width, name, sig string, doc ...string) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.Function(fmt.Sprintf("%s%s%s", cplx(t), name, w.name))
	g.SignatureExpr(fmt.Sprintf(sig, elem))
	g.Doc(append(doc, needs(w)...)...)
}

// swapPairs sets dst to src with the real and imaginary parts of each
// complex value exchanged.
func (g *gen) swapPairs(t dtype, w width, src, dst Op) {
	if t.f64 {
		g.VPERMILPD(U8(0x55&(1<<w.lanes(t)-1)), src, dst)
	} else {
		g.VPERMILPS(U8(0xB1), src, dst)
	}
}

// cmul sets u to u·w, w given as its real and imaginary parts in every
// lane (wr, wi); tmp is clobbered.
func (g *gen) cmul(t dtype, w width, u, wr, wi, tmp VecVirtual) {
	g.swapPairs(t, w, u, tmp)
	g.vmul(t, wi, tmp, tmp)
	if t.f64 {
		g.VFMADDSUB213PD(tmp, wr, u)
	} else {
		g.VFMADDSUB213PS(tmp, wr, u)
	}
}

// butterfly4 turns a, b, c, d into the radix-4 butterfly's outputs before
// the twiddles: a+c+b+d, a−c−i(b−d), a+c−(b+d), a−c+i(b−d). i·z is sgn
// times z with its parts exchanged, sgn −1 in the real lanes and 1 in the
// imaginary ones (the inverse: the other way round, making i·z −i·z); the
// outputs a−c ∓ i(b−d) multiply by it in their adds (the product is exact,
// so they round as the adds did), where a sign mask took an XOR more.
func (g *gen) butterfly4(t dtype, w width, a, b, c, d, sgn VecVirtual) {
	apc, amc, bpd := g.vec(w), g.vec(w), g.vec(w)
	g.vadd(t, c, a, apc)
	g.vsub(t, c, a, amc)
	g.vadd(t, d, b, bpd)
	g.vsub(t, d, b, d) // b − d
	g.swapPairs(t, w, d, d)
	g.vadd(t, bpd, apc, a)
	g.vsub(t, bpd, apc, c)
	g.vmovu(t, amc, b)
	g.vfnmadd231(t, sgn, d, b)  // a − c − sgn·swap(b − d)
	g.vfmadd213(t, amc, sgn, d) // a − c + sgn·swap(b − d)
}

// fftBroadcast emits <c|z>fft<r>b<w>: the stage of radix r (4 or 2) with
// s a multiple of w's complex values.
func (g *gen) fftBroadcast(t dtype, w width, r int) {
	name := fmt.Sprintf("fft%db", r)
	sig := "func(y, x, tw *%s, m, s, pn, qn int, sgn *%[1]s)"
	if r == 2 {
		sig = "func(y, x, tw *%s, m, s, pn, qn int)"
	}
	g.fftFunc(t, w, name, sig,
		fmt.Sprintf("%s%s%s runs a radix-%d Stockham stage: for p < pn and q < qn, the butterfly", cplx(t), name, w.name, r),
		fmt.Sprintf("of x[q + s·(p + k·m)], k < %d, into y[q + s·(%d·p + k)], output k times tw[p·%d + k−1]", r, r, r-1),
		fmt.Sprintf("(complex values, k ≥ 1): the whole stage with pn = m and qn = s, a part of it (for"),
		fmt.Sprintf("a thread) with y, x and tw advanced to its first p and q. s and qn are multiples of %d.", w.bytes/(2*t.size)))
	cs := 2 * t.size // bytes per complex value
	y, x, tw, m, s := g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("y"), y)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("tw"), tw)
	g.Load(g.Param("m"), m)
	g.Load(g.Param("s"), s)
	qb := g.GP64() // qn·cs: the bytes of q the inner loop runs
	g.Load(g.Param("qn"), qb)
	g.SHLQ(U8(log2(cs)), qb)
	var sgn VecVirtual
	if r == 4 {
		mp := g.GP64()
		g.Load(g.Param("sgn"), mp)
		sgn = g.vec(w)
		g.vmovu(t, Mem{Base: mp}, sgn)
	}
	// Bytes: sb = s·cs, xm = s·m·cs (x's distance between k and k+1),
	// and their multiples for the far inputs and outputs.
	sb, xm := g.GP64(), g.GP64()
	g.MOVQ(s, sb)
	g.SHLQ(U8(log2(cs)), sb)
	g.MOVQ(sb, xm)
	g.IMULQ(m, xm)
	xm3, sb3 := g.GP64(), g.GP64()
	if r == 4 {
		g.LEAQ(Mem{Base: xm, Index: xm, Scale: 2}, xm3)
		g.LEAQ(Mem{Base: sb, Index: sb, Scale: 2}, sb3)
	}
	// m is done with: the p loop counts pn down in it.
	g.Load(g.Param("pn"), m)
	g.TESTQ(m, m)
	done := g.label("fftdone")
	g.JE(LabelRef(done))
	g.TESTQ(qb, qb)
	g.JE(LabelRef(done))
	outer := g.label("fftp")
	g.Label(outer)
	// Twiddles of this p, broadcast.
	var wr, wi []VecVirtual
	for k := range r - 1 {
		a, b := g.vec(w), g.vec(w)
		g.vbroadcast(t, Mem{Base: tw, Disp: k * cs}, a)
		g.vbroadcast(t, Mem{Base: tw, Disp: k*cs + t.size}, b)
		wr, wi = append(wr, a), append(wi, b)
	}
	off := g.GP64()
	g.XORQ(off, off)
	inner := g.label("fftq")
	g.Label(inner)
	// x + off + k·xm: k = 1, 2 through a pointer xo = x + off.
	xo, yo := g.GP64(), g.GP64()
	g.LEAQ(Mem{Base: x, Index: off, Scale: 1}, xo)
	g.LEAQ(Mem{Base: y, Index: off, Scale: 1}, yo)
	vs := make([]VecVirtual, r)
	for k := range r {
		vs[k] = g.vec(w)
	}
	g.vmovu(t, Mem{Base: xo}, vs[0])
	g.vmovu(t, Mem{Base: xo, Index: xm, Scale: 1}, vs[1])
	tmp := g.vec(w)
	if r == 4 {
		g.vmovu(t, Mem{Base: xo, Index: xm, Scale: 2}, vs[2])
		g.vmovu(t, Mem{Base: xo, Index: xm3, Scale: 1}, vs[3])
		g.butterfly4(t, w, vs[0], vs[1], vs[2], vs[3], sgn)
		for k := 1; k < 4; k++ {
			g.cmul(t, w, vs[k], wr[k-1], wi[k-1], tmp)
		}
		g.vmovu(t, vs[0], Mem{Base: yo})
		g.vmovu(t, vs[1], Mem{Base: yo, Index: sb, Scale: 1})
		g.vmovu(t, vs[2], Mem{Base: yo, Index: sb, Scale: 2})
		g.vmovu(t, vs[3], Mem{Base: yo, Index: sb3, Scale: 1})
	} else {
		g.vsub(t, vs[1], vs[0], tmp)
		g.vadd(t, vs[1], vs[0], vs[0])
		g.cmul(t, w, tmp, wr[0], wi[0], vs[1])
		g.vmovu(t, vs[0], Mem{Base: yo})
		g.vmovu(t, tmp, Mem{Base: yo, Index: sb, Scale: 1})
	}
	g.ADDQ(U32(w.bytes), off)
	g.CMPQ(off, qb)
	g.JB(LabelRef(inner))
	// Next p: x advances s complex values, y r·s, tw r−1.
	g.ADDQ(sb, x)
	g.LEAQ(Mem{Base: y, Index: sb, Scale: uint8(r)}, y)
	g.ADDQ(U32((r-1)*cs), tw)
	g.DECQ(m)
	g.JNE(LabelRef(outer))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// fftFusedBroadcast emits <c|z>fft16bAVX512: two radix-4 stages of the
// broadcast kind in one pass. Stage A (stride s, m sub-transforms) writes
// butterfly p's output k at q + s·(4p + k); stage B (stride 4s, m/4) reads
// its butterfly p' from those of A's p = p' + k'·m/4, k' < 4, at their
// output k, the column q' = q + s·k. So for one p' and q, A's four
// butterflies p' + k'·m/4 read x[q + s·(p' + (k' + 4k)·m/4)], k, k' < 4,
// and B's four, one per k, take A's outputs k of them and write
// y[q + s·k + 4s·(4p' + j)], j < 4: sixteen values loaded, two stages of
// butterflies and twiddles in registers, sixteen stored. The arithmetic is
// the two stages', operation for operation, so the result is theirs to the
// bit. 16 values, B's twiddles and the temporaries take 30 zmm registers.
// The ymm form (<c|z>fft16bAVX2, 16 registers) stores A's outputs to a
// buffer on the stack, in L1, and B loads them back a column k at a time,
// its twiddles broadcast again per product: the stage's pass through the
// array saved for a round trip through 512 bytes of stack. halves 2 (the
// x2 forms, ymm) takes two vectors of q a step, the second right after the
// first at each input and output, so that each of the 32 streams uses a
// whole 64-byte line at once: at power-of-two strides they share L1 sets,
// and a line read or written half at a time was evicted between halves.
//
// rb 2: B of radix 2 (the last stage of an odd power of two, so only the
// unit form, fft8u, is emitted): A's two butterflies p' + k'·m/2, B's
// over their pairs.
//
// unit: <c|z>fft<4rb>u<AVX512|AVX2>, B the last stage (m = rb, m/rb = 1), whose
// twiddles are all 1: no twb, no products.
func (g *gen) fftFusedBroadcast(t dtype, w width, rb int, unit bool, halves int) {
	r := 4 * rb
	suffix := ""
	if halves == 2 {
		suffix = "x2"
	}
	name, sig := fmt.Sprintf("fft%db%s", r, suffix), "func(y, x, twa, twb *%s, m, s, pn, qn int, sgn *%[1]s)"
	doc := []string{
		fmt.Sprintf("%s%s%s runs two Stockham stages in one pass: stage A, radix 4 of stride s over", cplx(t), name, w.name),
		fmt.Sprintf("m sub-transforms (twa: its twiddles, as cfft4b's), then stage B, radix %d of stride 4s", rb),
		fmt.Sprintf("over m/%d (twb: its own), from x into y: for p' < pn and q < qn, A's butterflies", rb),
		fmt.Sprintf("p' + k'·m/%d, k' < %d, and B's p' over their outputs, into y[q + s·(k + 4·(%dp' + j))],", rb, rb, rb),
		fmt.Sprintf("j < %d. pn = m/%d and qn = s: both stages; less: a part, y, x, twa advanced to p' and", rb, rb),
		fmt.Sprintf("q, twb to p'. m is a multiple of %d, s and qn of %d.", rb, halves*w.bytes/(2*t.size))}
	if unit {
		name, sig = fmt.Sprintf("fft%du%s", r, suffix), "func(y, x, twa *%s, m, s, pn, qn int, sgn *%[1]s)"
		doc = []string{
			fmt.Sprintf("%s%s%s runs two Stockham stages in one pass: stage A, radix 4 of stride s over", cplx(t), name, w.name),
			fmt.Sprintf("m = %d sub-transforms (twa: its twiddles, as cfft4b's), then the last stage B, radix %d", rb, rb),
			"of stride 4s over one (its twiddles all 1: none read or applied), from x into y: for q < qn,",
			fmt.Sprintf("A's butterflies k' < %d and B's over their outputs, into y[q + s·(k + 4j)], j < %d. pn = 1;", rb, rb),
			fmt.Sprintf("qn = s: both stages; less: a part, y and x advanced to q. s and qn are multiples of %d.", halves*w.bytes/(2*t.size))}
	}
	g.fftFunc(t, w, name, sig, doc...)
	cs := 2 * t.size
	y, x, twa := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("y"), y)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("twa"), twa)
	var twb Register
	if !unit {
		twb = g.GP64()
		g.Load(g.Param("twb"), twb)
	}
	mp := g.GP64()
	g.Load(g.Param("sgn"), mp)
	sgn := g.vec(w)
	g.vmovu(t, Mem{Base: mp}, sgn)
	// Bytes: sb = s·cs (y's distance between k and k+1), d = sb·m/rb (x's
	// between k' and k'+1), dk = rb·d (between k and k+1), dk3 = 3dk, and
	// ta = 3·cs·m/rb (twa's between k' and k'+1).
	m, sb, d, dk, dk3, ta := g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("m"), m)
	g.SHRQ(U8(log2(rb)), m)
	g.Load(g.Param("s"), sb)
	g.SHLQ(U8(log2(cs)), sb)
	g.MOVQ(sb, d)
	g.IMULQ(m, d)
	g.LEAQ(Mem{Base: m, Index: m, Scale: 2}, ta)
	g.SHLQ(U8(log2(cs)), ta)
	g.MOVQ(d, dk)
	g.SHLQ(U8(log2(rb)), dk)
	g.LEAQ(Mem{Base: dk, Index: dk, Scale: 2}, dk3)
	qb := g.GP64()
	g.Load(g.Param("qn"), qb)
	g.SHLQ(U8(log2(cs)), qb)
	// m is done with: the p' loop counts pn down in it.
	g.Load(g.Param("pn"), m)
	g.TESTQ(m, m)
	done := g.label("fftdone")
	g.JE(LabelRef(done))
	g.TESTQ(qb, qb)
	g.JE(LabelRef(done))
	outer := g.label("fftp")
	g.Label(outer)
	// B's twiddles of this p', broadcast once for its q.
	// At ymm the 16 registers do not hold them with the 16 values: there
	// each product broadcasts its twiddle again (bTwiddle).
	var br, bi []VecVirtual
	for k := range rb - 1 {
		if unit || w == ymm {
			break
		}
		a, b := g.vec(w), g.vec(w)
		g.vbroadcast(t, Mem{Base: twb, Disp: k * cs}, a)
		g.vbroadcast(t, Mem{Base: twb, Disp: k*cs + t.size}, b)
		br, bi = append(br, a), append(bi, b)
	}
	off := g.GP64()
	g.XORQ(off, off)
	inner := g.label("fftq")
	g.Label(inner)
	// v[k'][k]: A's butterfly p' + k'·m/rb, input and then output k.
	v := make([][4]VecVirtual, rb)
	xo, to := g.GP64(), g.GP64()
	g.LEAQ(Mem{Base: x, Index: off, Scale: 1}, xo)
	g.MOVQ(twa, to)
	tmp, wr, wi := g.vec(w), g.vec(w), g.vec(w)
	// spill (ymm): A's output k of butterfly k' for half h at
	// buf[4·(rb·h + k') + k].
	var buf Mem
	if w == ymm {
		buf = g.AllocLocal(4 * rb * halves * w.bytes)
	}
	slot := func(h, kp, k int) Mem { return buf.Offset((4*(rb*h+kp) + k) * w.bytes) }
	for kp := range rb {
		for h := range halves {
			hb := h * w.bytes
			for k := range 4 {
				v[kp][k] = g.vec(w)
			}
			g.vmovu(t, Mem{Base: xo, Disp: hb}, v[kp][0])
			g.vmovu(t, Mem{Base: xo, Index: dk, Scale: 1, Disp: hb}, v[kp][1])
			g.vmovu(t, Mem{Base: xo, Index: dk, Scale: 2, Disp: hb}, v[kp][2])
			g.vmovu(t, Mem{Base: xo, Index: dk3, Scale: 1, Disp: hb}, v[kp][3])
			g.butterfly4(t, w, v[kp][0], v[kp][1], v[kp][2], v[kp][3], sgn)
			for k := 1; k < 4; k++ {
				g.vbroadcast(t, Mem{Base: to, Disp: (k - 1) * cs}, wr)
				g.vbroadcast(t, Mem{Base: to, Disp: (k-1)*cs + t.size}, wi)
				g.cmul(t, w, v[kp][k], wr, wi, tmp)
			}
			if w == ymm {
				for k := range 4 {
					g.vmovu(t, v[kp][k], slot(h, kp, k))
				}
			}
		}
		if kp < rb-1 {
			g.ADDQ(d, xo)
			g.ADDQ(ta, to)
		}
	}
	// B's butterfly over k' for each column k; output j to
	// y + off + sb·(k + 4j).
	yo := g.GP64()
	for k := range 4 {
		if k == 0 {
			g.LEAQ(Mem{Base: y, Index: off, Scale: 1}, yo)
		} else {
			g.ADDQ(sb, yo)
		}
		for h := range halves {
			hb := h * w.bytes
			if w == ymm {
				for kp := range rb {
					v[kp][k] = g.vec(w)
					g.vmovu(t, slot(h, kp, k), v[kp][k])
				}
			}
			if rb == 4 {
				g.butterfly4(t, w, v[0][k], v[1][k], v[2][k], v[3][k], sgn)
			} else {
				dif := g.vec(w)
				g.vsub(t, v[1][k], v[0][k], dif)
				g.vadd(t, v[1][k], v[0][k], v[0][k])
				v[1][k] = dif
			}
			for j := 1; j < rb && !unit; j++ {
				if w == ymm {
					g.vbroadcast(t, Mem{Base: twb, Disp: (j - 1) * cs}, wr)
					g.vbroadcast(t, Mem{Base: twb, Disp: (j-1)*cs + t.size}, wi)
					g.cmul(t, w, v[j][k], wr, wi, tmp)
					continue
				}
				g.cmul(t, w, v[j][k], br[j-1], bi[j-1], tmp)
			}
			g.vmovu(t, v[0][k], Mem{Base: yo, Disp: hb})
			g.vmovu(t, v[1][k], Mem{Base: yo, Index: sb, Scale: 4, Disp: hb})
			if rb == 4 {
				g.vmovu(t, v[2][k], Mem{Base: yo, Index: sb, Scale: 8, Disp: hb})
				g.LEAQ(Mem{Base: yo, Index: sb, Scale: 8}, to)
				g.vmovu(t, v[3][k], Mem{Base: to, Index: sb, Scale: 4, Disp: hb})
			}
		}
	}
	g.ADDQ(U32(halves*w.bytes), off)
	g.CMPQ(off, qb)
	g.JB(LabelRef(inner))
	// Next p': x advances s complex values, y 4·rb·s, twa 3, twb rb−1.
	g.ADDQ(sb, x)
	g.SHLQ(U8(log2(4*rb)), sb)
	g.ADDQ(sb, y)
	g.SHRQ(U8(log2(4*rb)), sb)
	g.ADDQ(U32(3*cs), twa)
	if !unit {
		g.ADDQ(U32((rb-1)*cs), twb)
	}
	g.DECQ(m)
	g.JNE(LabelRef(outer))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// fft4Transposed emits <c|z>fft4tAVX2: the radix-4 stage at s = 1, the
// vector across p.
func (g *gen) fft4Transposed(t dtype) {
	w := ymm
	v := w.bytes / (2 * t.size) // butterflies per vector: 4 complex64, 2 complex128
	name := "fft4t"
	g.fftFunc(t, w, name, "func(y, x, tw *%s, m, pn int, sgn *%[1]s)",
		fmt.Sprintf("%s%s%s runs the radix-4 Stockham stage of stride 1: for p < pn, the butterfly", cplx(t), name, w.name),
		"of x[p + k·m], k < 4, into y[4·p + k], output k times W^(k·p), read from tw in",
		fmt.Sprintf("blocks of %d: W^p, then W^2p, then W^3p of the block's p (pn = m: the whole stage;", v),
		fmt.Sprintf("less: a part, y, x and tw advanced to its first p). m and pn are multiples of %d.", v))
	cs := 2 * t.size
	y, x, tw, m := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("y"), y)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("tw"), tw)
	g.Load(g.Param("m"), m)
	mp := g.GP64()
	g.Load(g.Param("sgn"), mp)
	sgn := g.vec(w)
	g.vmovu(t, Mem{Base: mp}, sgn)
	xm, xm3 := g.GP64(), g.GP64()
	g.MOVQ(m, xm)
	g.SHLQ(U8(log2(cs)), xm)
	g.LEAQ(Mem{Base: xm, Index: xm, Scale: 2}, xm3)
	g.Load(g.Param("pn"), m)
	g.SHRQ(U8(log2(v)), m) // vector trips
	g.TESTQ(m, m)
	done := g.label("fftdone")
	g.JE(LabelRef(done))
	loop := g.label("fftt")
	g.Label(loop)
	a, b, c, d := g.vec(w), g.vec(w), g.vec(w), g.vec(w)
	g.vmovu(t, Mem{Base: x}, a)
	g.vmovu(t, Mem{Base: x, Index: xm, Scale: 1}, b)
	g.vmovu(t, Mem{Base: x, Index: xm, Scale: 2}, c)
	g.vmovu(t, Mem{Base: x, Index: xm3, Scale: 1}, d)
	g.butterfly4(t, w, a, b, c, d, sgn)
	wr, wi, tmp := g.vec(w), g.vec(w), g.vec(w)
	for k, u := range []VecVirtual{b, c, d} {
		tw := Mem{Base: tw, Disp: k * w.bytes}
		if t.f64 {
			g.VMOVDDUP(tw, wr)
			g.VMOVUPD(tw, wi)
			g.VPERMILPD(U8(0xF), wi, wi)
		} else {
			g.VMOVSLDUP(tw, wr)
			g.VMOVSHDUP(tw, wi)
		}
		g.cmul(t, w, u, wr, wi, tmp)
	}
	// Transpose: y[4p + k] = u_k[p] for the vector's p.
	var out [4]VecVirtual
	if t.f64 {
		out = [4]VecVirtual{g.vec(w), g.vec(w), g.vec(w), g.vec(w)}
		g.VPERM2F128(U8(0x20), b, a, out[0])
		g.VPERM2F128(U8(0x20), d, c, out[1])
		g.VPERM2F128(U8(0x31), b, a, out[2])
		g.VPERM2F128(U8(0x31), d, c, out[3])
	} else {
		t0, t1, t2, t3 := g.vec(w), g.vec(w), g.vec(w), g.vec(w)
		g.VUNPCKLPD(b, a, t0)
		g.VUNPCKHPD(b, a, t1)
		g.VUNPCKLPD(d, c, t2)
		g.VUNPCKHPD(d, c, t3)
		out = [4]VecVirtual{a, b, c, d}
		g.VPERM2F128(U8(0x20), t2, t0, out[0])
		g.VPERM2F128(U8(0x20), t3, t1, out[1])
		g.VPERM2F128(U8(0x31), t2, t0, out[2])
		g.VPERM2F128(U8(0x31), t3, t1, out[3])
	}
	for i, o := range out {
		g.vmovu(t, o, Mem{Base: y, Disp: i * w.bytes})
	}
	g.ADDQ(U32(w.bytes), x)
	g.ADDQ(U32(4*w.bytes), y)
	g.ADDQ(U32(3*w.bytes), tw)
	g.DECQ(m)
	g.JNE(LabelRef(loop))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// splitReal emits <c|z>splitreal<w>: the steps of gobackend/fft's rfft
// split pass (real.go, splitSteps), a vector of k at a time: with
// A = Z[k…], C = Z[h−k…] (read backwards from hi), S = ½(A + conj C),
// P = tw·(A − conj C), it writes S + P over A and conj(S − P) over C's
// values, backwards.
//
// The conjugates are folded into multiply-adds by one, whose lanes add or
// subtract by parity: A + conj C = fmsubadd(A·1, C), A − conj C =
// fmaddsub(A·1, C), and conj(S − P) = fmaddsub(½·(C + conj A), P), each
// rounding as the sum it stands for. The twiddle's real and imaginary
// parts come straight from loads that duplicate lanes (VMOVDDUP of tw and
// of tw+8 for complex128). Ten operations on the vector pipes a vector
// where the sign masks and a twiddle shuffle took thirteen, the same bits:
// the 1 Ki split took 0.84–0.95× the time (f64) and 0.78–0.88× (f32),
// three runs alternated on the Ice Lake VM, the table aligned alike.
func (g *gen) splitReal(t dtype, w width) {
	v := w.bytes / (2 * t.size)
	name := "splitreal"
	doc := []string{fmt.Sprintf("%s%s%s runs n·%d steps of the rfft split: for i < n·%d, Z[k] at lo[i] and", cplx(t), name, w.name, v, v),
		fmt.Sprintf("Z[h−k] at hi[%d−1−i] (hi: the lowest of them; then %d back a vector), tw[i]", v, v),
		"= −½i·W^k; half is ½."}
	if t.f64 {
		doc = append(doc, "It reads one float64 past the last twiddle it uses.")
	}
	g.fftFunc(t, w, name, "func(lo, hi, tw *%s, n int, half *%[1]s)", doc...)
	cs := 2 * t.size
	lo, hi, tw, n := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("lo"), lo)
	g.Load(g.Param("hi"), hi)
	g.Load(g.Param("tw"), tw)
	g.Load(g.Param("n"), n)
	hp := g.GP64()
	g.Load(g.Param("half"), hp)
	half, one := g.vec(w), g.vec(w)
	g.vbroadcast(t, Mem{Base: hp}, half)
	g.vadd(t, half, half, one)
	g.TESTQ(n, n)
	done := g.label("splitdone")
	g.JE(LabelRef(done))
	loop := g.label("split")
	g.Label(loop)
	a, c, s1, s2, wr, wi, tmp := g.vec(w), g.vec(w), g.vec(w), g.vec(w), g.vec(w), g.vec(w), g.vec(w)
	g.vmovu(t, Mem{Base: lo}, a)
	g.vmovu(t, Mem{Base: hi}, c)
	g.reverseComplex(t, w, c)
	if t.f64 {
		g.VMOVAPD(a, s1)
		g.VFMSUBADD213PD(c, one, s1) // A + conj C
		g.VMOVAPD(c, s2)
		g.VFMSUBADD213PD(a, one, s2) // C + conj A
		g.VFMADDSUB213PD(c, one, a)  // A − conj C, over A
		g.VMOVDDUP(Mem{Base: tw}, wr)
		g.VMOVDDUP(Mem{Base: tw, Disp: t.size}, wi)
	} else {
		g.VMOVAPS(a, s1)
		g.VFMSUBADD213PS(c, one, s1)
		g.VMOVAPS(c, s2)
		g.VFMSUBADD213PS(a, one, s2)
		g.VFMADDSUB213PS(c, one, a)
		g.VMOVSLDUP(Mem{Base: tw}, wr)
		g.VMOVSHDUP(Mem{Base: tw}, wi)
	}
	d := a
	g.cmul(t, w, d, wr, wi, tmp) // P
	if t.f64 {
		g.VFMADD213PD(d, half, s1)    // S + P
		g.VFMADDSUB213PD(d, half, s2) // conj(S − P)
	} else {
		g.VFMADD213PS(d, half, s1)
		g.VFMADDSUB213PS(d, half, s2)
	}
	g.reverseComplex(t, w, s2)
	g.vmovu(t, s1, Mem{Base: lo})
	g.vmovu(t, s2, Mem{Base: hi})
	g.ADDQ(U32(w.bytes), lo)
	g.ADDQ(U32(w.bytes), tw)
	g.SUBQ(U32(v*cs), hi)
	g.DECQ(n)
	g.JNE(LabelRef(loop))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// reverseComplex reverses the order of u's complex values in place.
func (g *gen) reverseComplex(t dtype, w width, u VecVirtual) {
	if w == zmm {
		g.VSHUFF64X2(U8(0x1B), u, u, u) // the 128-bit lanes reversed
	} else {
		g.VPERM2F128(U8(0x01), u, u, u)
	}
	if !t.f64 { // two complex64 in a lane: swap them
		g.VPERMILPD(U8(0x55&(1<<w.lanes(f64)-1)), u, u)
	}
}

// fft4TransposedZMM emits <c|z>fft4tAVX512: fft4t in zmm, 8 (complex64)
// or 4 (complex128) butterflies a vector, its transpose in 128-bit lanes.
func (g *gen) fft4TransposedZMM(t dtype) {
	w := zmm
	v := w.bytes / (2 * t.size)
	name := "fft4t"
	g.fftFunc(t, w, name, "func(y, x, tw *%s, m, pn int, sgn *%[1]s)",
		fmt.Sprintf("%s%s%s runs the radix-4 Stockham stage of stride 1 as %sfft4tAVX2 does, with", cplx(t), name, w.name, cplx(t)),
		fmt.Sprintf("blocks of %d butterflies (tw in blocks of %d). m and pn are multiples of %d.", v, v, v))
	cs := 2 * t.size
	y, x, tw, m := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("y"), y)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("tw"), tw)
	g.Load(g.Param("m"), m)
	mp := g.GP64()
	g.Load(g.Param("sgn"), mp)
	sgn := g.vec(w)
	g.vmovu(t, Mem{Base: mp}, sgn)
	xm, xm3 := g.GP64(), g.GP64()
	g.MOVQ(m, xm)
	g.SHLQ(U8(log2(cs)), xm)
	g.LEAQ(Mem{Base: xm, Index: xm, Scale: 2}, xm3)
	g.Load(g.Param("pn"), m)
	g.SHRQ(U8(log2(v)), m) // vector trips
	g.TESTQ(m, m)
	done := g.label("fftdone")
	g.JE(LabelRef(done))
	var idx [4]VecVirtual // complex64's transpose, loaded once
	if !t.f64 {
		idx = g.transposeIndex()
	}
	loop := g.label("fftt")
	g.Label(loop)
	a, b, c, d := g.vec(w), g.vec(w), g.vec(w), g.vec(w)
	g.vmovu(t, Mem{Base: x}, a)
	g.vmovu(t, Mem{Base: x, Index: xm, Scale: 1}, b)
	g.vmovu(t, Mem{Base: x, Index: xm, Scale: 2}, c)
	g.vmovu(t, Mem{Base: x, Index: xm3, Scale: 1}, d)
	g.butterfly4(t, w, a, b, c, d, sgn)
	wr, wi, tmp := g.vec(w), g.vec(w), g.vec(w)
	for k, u := range []VecVirtual{b, c, d} {
		tw := Mem{Base: tw, Disp: k * w.bytes}
		if t.f64 {
			g.VMOVDDUP(tw, wr)
			g.VMOVUPD(tw, wi)
			g.VPERMILPD(U8(0xFF), wi, wi)
		} else {
			g.VMOVSLDUP(tw, wr)
			g.VMOVSHDUP(tw, wi)
		}
		g.cmul(t, w, u, wr, wi, tmp)
	}
	out := g.transpose4(t, a, b, c, d, idx)
	for i, o := range out {
		g.vmovu(t, o, Mem{Base: y, Disp: i * w.bytes})
	}
	g.ADDQ(U32(w.bytes), x)
	g.ADDQ(U32(4*w.bytes), y)
	g.ADDQ(U32(3*w.bytes), tw)
	g.DECQ(m)
	g.JNE(LabelRef(loop))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// loadTwiddleVec sets wr and wi to the real and imaginary parts of the
// vector of complex twiddles at mem, each in both lanes of its pair.
func (g *gen) loadTwiddleVec(t dtype, mem Mem, wr, wi VecVirtual) {
	if t.f64 {
		g.VMOVDDUP(mem, wr)
		g.VMOVUPD(mem, wi)
		g.VPERMILPD(U8(0xFF), wi, wi)
	} else {
		g.VMOVSLDUP(mem, wr)
		g.VMOVSHDUP(mem, wi)
	}
}

// transpose4 turns a, b, c, d, each a zmm vector of v values (complex64:
// 8; complex128: 4) of v butterflies, into 4 vectors holding each
// butterfly's 4 values side by side, butterfly after butterfly
// (fft4TransposedZMM's store order). complex64 takes idx, the
// transposeIndex vectors in registers: two levels of VPERMT2PD (8
// shuffles) where VUNPCK and VSHUFF64X2 took three (12).
func (g *gen) transpose4(t dtype, a, b, c, d VecVirtual, idx [4]VecVirtual) [4]VecVirtual {
	w := zmm
	if !t.f64 {
		// perm(lo, hi, i): the values of lo (0…7) and hi (8…15) that
		// idx[i] picks, into a new register (VPERMT2PD overwrites its
		// first table).
		perm := func(lo, hi VecVirtual, i int) VecVirtual {
			dst := g.vec(w)
			g.VMOVAPD(lo, dst)
			g.VPERMT2PD(hi, idx[i], dst)
			return dst
		}
		// [a0 b0 a1 b1 a2 b2 a3 b3], [a4 b4 … a7 b7], the same of c, d.
		p, q, r, u := perm(a, b, 0), perm(a, b, 1), perm(c, d, 0), perm(c, d, 1)
		// [a0 b0 c0 d0 a1 b1 c1 d1], …
		return [4]VecVirtual{perm(p, r, 2), perm(p, r, 3), perm(q, u, 2), perm(q, u, 3)}
	}
	// shuf(A, B, imm): 128-bit lanes 0, 1 of A and 2, 3 of B, picked by imm.
	shuf := func(imm uint8, lo, hi, dst VecVirtual) { g.VSHUFF64X2(U8(imm), hi, lo, dst) }
	u0, u1, u2, u3 := g.vec(w), g.vec(w), g.vec(w), g.vec(w)
	shuf(0x44, a, b, u0)
	shuf(0xEE, a, b, u1)
	shuf(0x44, c, d, u2)
	shuf(0xEE, c, d, u3)
	out := [4]VecVirtual{a, b, c, d}
	shuf(0x88, u0, u2, out[0])
	shuf(0xDD, u0, u2, out[1])
	shuf(0x88, u1, u3, out[2])
	shuf(0xDD, u1, u3, out[3])
	return out
}

// transposeIndex loads into registers the VPERMT2PD indices of
// transpose4's complex64 form: two tables' 64-bit values interleaved,
// the low four of each ([0 8 1 9 2 10 3 11]) and the high four, then
// pairs of them ([0 1 8 9 2 3 10 11]) low and high.
func (g *gen) transposeIndex() [4]VecVirtual {
	tables := [4][8]uint64{
		{0, 8, 1, 9, 2, 10, 3, 11},
		{4, 12, 5, 13, 6, 14, 7, 15},
		{0, 1, 8, 9, 2, 3, 10, 11},
		{4, 5, 12, 13, 6, 7, 14, 15},
	}
	var idx [4]VecVirtual
	for i, tb := range tables {
		key := fmt.Sprintf("ffttridx%d", i)
		m, ok := g.consts[key]
		if !ok {
			m = g.StaticGlobal(key)
			g.DataAttributes(attr.RODATA | attr.NOPTR)
			for j, v := range tb {
				g.AddDatum(8*j, U64(v))
			}
			if g.consts == nil {
				g.consts = map[string]Mem{}
			}
			g.consts[key] = m
		}
		idx[i] = g.vec(zmm)
		g.VMOVUPD(m, idx[i])
	}
	return idx
}

// fftUnit emits <c|z>fft<r>u<w>: the last stage of radix r (m = 1, one
// sub-transform), whose twiddles are all 1, with s a multiple of w's
// complex values: for q < qn, the butterfly of x[q + s·k] into y[q + s·k].
func (g *gen) fftUnit(t dtype, w width, r int) {
	name := fmt.Sprintf("fft%du", r)
	sig := "func(y, x *%s, s, qn int, sgn *%[1]s)"
	if r == 2 {
		sig = "func(y, x *%s, s, qn int)"
	}
	g.fftFunc(t, w, name, sig,
		fmt.Sprintf("%s%s%s runs the last radix-%d Stockham stage (m = 1; its twiddles are 1): for q < qn,", cplx(t), name, w.name, r),
		fmt.Sprintf("the butterfly of x[q + s·k], k < %d, into y[q + s·k] (complex values): the whole stage", r),
		fmt.Sprintf("with qn = s, a part with y and x advanced to its first q. s and qn are multiples of %d.", w.bytes/(2*t.size)))
	cs := 2 * t.size
	y, x, sb, qb := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("y"), y)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("s"), sb)
	g.SHLQ(U8(log2(cs)), sb)
	g.Load(g.Param("qn"), qb)
	g.SHLQ(U8(log2(cs)), qb)
	var sgn VecVirtual
	sb3 := g.GP64()
	if r == 4 {
		mp := g.GP64()
		g.Load(g.Param("sgn"), mp)
		sgn = g.vec(w)
		g.vmovu(t, Mem{Base: mp}, sgn)
		g.LEAQ(Mem{Base: sb, Index: sb, Scale: 2}, sb3)
	}
	done := g.label("fftdone")
	g.TESTQ(qb, qb)
	g.JE(LabelRef(done))
	off := g.GP64()
	g.XORQ(off, off)
	loop := g.label("fftq")
	g.Label(loop)
	xo, yo := g.GP64(), g.GP64()
	g.LEAQ(Mem{Base: x, Index: off, Scale: 1}, xo)
	g.LEAQ(Mem{Base: y, Index: off, Scale: 1}, yo)
	vs := make([]VecVirtual, r)
	for k := range r {
		vs[k] = g.vec(w)
	}
	g.vmovu(t, Mem{Base: xo}, vs[0])
	g.vmovu(t, Mem{Base: xo, Index: sb, Scale: 1}, vs[1])
	if r == 4 {
		g.vmovu(t, Mem{Base: xo, Index: sb, Scale: 2}, vs[2])
		g.vmovu(t, Mem{Base: xo, Index: sb3, Scale: 1}, vs[3])
		g.butterfly4(t, w, vs[0], vs[1], vs[2], vs[3], sgn)
		g.vmovu(t, vs[0], Mem{Base: yo})
		g.vmovu(t, vs[1], Mem{Base: yo, Index: sb, Scale: 1})
		g.vmovu(t, vs[2], Mem{Base: yo, Index: sb, Scale: 2})
		g.vmovu(t, vs[3], Mem{Base: yo, Index: sb3, Scale: 1})
	} else {
		tmp := g.vec(w)
		g.vsub(t, vs[1], vs[0], tmp)
		g.vadd(t, vs[1], vs[0], vs[0])
		g.vmovu(t, vs[0], Mem{Base: yo})
		g.vmovu(t, tmp, Mem{Base: yo, Index: sb, Scale: 1})
	}
	g.ADDQ(U32(w.bytes), off)
	g.CMPQ(off, qb)
	g.JB(LabelRef(loop))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// fft16Transposed emits <c|z>fft16tAVX512: the first two stages, stride 1
// (A: m sub-transforms, n = 4m) and stride 4 (B: m/4), in one pass. B's
// butterfly p' at column q reads A's output q of butterflies p' + k'·m/4,
// k' < 4, so a vector of v consecutive p' (as fft4t's) loads A's sixteen
// inputs x[p' + (k' + 4k)·m/4] (k, k' < 4), runs A's four butterflies
// (twiddles as vectors, fft4t's table at p' + k'·m/4), then B's four, one
// per column k (twiddles: fft4t's table of a stride-1 stage of m/4 at p',
// the same for the four columns, so loaded once), and writes y[16p' + k +
// 4j] (B's output j): each group j of four vectors is transposed as
// fft4t's outputs (4 values of each p' side by side) and, complex64, each
// vector's halves stored apart, the high one under a mask, into the rows
// of two p'.
// The arithmetic is the two stages' (fft4t, then fft4p or fft4b), operation
// for operation: the result is theirs to the bit.
func (g *gen) fft16Transposed(t dtype) {
	w := zmm
	v := w.bytes / (2 * t.size)
	name := "fft16t"
	g.fftFunc(t, w, name, "func(y, x, twa, twb *%s, m, pn int, sgn *%[1]s)",
		fmt.Sprintf("%s%s%s runs the first two radix-4 Stockham stages, stride 1 over m sub-transforms", cplx(t), name, w.name),
		fmt.Sprintf("(twa: as %sfft4tAVX512's) and stride 4 over m/4 (twb: as %sfft4tAVX512's for m/4),", cplx(t), cplx(t)),
		"in one pass from x into y: for p' < pn, the first stage's butterflies p' + k'·m/4, k' < 4,",
		"and the second's p' of columns 0…3, into y[16p' + k + 4j]. pn = m/4: both stages; less: a",
		fmt.Sprintf("part, y, x advanced to p' (16p'), twa and twb to 3p'. m is a multiple of %d, pn of %d.", 4*v, v))
	cs := 2 * t.size
	y, x, twa, twb := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("y"), y)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("twa"), twa)
	g.Load(g.Param("twb"), twb)
	mp := g.GP64()
	g.Load(g.Param("sgn"), mp)
	sgn := g.vec(w)
	g.vmovu(t, Mem{Base: mp}, sgn)
	// Bytes: d = m/4·cs (x's distance between k' and k'+1), d4 = 4d
	// (between k and k+1), d12 = 12d, ta = 3·cs·m/4 (twa's between k'
	// and k'+1).
	d, d4, d12, ta := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("m"), d)
	g.SHRQ(U8(2), d)
	g.LEAQ(Mem{Base: d, Index: d, Scale: 2}, ta)
	g.SHLQ(U8(log2(cs)), ta)
	g.SHLQ(U8(log2(cs)), d)
	g.MOVQ(d, d4)
	g.SHLQ(U8(2), d4)
	g.LEAQ(Mem{Base: d4, Index: d4, Scale: 2}, d12)
	n := g.GP64()
	g.Load(g.Param("pn"), n)
	g.SHRQ(U8(log2(v)), n) // vector trips
	g.TESTQ(n, n)
	done := g.label("fftdone")
	g.JE(LabelRef(done))
	loop := g.label("fftt")
	g.Label(loop)
	var a [4][4]VecVirtual // a[k'][k]: A's butterfly p' + k'·m/4, input and then output k
	xo, to := g.GP64(), g.GP64()
	g.MOVQ(x, xo)
	g.MOVQ(twa, to)
	tmp, wr, wi := g.vec(w), g.vec(w), g.vec(w)
	for kp := range 4 {
		for k := range 4 {
			a[kp][k] = g.vec(w)
		}
		g.vmovu(t, Mem{Base: xo}, a[kp][0])
		g.vmovu(t, Mem{Base: xo, Index: d4, Scale: 1}, a[kp][1])
		g.vmovu(t, Mem{Base: xo, Index: d4, Scale: 2}, a[kp][2])
		g.vmovu(t, Mem{Base: xo, Index: d12, Scale: 1}, a[kp][3])
		g.butterfly4(t, w, a[kp][0], a[kp][1], a[kp][2], a[kp][3], sgn)
		for k := 1; k < 4; k++ {
			g.loadTwiddleVec(t, Mem{Base: to, Disp: (k - 1) * w.bytes}, wr, wi)
			g.cmul(t, w, a[kp][k], wr, wi, tmp)
		}
		if kp < 3 {
			g.ADDQ(d, xo)
			g.ADDQ(ta, to)
		}
	}
	// B's butterfly over k' for each column k: a[j][k] becomes its output j.
	// Its twiddles are the same for the four columns: loaded (and spread
	// into real and imaginary parts) once, 6 registers beside the 16
	// values, the butterfly's 3 temporaries, tmp and sgn.
	var br, bi [3]VecVirtual
	for j := range 3 {
		br[j], bi[j] = g.vec(w), g.vec(w)
		g.loadTwiddleVec(t, Mem{Base: twb, Disp: j * w.bytes}, br[j], bi[j])
	}
	for k := range 4 {
		g.butterfly4(t, w, a[0][k], a[1][k], a[2][k], a[3][k], sgn)
		for j := 1; j < 4; j++ {
			g.cmul(t, w, a[j][k], br[j-1], bi[j-1], tmp)
		}
	}
	// Group j (B's output j, columns k = 0…3) goes to y[16p' + 4j + k].
	// complex64's transpose indices, loaded again each trip: B's twiddles
	// are done with, and there are not registers for both.
	var idx [4]VecVirtual
	if !t.f64 {
		idx = g.transposeIndex()
	}
	row := 16 * cs // a p' row's bytes
	if t.f64 {
		// A transposed group's vector i is p' = i's 4 values: a zmm each.
		for j := range 4 {
			out := g.transpose4(t, a[j][0], a[j][1], a[j][2], a[j][3], idx)
			for i, o := range out {
				g.vmovu(t, o, Mem{Base: y, Disp: i*row + 4*j*cs})
			}
		}
	} else {
		// A transposed group's vector i holds p' = 2i's 4 values, then
		// 2i+1's: its low half is stored as it is, its high half by the
		// whole vector under a mask of that half, half a vector before
		// (joining two groups' halves into a row's 8 took a shuffle a
		// vector).
		hiMask := g.K() // the high 8 float32 lanes
		mk := g.GP32()
		g.MOVL(U32(0xFF00), mk)
		g.KMOVW(mk, hiMask)
		for j := range 4 {
			out := g.transpose4(t, a[j][0], a[j][1], a[j][2], a[j][3], idx)
			for i, o := range out {
				g.VMOVUPS(o.AsY(), Mem{Base: y, Disp: 2*i*row + 4*j*cs})
				g.VMOVUPS(o, hiMask, Mem{Base: y, Disp: (2*i+1)*row + 4*j*cs - w.bytes/2})
			}
		}
	}
	g.ADDQ(U32(w.bytes), x)
	g.ADDQ(U32(v*row), y)
	g.ADDQ(U32(3*w.bytes), twa)
	g.ADDQ(U32(3*w.bytes), twb)
	g.DECQ(n)
	g.JNE(LabelRef(loop))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// fft4Pairs emits cfft4pAVX512: the radix-4 stage whose stride s is half
// a zmm vector, so that a vector holds the q < s of two sub-transforms p
// and p+1, whose inputs lie side by side (x[q + s·p] and x[q + s·(p+1)]).
// Their outputs lie 4·s apart: each vector's low half is stored with p's,
// its high half with p+1's (the whole vector stored under a mask of its
// high half: a VEXTRACTF64X4 to memory took a shuffle besides the store;
// the stage ran 74–75 ns instead of 79 at 1 Ki on the Zen 5 VM). The
// twiddles come as whole vectors, duplicated by the loads themselves,
// which the ymm form, broadcasting each p's, needed twice the passes for.
func (g *gen) fft4Pairs(t dtype) {
	w := zmm
	v := w.bytes / (2 * t.size)
	s := v / 2
	name := "fft4p"
	g.fftFunc(t, w, name, "func(y, x, tw *%s, m, pn int, sgn *%[1]s)",
		fmt.Sprintf("%s%s%s runs a radix-4 Stockham stage of stride s = %d as %sfft4bAVX2 does, two p", cplx(t), name, w.name, s, cplx(t)),
		fmt.Sprintf("a vector: tw holds, per pair of p, for k = 1…3 %d values W^kp then %d of W^k(p+1).", s, s),
		"pn (the p it runs, y, x and tw advanced to the first) and m are even.")
	cs := 2 * t.size
	y, x, tw, m := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("y"), y)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("tw"), tw)
	g.Load(g.Param("m"), m)
	mp := g.GP64()
	g.Load(g.Param("sgn"), mp)
	sgn := g.vec(w)
	g.vmovu(t, Mem{Base: mp}, sgn)
	xm, xm3 := g.GP64(), g.GP64() // x's distance between k and k+1: s·m values
	g.MOVQ(m, xm)
	g.SHLQ(U8(log2(s*cs)), xm)
	g.LEAQ(Mem{Base: xm, Index: xm, Scale: 2}, xm3)
	hiMask := g.K() // the high 8 float32 lanes
	mk := g.GP32()
	g.MOVL(U32(0xFF00), mk)
	g.KMOVW(mk, hiMask)
	g.Load(g.Param("pn"), m)
	g.SHRQ(U8(1), m) // pairs
	g.TESTQ(m, m)
	done := g.label("fftdone")
	g.JE(LabelRef(done))
	loop := g.label("fftp")
	g.Label(loop)
	a, b, c, d := g.vec(w), g.vec(w), g.vec(w), g.vec(w)
	g.vmovu(t, Mem{Base: x}, a)
	g.vmovu(t, Mem{Base: x, Index: xm, Scale: 1}, b)
	g.vmovu(t, Mem{Base: x, Index: xm, Scale: 2}, c)
	g.vmovu(t, Mem{Base: x, Index: xm3, Scale: 1}, d)
	g.butterfly4(t, w, a, b, c, d, sgn)
	wr, wi, tmp := g.vec(w), g.vec(w), g.vec(w)
	for k, u := range []VecVirtual{b, c, d} {
		tw := Mem{Base: tw, Disp: k * w.bytes}
		g.VMOVSLDUP(tw, wr)
		g.VMOVSHDUP(tw, wi)
		g.cmul(t, w, u, wr, wi, tmp)
	}
	// y[q + s·(4p + k)]: the low halves at k·s, the high ones 4·s further,
	// stored by a whole vector under a mask of its high half, half a
	// vector before (an extract to memory takes a shuffle besides).
	half := s * cs
	for k, u := range []VecVirtual{a, b, c, d} {
		g.VMOVUPS(u.AsY(), Mem{Base: y, Disp: k * half})
		g.VMOVUPS(u, hiMask, Mem{Base: y, Disp: (4+k)*half - half})
	}
	g.ADDQ(U32(w.bytes), x)
	g.ADDQ(U32(8*half), y)
	g.ADDQ(U32(3*w.bytes), tw)
	g.DECQ(m)
	g.JNE(LabelRef(loop))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}
