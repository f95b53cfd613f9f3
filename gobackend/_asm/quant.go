package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Quantization kernels (gobackend/quant): f32 ↔ i8/u8 with a scale and a
// zero point, and f32 ↔ bf16/f16. Each takes n, a multiple of its block
// (64 elements for AVX-512, 32 for AVX2), and leaves the rest to the Go
// wrapper's generic code, which computes the same bits. Rounding is
// VCVTPS2DQ's in the default MXCSR mode: to nearest, ties to even.
//
// Quantize and dequantize come twice: with ordinary stores, and with
// non-temporal ones (the NT kernels: VMOVNTDQ, VMOVNTPS, then SFENCE),
// which write whole lines without first reading them (no read for
// ownership) and past the caches. The NT kernels need the output aligned
// to 64 bytes; the Go wrapper runs the head before it with the generic
// code and decides when to use them (quant's quantizeNT and dequantizeNT,
// from the tune parameters nontemporal.*).

// quantPrefetch is how far ahead, in bytes of x, quantize prefetches its
// input (PREFETCHT0, one a 64-byte line): past the cache the hardware
// prefetchers alone left it at 21.7–26.8 GB/s over 80 MiB on one thread of
// the 2-vCPU Intel VM (docs/architecture.md, "Quantization"), 28.8 with
// 4 KiB, 29.3 with 8 and 29.2 with 16 (interleaved, twice); two threads
// 54.6 → 57.1.
const quantPrefetch = 8 << 10

// qblock is the elements one loop trip covers.
func qblock(w width) int {
	if w == zmm {
		return 64
	}
	return 32
}

func genQuant(g *gen) {
	for _, w := range []width{ymm, zmm} {
		for _, u8 := range []bool{false, true} {
			for _, nt := range []bool{false, true} {
				g.quantize(w, u8, nt)
				g.dequantize(w, u8, nt)
			}
		}
		g.scaleBias(w)
		g.toBF16(w)
		g.toF16(w)
		g.fromBF16(w)
		g.fromF16(w)
	}
	g.toBF16Native()
}

// quantFunc declares a quantization kernel.
func (g *gen) quantFunc(name, sig string, doc ...string) {
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(sig)
	g.Pragma("noescape")
	g.Doc(doc...)
}

// blocks emits a loop over n (a multiple of step) elements: body, then
// each pointer advanced by its bytes per element times step.
func (g *gen) blocks(n Register, step int, ptrs []Register, sizes []int, body func()) {
	loop, done := g.label("qloop"), g.label("qdone")
	g.Label(loop)
	g.TESTQ(n, n)
	g.JZ(LabelRef(done))
	body()
	for i, p := range ptrs {
		g.ADDQ(U32(step*sizes[i]), p)
	}
	g.SUBQ(U32(step), n)
	g.JMP(LabelRef(loop))
	g.Label(done)
}

// paramAddr is the stack slot of a parameter, for broadcasts from memory.
func (g *gen) paramAddr(name string) Mem {
	b, err := g.Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// broadcastInt32 fills v with an int32 parameter, through a general
// register (vet's asmdecl takes a 4-byte VPBROADCASTD from the frame for a
// size mismatch).
func (g *gen) broadcastInt32(param string, v VecVirtual) {
	r, x := g.GP32(), g.XMM()
	g.Load(g.Param(param), r)
	g.VMOVD(r, x)
	g.VPBROADCASTD(x, v)
}

// broadcastInt16 fills v's words with the low 16 bits of an int32
// parameter.
func (g *gen) broadcastInt16(param string, v VecVirtual) {
	r, x := g.GP32(), g.XMM()
	g.Load(g.Param(param), r)
	g.VMOVD(r, x)
	g.VPBROADCASTW(x, v)
}

func intName(u8 bool) string {
	if u8 {
		return "U8"
	}
	return "I8"
}

// quantize emits q[i] = clamp(rne(x[i]·inv) + zp): the product is clamped
// above to 512 (beyond it every zero point in range saturates alike, and
// VCVTPS2DQ would turn ≥ 2³¹ into −2³¹), converted and packed to words
// with saturation, the zero point (in the output type's range) added to
// the words, and packed to bytes with saturation (u8: unsigned from the
// signed words, so negatives become 0). Below, VCVTPS2DQ's −2³¹ for
// ≤ −2³¹ and the packs' saturation stand in for a lower clamp. A block's
// 64 (AVX-512) or 32 (AVX2) bytes are one store; with nt a non-temporal
// one to q, which must be aligned to them.
func (g *gen) quantize(w width, u8, nt bool) {
	name := fmt.Sprintf("quantize%s%s%s", intName(u8), w.name, ntSuffix(nt))
	g.quantFunc(name, "func(n int, x *float32, inv float32, zp int32, q *byte)",
		fmt.Sprintf("%s sets q[i] = clamp(rne(x[i]·inv) + zp) to the %s range for i < n, n a multiple of %d, zp in that range%s.", name, intName(u8), qblock(w), ntDoc(nt, "q")))
	n, x, q := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("q"), q)
	inv, zp, hi := g.vec(w), g.vec(w), g.vec(w)
	g.VBROADCASTSS(g.paramAddr("inv"), inv)
	g.broadcastInt16("zp", zp)
	g.VBROADCASTSS(g.sconst(f32, "qhi", 0x44000000), hi) // 512
	perm := g.vec(w)
	g.VMOVDQU32orU(w, g.permTable(w), perm)
	g.blocks(n, qblock(w), []Register{x, q}, []int{4, 1}, func() {
		var ints [4]VecVirtual
		for u := range 4 {
			if (u*w.bytes)%64 == 0 {
				g.PREFETCHT0(Mem{Base: x, Disp: quantPrefetch + u*w.bytes})
			}
			a := g.vec(w)
			g.VMULPS(Mem{Base: x, Disp: u * w.bytes}, inv, a)
			g.VMINPS(hi, a, a)
			g.VCVTPS2DQ(a, a)
			ints[u] = a
		}
		// dwords → words (+ zp) → bytes within 128-bit lanes, then VPERMD
		// puts the groups of four back in order: four shuffles a block,
		// where a VPMOVSDB per vector and three VINSERTI32X4 took eleven
		// shuffle uops and 1.06–1.4× the time in L1 and L2 (Zen 5 VM).
		// The zero point on the words is two adds a block, not four.
		lo16, hi16 := g.vec(w), g.vec(w)
		g.VPACKSSDW(ints[1], ints[0], lo16)
		g.VPACKSSDW(ints[3], ints[2], hi16)
		g.VPADDSW(zp, lo16, lo16)
		g.VPADDSW(zp, hi16, hi16)
		if u8 {
			g.VPACKUSWB(hi16, lo16, lo16)
		} else {
			g.VPACKSSWB(hi16, lo16, lo16)
		}
		g.VPERMD(lo16, perm, lo16)
		if nt {
			g.VMOVNTDQ(lo16, Mem{Base: q})
		} else {
			g.VMOVDQU32orU(w, lo16, Mem{Base: q})
		}
	})
	g.end(nt)
}

// end closes a kernel: SFENCE after non-temporal stores (they are weakly
// ordered: the fence makes them visible before the call returns, to the
// thread that joins this one too), VZEROUPPER, RET.
func (g *gen) end(nt bool) {
	if nt {
		g.SFENCE()
	}
	g.VZEROUPPER()
	g.RET()
}

func ntSuffix(nt bool) string {
	if nt {
		return "NT"
	}
	return ""
}

// ntDoc is the doc comment's note on an NT kernel's output.
func ntDoc(nt bool, out string) string {
	if nt {
		return fmt.Sprintf(", by non-temporal stores (%s aligned to 64 bytes)", out)
	}
	return ""
}

// permTable is VPERMD's index after the two packs of a block: packed
// dword 4L + j holds elements 4L…4L+3 of the block's vector j (L its
// 128-bit lane), so output dword d takes packed dword 4·(d % lanes) + d /
// lanes.
func (g *gen) permTable(w width) Mem {
	lanes := w.bytes / 16
	name := fmt.Sprintf("qperm%d", 4*lanes)
	if m, ok := g.consts[name]; ok {
		return m
	}
	m := g.StaticGlobal(name)
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for d := range 4 * lanes {
		g.AddDatum(4*d, U32(4*(d%lanes)+d/lanes))
	}
	if g.consts == nil {
		g.consts = map[string]Mem{}
	}
	g.consts[name] = m
	return m
}

// dequantize emits x[i] = scale·(q[i] − zp): widen, subtract, convert
// (exact), one rounding multiply; with nt, stored by VMOVNTPS. It reads a
// fifth of what it moves: prefetching q 1–4 KiB ahead changed nothing
// (26.4–26.7 GB/s over 80 MiB, one thread, the VM of quantPrefetch), nor
// did PREFETCHT0 of x's lines 4 KiB ahead in L1 and L2 (0.98–1.02× the
// speed at AVX-512, 0.83–0.86× at AVX2 over 64 Ki; Zen 5 Turin VM).
func (g *gen) dequantize(w width, u8, nt bool) {
	name := fmt.Sprintf("dequantize%s%s%s", intName(u8), w.name, ntSuffix(nt))
	g.quantFunc(name, "func(n int, q *byte, scale float32, zp int32, x *float32)",
		fmt.Sprintf("%s sets x[i] = scale·(q[i] − zp) for i < n, n a multiple of %d%s.", name, qblock(w), ntDoc(nt, "x")))
	n, q, x := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("q"), q)
	g.Load(g.Param("x"), x)
	scale, zp := g.vec(w), g.vec(w)
	g.VBROADCASTSS(g.paramAddr("scale"), scale)
	g.broadcastInt32("zp", zp)
	lanes := w.bytes / 4
	g.blocks(n, qblock(w), []Register{q, x}, []int{1, 4}, func() {
		for u := range qblock(w) / lanes {
			a := g.vec(w)
			src := Mem{Base: q, Disp: u * lanes}
			if u8 {
				g.VPMOVZXBD(src, a)
			} else {
				g.VPMOVSXBD(src, a)
			}
			g.VPSUBD(zp, a, a)
			g.VCVTDQ2PS(a, a)
			g.VMULPS(scale, a, a)
			if nt {
				g.VMOVNTPS(a, Mem{Base: x, Disp: u * w.bytes})
				continue
			}
			g.VMOVUPS(a, Mem{Base: x, Disp: u * w.bytes})
		}
	})
	g.end(nt)
}

// scaleBias emits y[i] = fl(fl(s·f32(c[i])) + bias[i]): qlinear's
// epilogue over a row of its int32 sums, three roundings as the generic
// code's, no fused multiply-add. Each vector is loaded before it is
// stored, so y may be c's own memory.
func (g *gen) scaleBias(w width) {
	name := "scaleBias" + w.name
	g.quantFunc(name, "func(n int, c *int32, s float32, bias *float32, y *float32)",
		fmt.Sprintf("%s sets y[i] = s·c[i] + bias[i], rounded after each step, for i < n, n a multiple of %d; y may be c.", name, qblock(w)))
	n, c, b, y := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("c"), c)
	g.Load(g.Param("bias"), b)
	g.Load(g.Param("y"), y)
	sv := g.vec(w)
	g.VBROADCASTSS(g.paramAddr("s"), sv)
	lanes := w.bytes / 4
	g.blocks(n, qblock(w), []Register{c, b, y}, []int{4, 4, 4}, func() {
		for u := range qblock(w) / lanes {
			a := g.vec(w)
			g.VCVTDQ2PS(Mem{Base: c, Disp: u * w.bytes}, a)
			g.VMULPS(sv, a, a)
			g.VADDPS(Mem{Base: b, Disp: u * w.bytes}, a, a)
			g.VMOVUPS(a, Mem{Base: y, Disp: u * w.bytes})
		}
	})
	g.end(false)
}

// toBF16 emits y[i] = bf16(x[i]) by integer rounding of the bits, for CPUs
// without VCVTNEPS2BF16: (b + 0x7fff + (b>>16 & 1)) >> 16, ties to even,
// overflow to ±Inf; a NaN keeps its top bits with the quiet bit set.
func (g *gen) toBF16(w width) {
	name := "toBF16" + w.name
	g.quantFunc(name, "func(n int, x *float32, y *uint16)",
		fmt.Sprintf("%s sets y[i] = bf16(x[i]), rounded to nearest even, for i < n, n a multiple of %d.", name, qblock(w)))
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	one, half, quiet := g.vec(w), g.vec(w), g.vec(w)
	g.VPBROADCASTD(g.sconst(f32, "bfone", 1), one)
	g.VPBROADCASTD(g.sconst(f32, "bfhalf", 0x7fff), half)
	g.VPBROADCASTD(g.sconst(f32, "bfquiet", 0x40), quiet)
	g.blocks(n, qblock(w), []Register{x, y}, []int{4, 2}, func() {
		var r [4]VecVirtual
		for u := range 4 {
			a, t := g.vec(w), g.vec(w)
			g.VMOVUPS(Mem{Base: x, Disp: u * w.bytes}, a)
			g.VPSRLD(U8(16), a, t)
			g.vpand(one, t, t, w)
			g.VPADDD(half, t, t)
			g.VPADDD(a, t, t)
			g.VPSRLD(U8(16), t, t)
			nanBits := g.vec(w)
			g.VPSRLD(U8(16), a, nanBits)
			g.vpor(quiet, nanBits, nanBits, w)
			if w == zmm {
				k := g.K()
				g.VCMPPS(U8(3), a, a, k) // unordered: NaN
				g.VMOVDQA32(nanBits, k, t)
				g.VPMOVDW(t, Mem{Base: y, Disp: u * 32})
				continue
			}
			m := g.vec(w)
			g.VCMPPS(U8(3), a, a, m)
			g.VPBLENDVB(m, nanBits, t, t)
			r[u] = t
		}
		if w == zmm {
			return
		}
		// AVX2: two vectors of dwords (≤ 0xffff) → one of words, lanes
		// interleaved, which VPERMQ puts back in order.
		for p := range 2 {
			g.VPACKUSDW(r[2*p+1], r[2*p], r[2*p])
			g.VPERMQ(U8(0xd8), r[2*p], r[2*p])
			g.VMOVDQU(r[2*p], Mem{Base: y, Disp: p * 32})
		}
	})
	g.VZEROUPPER()
	g.RET()
}

// vpand and vpor are VPAND and VPOR at either width (VPANDD and VPORD for zmm).
func (g *gen) vpand(a, b, dst Op, w width) {
	if w == zmm {
		g.Context.VPANDD(a, b, dst)
		return
	}
	g.Context.VPAND(a, b, dst)
}

func (g *gen) vpor(a, b, dst Op, w width) {
	if w == zmm {
		g.Context.VPORD(a, b, dst)
		return
	}
	g.Context.VPOR(a, b, dst)
}

// toBF16Native emits the conversion with AVX512-BF16's VCVTNEPS2BF16
// (round to nearest even; it does not consult MXCSR and flushes subnormal
// inputs and outputs to zero). Go's assembler does not know the
// instruction, so it is written as bytes, over fixed registers.
func (g *gen) toBF16Native() {
	name := "toBF16AVX512BF16"
	g.quantFunc(name, "func(n int, x *float32, y *uint16)",
		fmt.Sprintf("%s sets y[i] = bf16(x[i]) by VCVTNEPS2BF16 for i < n, n a multiple of 64. It needs AVX512-BF16.", name))
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	src := []VecPhysical{Z0, Z1, Z2, Z3}
	dst := []VecPhysical{Y4, Y5, Y6, Y7}
	g.blocks(n, 64, []Register{x, y}, []int{4, 2}, func() {
		for u := range 4 {
			g.VMOVUPS(Mem{Base: x, Disp: u * 64}, src[u])
		}
		for u := range 4 {
			// VCVTNEPS2BF16 zmm(src), ymm(dst): EVEX.512.F3.0F38.W0 72 /r.
			modrm := 0xc0 | byte(4+u)<<3 | byte(u)
			for _, b := range []byte{0x62, 0xf2, 0x7e, 0x48, 0x72, modrm} {
				g.Instruction(&ir.Instruction{Opcode: "BYTE", Operands: []Op{U8(b)}})
			}
		}
		for u := range 4 {
			g.VMOVDQU(dst[u], Mem{Base: y, Disp: u * 32})
		}
	})
	g.VZEROUPPER()
	g.RET()
}

// toF16 emits y[i] = f16(x[i]) with VCVTPS2PH, rounding to nearest even
// (imm 0), subnormals and overflow to ±Inf as IEEE has them. The AVX2 form
// needs F16C. It converts into a register and stores that: VCVTPS2PH with
// a memory destination took 2.4–2.5× the time in L1 and 1.1–2.4× in L2
// (one thread, 4 and 64 Ki elements, both widths, Zen 5 VM); the
// register form plus a store is the same work wherever the memory form is
// not slower.
func (g *gen) toF16(w width) {
	name := "toF16" + w.name
	g.quantFunc(name, "func(n int, x *float32, y *uint16)",
		fmt.Sprintf("%s sets y[i] = f16(x[i]), rounded to nearest even, for i < n, n a multiple of %d.", name, qblock(w)))
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	g.blocks(n, qblock(w), []Register{x, y}, []int{4, 2}, func() {
		for u := range 4 {
			a := g.vec(w)
			g.VMOVUPS(Mem{Base: x, Disp: u * w.bytes}, a)
			g.VCVTPS2PH(U8(0), a, lowHalf(a))
			g.VMOVDQU(lowHalf(a), Mem{Base: y, Disp: u * w.bytes / 2})
		}
	})
	g.VZEROUPPER()
	g.RET()
}

// fromBF16 emits y[i] = f32(x[i]): the bits widened and shifted (exact).
func (g *gen) fromBF16(w width) {
	name := "fromBF16" + w.name
	g.quantFunc(name, "func(n int, x *uint16, y *float32)",
		fmt.Sprintf("%s sets y[i] = f32(x[i]) for i < n, n a multiple of %d.", name, qblock(w)))
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	g.blocks(n, qblock(w), []Register{x, y}, []int{2, 4}, func() {
		for u := range 4 {
			a := g.vec(w)
			g.VPMOVZXWD(Mem{Base: x, Disp: u * w.bytes / 2}, a)
			g.VPSLLD(U8(16), a, a)
			g.VMOVUPS(a, Mem{Base: y, Disp: u * w.bytes})
		}
	})
	g.VZEROUPPER()
	g.RET()
}

// fromF16 emits y[i] = f32(x[i]) with VCVTPH2PS (exact).
func (g *gen) fromF16(w width) {
	name := "fromF16" + w.name
	g.quantFunc(name, "func(n int, x *uint16, y *float32)",
		fmt.Sprintf("%s sets y[i] = f32(x[i]) for i < n, n a multiple of %d.", name, qblock(w)))
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	g.blocks(n, qblock(w), []Register{x, y}, []int{2, 4}, func() {
		for u := range 4 {
			a := g.vec(w)
			g.VCVTPH2PS(Mem{Base: x, Disp: u * w.bytes / 2}, a)
			g.VMOVUPS(a, Mem{Base: y, Disp: u * w.bytes})
		}
	})
	g.VZEROUPPER()
	g.RET()
}
