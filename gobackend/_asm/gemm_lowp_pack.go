package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Packing of the low-precision GEMM's B (and of A stored with k down its
// rows) where k runs across rows of the source: a word of the panel is
// a group of values from consecutive rows of one column, the first in
// the low bits (gobackend/gemm: packLines). Go's compiler makes that a
// gather of scalars, a nanosecond or two per word, which cost 20–30% of
// a 1024³ AMX GEMM; widening 16 columns of each row into the lanes of a
// zmm (VPMOVZXWD, VPMOVZXBD), shifting and ORing them builds 16 words in a
// few instructions. AVX-512 (F and BW), for the kernels that run only
// at that level.

func genLowpPack(g *gen) {
	g.lowpPack("lowpPackPairsAVX512", 2)
	g.lowpPack("lowpPackQuadsAVX512", 4)
}

// lowpPack emits a packer of groups of n rows: for each step p < steps,
// dst[p*w+l] = the n values src[(n*p+q)*ld + l], q < n, in lanes of
// 32/n bits, XORed with x, for l < 16·vecs.
func (g *gen) lowpPack(name string, n int) {
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(src *byte, ld, steps int, dst *uint32, w, vecs int, x uint32)")
	size := 4 / n // bytes per value
	g.Doc(
		name+" sets dst[p*w+l], for p < steps and l < 16·vecs, to the",
		"word of the "+[]string{"", "", "two 16-bit", "", "four 8-bit"}[n]+" values src[(n·p+q)·ld+l] (n = "+string(rune('0'+n))+", q < n,",
		"ld in values), the first in the low bits, XORed with x. steps, vecs ≥ 1.",
	)
	g.Load(g.Param("src"), RSI)
	g.Load(g.Param("ld"), RDX)
	g.Load(g.Param("steps"), RCX)
	g.Load(g.Param("dst"), RDI)
	g.Load(g.Param("w"), R8)
	g.Load(g.Param("vecs"), R9)
	g.Load(g.Param("x"), EAX)
	if size == 2 {
		g.SHLQ(U8(1), RDX) // ld in bytes
	}
	g.SHLQ(U8(2), R8) // w in bytes
	g.SHLQ(U8(6), R9) // 16·vecs words, in bytes
	g.VPBROADCASTD(EAX, Z31)
	g.MOVQ(RDX, RAX)
	g.SHLQ(U8(map[int]uint8{2: 1, 4: 2}[n]), RAX) // n·ld: a step's rows
	g.MOVQ(RAX, R15)
	g.SHLQ(U8(packAheadLog), R15) // packAhead steps

	step, vec := g.label("step"), g.label("vec")
	g.Label(step)
	g.LEAQ(Mem{Base: RSI, Index: RDX, Scale: 1}, R10) // row 1 of the step
	if n == 4 {
		g.LEAQ(Mem{Base: RSI, Index: RDX, Scale: 2}, R11) // row 2
		g.LEAQ(Mem{Base: R10, Index: RDX, Scale: 2}, R12) // row 3
	}
	g.prefetchPackRows(n)
	g.XORQ(RBX, RBX) // byte offset of 16 columns in the source rows
	g.XORQ(R13, R13) // and in dst
	g.Label(vec)
	if n == 2 {
		g.VPMOVZXWD(Mem{Base: RSI, Index: RBX, Scale: 1}, Z0)
		g.VPMOVZXWD(Mem{Base: R10, Index: RBX, Scale: 1}, Z1)
		g.VPSLLD(U8(16), Z1, Z1)
		g.VPTERNLOGD(U8(0x96), Z31, Z1, Z0) // z0 ^ z1 ^ x: the lanes do not overlap
	} else {
		g.VPMOVZXBD(Mem{Base: RSI, Index: RBX, Scale: 1}, Z0)
		g.VPMOVZXBD(Mem{Base: R10, Index: RBX, Scale: 1}, Z1)
		g.VPMOVZXBD(Mem{Base: R11, Index: RBX, Scale: 1}, Z2)
		g.VPMOVZXBD(Mem{Base: R12, Index: RBX, Scale: 1}, Z3)
		g.VPSLLD(U8(8), Z1, Z1)
		g.VPSLLD(U8(16), Z2, Z2)
		g.VPSLLD(U8(24), Z3, Z3)
		g.VPTERNLOGD(U8(0x96), Z31, Z1, Z0) // z0 ^ z1 ^ x
		g.VPTERNLOGD(U8(0x96), Z3, Z2, Z0)  // ^ z2 ^ z3
	}
	g.VMOVDQU32(Z0, Mem{Base: RDI, Index: R13, Scale: 1})
	g.ADDQ(U8(16*size), RBX)
	g.ADDQ(U8(64), R13)
	g.CMPQ(R13, R9)
	g.JB(LabelRef(vec))
	g.ADDQ(RAX, RSI)
	g.ADDQ(R8, RDI)
	g.DECQ(RCX)
	g.JNZ(LabelRef(step))
	g.VZEROUPPER()
	g.RET()
}

// packAheadLog is log₂ of how many steps ahead the packer prefetches its
// source rows. Each step's rows are ld apart, a page or more once ld is
// 1024 i8 or 2048 bf16: the hardware prefetchers, which stay within a
// page, leave every row of a cold source to be read when it is reached.
const packAheadLog = 3

// prefetchPackRows prefetches (PREFETCHT0) the first line of the n rows
// packAhead steps on from RSI (R15 bytes on; row stride RDX), into R14.
// A prefetch past the source's end does not fault.
func (g *gen) prefetchPackRows(n int) {
	g.LEAQ(Mem{Base: RSI, Index: R15, Scale: 1}, R14)
	g.PREFETCHT0(Mem{Base: R14})
	g.PREFETCHT0(Mem{Base: R14, Index: RDX, Scale: 1})
	if n == 4 {
		g.PREFETCHT0(Mem{Base: R14, Index: RDX, Scale: 2})
		g.LEAQ(Mem{Base: R14, Index: RDX, Scale: 2}, R14)
		g.PREFETCHT0(Mem{Base: R14, Index: RDX, Scale: 1})
	}
}

// The i8 GEMM on VPDPBUSD packs A + 128 and starts each column j of a
// panel of B from −128·Σ (the bytes of the column's words) (gemm:
// biasCorrection). Summed in Go, a word at a time, that took about 0.4 ms
// of a 1024³ i8 GEMM's 3 (a sixth) on the Zen 5 VM, where the u8s8 GEMM,
// which needs none, ran that much faster. VPMADDUBSW of the bytes 1 (u8)
// by B's bytes (s8) makes pair sums (|Σ| ≤ 256: exact in int16) and
// VPMADDWD by −1 the negated quad sums in int32: two instructions per
// eight words, AVX2, so both VNNI kernels (zmm, and AVX-VNNI's ymm) can
// use it.

func genLowpBias(g *gen) {
	for _, nr := range []int{16, 32} {
		g.lowpBias(nr)
	}
}

// lowpBias emits lowpBias<nr>AVX2(panel *uint32, kg int, init *int32):
// init[j] = −128·Σ_{p<kg} (the four signed bytes of panel[p·nr+j]).
func (g *gen) lowpBias(nr int) {
	name := fmt.Sprintf("lowpBias%dAVX2", nr)
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(panel *uint32, kg int, init *int32)")
	g.Doc(
		name+" sets init[j], j < "+fmt.Sprint(nr)+", to −128 times the sum of the four signed bytes",
		"of the words panel[p·"+fmt.Sprint(nr)+"+j], p < kg: the start of the i8 GEMM's",
		"accumulators on VPDPBUSD, whose A is biased by +128. kg ≥ 1.",
	)
	nv := nr / 8
	g.Load(g.Param("panel"), RSI)
	g.Load(g.Param("kg"), RCX)
	g.Load(g.Param("init"), RDI)
	ones, neg := Y15, Y14 // bytes 1; int16 −1
	g.MOVL(U32(0x01010101), EAX)
	g.VMOVD(EAX, X15)
	g.VPBROADCASTD(X15, ones)
	g.VPCMPEQD(neg, neg, neg)
	acc := func(j int) VecPhysical { return []VecPhysical{Y0, Y1, Y2, Y3}[j] }
	tmp := func(j int) VecPhysical { return []VecPhysical{Y4, Y5, Y6, Y7}[j] }
	for j := 0; j < nv; j++ {
		g.VPXOR(acc(j), acc(j), acc(j))
	}
	loop := g.label("step")
	g.Label(loop)
	// Pair sums of 32 steps of bytes stay within int16 (|Σ| ≤ 8192), but
	// one step at a time keeps the loop short; the panel is in L1.
	for j := 0; j < nv; j++ {
		g.VPMADDUBSW(Mem{Base: RSI, Disp: 32 * j}, ones, tmp(j))
		g.VPMADDWD(neg, tmp(j), tmp(j))
		g.VPADDD(tmp(j), acc(j), acc(j))
	}
	g.ADDQ(U32(4*nr), RSI)
	g.DECQ(RCX)
	g.JNZ(LabelRef(loop))
	for j := 0; j < nv; j++ {
		g.VPSLLD(U8(7), acc(j), acc(j))
		g.VMOVDQU(acc(j), Mem{Base: RDI, Disp: 32 * j})
	}
	g.VZEROUPPER()
	g.RET()
}

// Packing of lines whose k values are contiguous (A not transposed, the
// usual case): word p of line l goes to dst[p·w+l], a transpose of words.
// Go's loop stores a word at a time at a stride of w words, and took 8–11%
// of a 1024³ bf16, i8 or u8s8 GEMM on the 14×32 zmm kernels on the Zen 5
// VM (pprof, one thread). lowpPackRowsAVX512 loads 16 words of each of up
// to 16 lines, transposes the 16×16 words in registers (VPUNPCK{L,H}DQ,
// VPUNPCK{L,H}QDQ, then two rounds of VSHUFI32X4 across 128-bit lanes) and
// stores each step's w words under a mask.

//
// The f32 kernels that bf16 and f16 are widened for (where the dedicated
// instruction is slower, or there is none) pack one value per word: the
// same transpose after a widening load (VCVTPH2PS, exact; VPMOVZXWD and a
// shift for bf16), lowpPackRows{F16,BF16}AVX512; and, where k runs down
// the source's rows, lowpWidenSteps{F16,BF16}AVX512 widen 16 values of a
// row at a time. Go widened f16 through a table a value at a time, which
// left the 1024³ f16 GEMM at 73% of the f32 FMA peak on the Zen 5 VM.

func genLowpPackRows(g *gen) {
	g.lowpPackRows("", "lowpPackRowsAVX512")
	g.lowpPackRows("f16", "lowpPackRowsF16AVX512")
	g.lowpPackRows("bf16", "lowpPackRowsBF16AVX512")
	g.lowpWidenSteps("f16", "lowpWidenStepsF16AVX512")
	g.lowpWidenSteps("bf16", "lowpWidenStepsBF16AVX512")
}

// widenLoad loads 16 values at m into z, widened to f32 (conv f16 or bf16).
func (g *gen) widenLoad(conv string, m Mem, z VecPhysical) {
	if conv == "f16" {
		g.VCVTPH2PS(m, z)
		return
	}
	g.VPMOVZXWD(m, z)
	g.VPSLLD(U8(16), z, z)
}

// lowpWidenSteps emits a packer of one value per word where k runs down
// the source's rows: dst[p*w+l] = the value src[p*ld+l] widened to f32.
func (g *gen) lowpWidenSteps(conv, name string) {
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(src *byte, ld, steps int, dst *uint32, w, vecs int)")
	g.Doc(
		name+" sets dst[p*w+l], for p < steps and l < 16·vecs, to the",
		conv+" value src[p·ld+l] (ld in values) widened to f32, exactly (a",
		"signalling NaN comes out quiet). steps, vecs ≥ 1.",
	)
	g.Load(g.Param("src"), RSI)
	g.Load(g.Param("ld"), RDX)
	g.Load(g.Param("steps"), RCX)
	g.Load(g.Param("dst"), RDI)
	g.Load(g.Param("w"), R8)
	g.Load(g.Param("vecs"), R9)
	g.SHLQ(U8(1), RDX) // ld in bytes
	g.SHLQ(U8(2), R8)  // w in bytes
	g.SHLQ(U8(6), R9)  // 16·vecs words, in bytes
	g.MOVQ(RDX, R15)
	g.SHLQ(U8(packAheadLog), R15) // packAhead steps
	step, vec := g.label("step"), g.label("vec")
	g.Label(step)
	g.LEAQ(Mem{Base: RSI, Index: R15, Scale: 1}, R14)
	g.PREFETCHT0(Mem{Base: R14})
	g.XORQ(RBX, RBX) // byte offset of 16 values in the source row
	g.XORQ(R13, R13) // and in dst
	g.Label(vec)
	g.widenLoad(conv, Mem{Base: RSI, Index: RBX, Scale: 1}, Z0)
	g.VMOVDQU32(Z0, Mem{Base: RDI, Index: R13, Scale: 1})
	g.ADDQ(U8(32), RBX)
	g.ADDQ(U8(64), R13)
	g.CMPQ(R13, R9)
	g.JB(LabelRef(vec))
	g.ADDQ(RDX, RSI)
	g.ADDQ(R8, RDI)
	g.DECQ(RCX)
	g.JNZ(LabelRef(step))
	g.VZEROUPPER()
	g.RET()
}

// lowpPackRows emits the transposing packer: conv "" for raw 32-bit words
// (XORed with x), "f16" or "bf16" for 16-bit values widened to f32.
func (g *gen) lowpPackRows(conv, name string) {
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	if conv == "" {
		g.SignatureExpr("func(src *byte, ld, blocks int, dst *uint32, w, n, lines int, x uint32)")
		g.Doc(
			name+" sets dst[p·w+l], for p < 16·blocks and l < n, to the 32-bit word",
			"at byte 4p of line l of src (lines ld bytes apart) XORed with x, or to",
			"0 for l ≥ lines. 1 ≤ lines ≤ n ≤ 16, n ≤ w, blocks ≥ 1.",
		)
	} else {
		g.SignatureExpr("func(src *byte, ld, blocks int, dst *uint32, w, n, lines int)")
		g.Doc(
			name+" sets dst[p·w+l], for p < 16·blocks and l < n, to the "+conv,
			"value at byte 2p of line l of src (lines ld bytes apart) widened to f32",
			"(exactly; a signalling NaN comes out quiet), or to 0 for l ≥ lines.",
			"1 ≤ lines ≤ n ≤ 16, n ≤ w, blocks ≥ 1.",
		)
	}
	g.Load(g.Param("src"), RSI)
	g.Load(g.Param("ld"), RDX)
	g.Load(g.Param("blocks"), RCX)
	g.Load(g.Param("dst"), RDI)
	g.Load(g.Param("n"), R12)
	g.Load(g.Param("lines"), RBX)
	if conv == "" {
		g.Load(g.Param("x"), EAX)
		g.VPBROADCASTD(EAX, Z31)
	}
	// The mask of n words.
	g.MOVQ(I32(-1), RAX)
	g.BZHIQ(R12, RAX, RAX)
	g.KMOVW(EAX, K1)
	g.Load(g.Param("w"), R12)
	g.SHLQ(U8(2), R12)                                // sb: a step's bytes in dst
	g.LEAQ(Mem{Base: RDX, Index: RDX, Scale: 2}, R11) // 3·ld
	g.LEAQ(Mem{Base: RSI, Index: RDX, Scale: 4}, R8)  // line 4
	g.LEAQ(Mem{Base: R8, Index: RDX, Scale: 4}, R9)   // line 8
	g.LEAQ(Mem{Base: R9, Index: RDX, Scale: 4}, R10)  // line 12
	g.MOVQ(R12, R13)
	g.SHLQ(U8(2), R13)                                // 4·sb
	g.LEAQ(Mem{Base: R13, Index: R13, Scale: 2}, R14) // 12·sb
	g.MOVQ(R13, RAX)
	g.SHLQ(U8(2), RAX) // 16·sb: a block of dst

	line := func(r int) Mem {
		base := []Register{RSI, R8, R9, R10}[r/4]
		switch r % 4 {
		case 0:
			return Mem{Base: base}
		case 1:
			return Mem{Base: base, Index: RDX, Scale: 1}
		case 2:
			return Mem{Base: base, Index: RDX, Scale: 2}
		}
		return Mem{Base: base, Index: R11, Scale: 1}
	}
	z := func(i int) VecPhysical { return zmm.vec(i) }
	block := g.label("block")
	loaded := g.label("loaded")
	zero := make([]string, 16)
	for r := 1; r < 16; r++ {
		zero[r] = g.label("zero")
	}
	g.Label(block)
	load := func(r int) {
		if conv == "" {
			g.VPXORD(line(r), Z31, z(r))
			return
		}
		g.widenLoad(conv, line(r), z(r))
	}
	load(0)
	for r := 1; r < 16; r++ {
		g.CMPQ(RBX, U8(r))
		g.JLE(LabelRef(zero[r]))
		load(r)
	}
	g.JMP(LabelRef(loaded))
	for r := 1; r < 16; r++ {
		g.Label(zero[r]) // lines r… are past lines: zeros
		g.VPXORD(z(r), z(r), z(r))
	}
	g.Label(loaded)
	// Each group of four lines: afterwards z(4G+c) holds, in 128-bit lane
	// L, the group's four words of step 4L+c.
	t := []VecPhysical{Z16, Z17, Z18, Z19}
	for G := 0; G < 4; G++ {
		r := func(i int) VecPhysical { return z(4*G + i) }
		g.VPUNPCKLDQ(r(1), r(0), t[0])
		g.VPUNPCKHDQ(r(1), r(0), t[1])
		g.VPUNPCKLDQ(r(3), r(2), t[2])
		g.VPUNPCKHDQ(r(3), r(2), t[3])
		g.VPUNPCKLQDQ(t[2], t[0], r(0))
		g.VPUNPCKHQDQ(t[2], t[0], r(1))
		g.VPUNPCKLQDQ(t[3], t[1], r(2))
		g.VPUNPCKHQDQ(t[3], t[1], r(3))
	}
	// Steps c, 4+c, 8+c, 12+c: lane L of each group's z(4G+c), G = 0…3.
	v := []VecPhysical{Z16, Z17, Z18, Z19}
	o := []VecPhysical{Z20, Z21, Z22, Z23}
	g.MOVQ(RDI, R15)
	for c := 0; c < 4; c++ {
		g.VSHUFI32X4(U8(0x44), z(4+c), z(c), v[0])
		g.VSHUFI32X4(U8(0xee), z(4+c), z(c), v[1])
		g.VSHUFI32X4(U8(0x44), z(12+c), z(8+c), v[2])
		g.VSHUFI32X4(U8(0xee), z(12+c), z(8+c), v[3])
		g.VSHUFI32X4(U8(0x88), v[2], v[0], o[0])
		g.VSHUFI32X4(U8(0xdd), v[2], v[0], o[1])
		g.VSHUFI32X4(U8(0x88), v[3], v[1], o[2])
		g.VSHUFI32X4(U8(0xdd), v[3], v[1], o[3])
		g.VMOVDQU32(o[0], K1, Mem{Base: R15})
		g.VMOVDQU32(o[1], K1, Mem{Base: R15, Index: R13, Scale: 1})
		g.VMOVDQU32(o[2], K1, Mem{Base: R15, Index: R13, Scale: 2})
		g.VMOVDQU32(o[3], K1, Mem{Base: R15, Index: R14, Scale: 1})
		if c < 3 {
			g.ADDQ(R12, R15)
		}
	}
	srcStep := 64 // bytes of 16 words, or of 16 values to widen
	if conv != "" {
		srcStep = 32
	}
	for _, r := range []Register{RSI, R8, R9, R10} {
		g.ADDQ(U8(srcStep), r)
	}
	g.ADDQ(RAX, RDI)
	g.DECQ(RCX)
	g.JNZ(LabelRef(block))
	g.VZEROUPPER()
	g.RET()
}
