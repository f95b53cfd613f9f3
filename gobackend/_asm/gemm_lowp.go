package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Low-precision GEMM micro-kernels. Each multiplies packed panels of
// 32-bit words, every word a group of k values side by side (two bf16,
// four 8-bit integers, two int16), with one dot-product instruction per
// word and lane: A's word of a row is broadcast, B's words of nr columns
// are loaded, and each lane of the accumulator gains the dot product of
// the group. The loop nest and packing are gobackend/gemm's (lowp*.go);
// these kernels are sgemm's skeleton (gemm.go) with the FMA replaced:
//
//   - dpbf16:  VDPBF16PS, bf16 pairs into f32 lanes (AVX512-BF16);
//   - dpbusd:  VPDPBUSD zmm, u8 quads (the broadcast A) times s8 quads (B)
//     into s32 lanes (AVX512-VNNI);
//   - dpbusdVEX: the same on ymm, VEX-encoded (AVX-VNNI);
//   - maddwd:  VPMADDWD then VPADDD, int16 pairs into s32 lanes (AVX2),
//     for 8-bit data widened to int16 while packing: exact, where
//     VPMADDUBSW's saturating int16 pair sums would not be (255·127·2
//     exceeds 32767).
//
// The accumulators start from init (nr values: the i8 kernels' correction
// of A's +128 bias, zeros otherwise); at the end c = acc, or c += acc when
// add ≠ 0, in f32 (dpbf16) or s32.
type lowpKernel struct {
	name   string
	op     string // dpbf16, dpbusd, dpbusdVEX, maddwd
	w      width
	mr, nr int
	unroll int
}

var lowpKernels = []lowpKernel{
	{name: "bf16gemm14x32AVX512BF16", op: "dpbf16", w: zmm, mr: 14, nr: 32, unroll: 4},
	{name: "u8s8gemm14x32AVX512VNNI", op: "dpbusd", w: zmm, mr: 14, nr: 32, unroll: 4},
	{name: "u8s8gemm6x16AVXVNNI", op: "dpbusdVEX", w: ymm, mr: 6, nr: 16, unroll: 4},
	{name: "s16gemm6x16AVX2", op: "maddwd", w: ymm, mr: 6, nr: 16, unroll: 4},
}

func genGemmLowp(g *gen) {
	for _, k := range lowpKernels {
		g.lowpMicroKernel(k)
	}
	genLowpPack(g) // gemm_lowp_pack.go
	genLowpBias(g)
	genLowpPackRows(g)
}

func (g *gen) lowpMicroKernel(k lowpKernel) {
	w := k.w
	vw := w.bytes / 4 // 32-bit lanes
	nv := k.nr / vw
	if nv*vw != k.nr {
		panic(k.name + ": nr is not a multiple of the vector width")
	}
	g.Function(k.name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(k int, a, b, c *uint32, ldc int, init *uint32, add int)")
	out := "s32"
	if k.op == "dpbf16" {
		out = "f32"
	}
	g.Doc(
		fmt.Sprintf("%s computes the %d×%d tile c = init + a·b (c += that when add ≠ 0),", k.name, k.mr, k.nr),
		fmt.Sprintf("a a packed panel of op(A) (k steps of %d 32-bit groups), b one of op(B) (k", k.mr),
		fmt.Sprintf("steps of %d groups), init %d %s values added to every row, c row-major %s", k.nr, k.nr, out, out),
		"with row stride ldc. k ≥ 1.",
	)
	acc := func(i, j int) VecPhysical { return w.vec(i*nv + j) }
	breg := func(j int) VecPhysical { return w.vec(k.mr*nv + j) }
	// maddwd needs a register for each product before it is added: one
	// broadcast register, the other is the product.
	nb := 2
	if k.op == "maddwd" {
		nb = 1
	}
	bcast := func(i int) VecPhysical { return w.vec(k.mr*nv + nv + i%nb) }
	tmp := w.vec(k.mr*nv + nv + 1)
	if k.mr*nv+nv+2 > 16 && w.bytes == 32 || k.mr*nv+nv+2 > 32 {
		panic(k.name + ": too many registers")
	}

	g.Load(g.Param("k"), RCX)
	g.Load(g.Param("a"), RAX)
	g.Load(g.Param("b"), RBX)
	g.Load(g.Param("c"), RDX)
	g.Load(g.Param("ldc"), RSI)
	g.Load(g.Param("init"), R10)
	g.SHLQ(U8(2), RSI)

	// As sgemm's kernels: the loop's first mr trips prefetch a row of C each.
	g.MOVQ(RDX, RDI)
	g.MOVQ(U32(k.mr), R11)
	for i := 0; i < k.mr; i++ {
		for j := 0; j < nv; j++ {
			g.VMOVDQU32orU(w, Mem{Base: R10, Disp: j * w.bytes}, acc(i, j))
		}
	}

	dot := func(b, a, acc VecPhysical) {
		switch k.op {
		case "dpbf16":
			g.evex("VDPBF16PS", 0x52, evexF3, acc, a, b)
		case "dpbusd":
			// The Go assembler knows VPDPBUSD (avo does not): acc += a(u8)·b(s8).
			g.raw("VPDPBUSD", b, a, acc)
		case "dpbusdVEX":
			g.vex256("VPDPBUSD (VEX, AVX-VNNI)", 0x50, acc, a, b)
		case "maddwd":
			g.VPMADDWD(b, a, tmp)
			g.VPADDD(tmp, acc, acc)
		}
	}
	step := func(u int) {
		for j := 0; j < nv; j++ {
			g.VMOVDQU32orU(w, Mem{Base: RBX, Disp: (u*k.nr + j*vw) * 4}, breg(j))
		}
		for i := 0; i < k.mr; i++ {
			g.VPBROADCASTD(Mem{Base: RAX, Disp: (u*k.mr + i) * 4}, bcast(i))
			for j := 0; j < nv; j++ {
				dot(breg(j), bcast(i), acc(i, j))
			}
		}
	}

	g.MOVQ(RCX, R8)
	g.SHRQ(U8(log2(k.unroll)), R8)
	g.JZ(LabelRef("tail"))
	g.Label("loop")
	g.TESTQ(R11, R11)
	g.JZ(LabelRef("prefetched"))
	g.PREFETCHT0(Mem{Base: RDI})
	g.PREFETCHT0(Mem{Base: RDI, Disp: k.nr*4 - 1})
	g.ADDQ(RSI, RDI)
	g.DECQ(R11)
	g.Label("prefetched")
	for u := 0; u < k.unroll; u++ {
		step(u)
	}
	g.ADDQ(U32(k.unroll*k.mr*4), RAX)
	g.ADDQ(U32(k.unroll*k.nr*4), RBX)
	g.DECQ(R8)
	g.JNZ(LabelRef("loop"))

	g.Label("tail")
	g.ANDQ(U8(k.unroll-1), RCX)
	g.JZ(LabelRef("update"))
	g.Label("tailloop")
	step(0)
	g.ADDQ(U32(k.mr*4), RAX)
	g.ADDQ(U32(k.nr*4), RBX)
	g.DECQ(RCX)
	g.JNZ(LabelRef("tailloop"))

	g.Label("update")
	g.Load(g.Param("add"), R9)
	g.MOVQ(RDX, RDI)
	g.TESTQ(R9, R9)
	g.JNZ(LabelRef("withc"))
	for i := 0; i < k.mr; i++ {
		for j := 0; j < nv; j++ {
			g.VMOVDQU32orU(w, acc(i, j), Mem{Base: RDI, Disp: j * w.bytes})
		}
		if i < k.mr-1 {
			g.ADDQ(RSI, RDI)
		}
	}
	g.VZEROUPPER()
	g.RET()

	g.Label("withc")
	for i := 0; i < k.mr; i++ {
		for j := 0; j < nv; j++ {
			m := Mem{Base: RDI, Disp: j * w.bytes}
			if k.op == "dpbf16" {
				g.VADDPS(m, acc(i, j), acc(i, j))
			} else {
				g.VPADDD(m, acc(i, j), acc(i, j))
			}
			g.VMOVDQU32orU(w, acc(i, j), m)
		}
		if i < k.mr-1 {
			g.ADDQ(RSI, RDI)
		}
	}
	g.VZEROUPPER()
	g.RET()
}

// VMOVDQU32orU moves a vector of 32-bit lanes: VMOVDQU32 for zmm (EVEX),
// VMOVDQU for ymm (VEX, which an AVX2-only CPU runs).
func (g *gen) VMOVDQU32orU(w width, src, dst Op) {
	if w.bytes == 64 {
		g.VMOVDQU32(src, dst)
	} else {
		g.VMOVDQU(src, dst)
	}
}
