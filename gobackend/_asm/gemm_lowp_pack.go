package main

import (
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
