package main

import (
	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// AMX micro-kernels: a 32×32 tile of C as four 16×16 tiles (tmm0–3), A's
// 32 rows as two tiles (tmm4–5) and B's 32 columns as two (tmm6–7), 16
// words of k-groups per step (32 bf16 or 64 bytes of k); a call computes
// a strip of such tiles down C's columns, A's panels one after another
// against one panel of B. Tile configuration, use and release stay
// within one call, as nothing
// between calls (the Go scheduler, another goroutine on the thread)
// expects tile state. A tile of A is 16 rows of 64 bytes at a stride the
// caller gives, which serves two layouts (gobackend/gemm: lowp_pack.go,
// lowp_nest.go): A packed in chunks of 16 words, each chunk its 32 rows
// one after another (stride 64, the next chunk 2048 bytes on, the next
// panel after the last chunk), and A as it is stored, row-major with k
// contiguous (stride lda, the next chunk 64 bytes on, the next panel 32
// rows down), which needs no packing. B as the other kernels pack it, 32
// words per k-group, so a tile is 16 k-groups at stride 128.
// No assembler at hand knows the tile instructions: each is a BYTE
// sequence after a comment naming it (Intel operand order), recorded
// from the GNU assembler and checked against it by encode_test.go.
type amxKernel struct {
	name string
	dp   string // the tile dot product: tdpbf16ps, tdpbusd, tdpbssd
}

var amxKernels = []amxKernel{
	{"bf16gemm32x32AMX", "tdpbf16ps"},
	{"u8s8gemm32x32AMX", "tdpbusd"},
	{"s8s8gemm32x32AMX", "tdpbssd"},
}

// amxCode is each tile instruction the kernels use, with the registers
// they use it on, in Intel syntax (as the GNU assembler reads it), and
// PREFETCHW, which avo lacks.
var amxCode = map[string][]byte{
	"ldtilecfg [rax]":                 {0xc4, 0xe2, 0x78, 0x49, 0x00},
	"tilerelease":                     {0xc4, 0xe2, 0x78, 0x49, 0xc0},
	"tilezero tmm0":                   {0xc4, 0xe2, 0x7b, 0x49, 0xc0},
	"tilezero tmm1":                   {0xc4, 0xe2, 0x7b, 0x49, 0xc8},
	"tilezero tmm2":                   {0xc4, 0xe2, 0x7b, 0x49, 0xd0},
	"tilezero tmm3":                   {0xc4, 0xe2, 0x7b, 0x49, 0xd8},
	"tileloadd tmm0, [rdi+rdx*1]":     {0xc4, 0xe2, 0x7b, 0x4b, 0x04, 0x17},
	"tileloadd tmm1, [rdi+rdx*1+64]":  {0xc4, 0xe2, 0x7b, 0x4b, 0x4c, 0x17, 0x40},
	"tileloadd tmm2, [r10+rdx*1]":     {0xc4, 0xc2, 0x7b, 0x4b, 0x14, 0x12},
	"tileloadd tmm3, [r10+rdx*1+64]":  {0xc4, 0xc2, 0x7b, 0x4b, 0x5c, 0x12, 0x40},
	"tileloadd tmm4, [rsi+r8*1]":      {0xc4, 0xa2, 0x7b, 0x4b, 0x24, 0x06},
	"tileloadd tmm5, [r14+r8*1]":      {0xc4, 0x82, 0x7b, 0x4b, 0x2c, 0x06},
	"tileloadd tmm6, [rbx+r9*1]":      {0xc4, 0xa2, 0x7b, 0x4b, 0x34, 0x0b},
	"tileloadd tmm7, [rbx+r9*1+64]":   {0xc4, 0xa2, 0x7b, 0x4b, 0x7c, 0x0b, 0x40},
	"tdpbf16ps tmm0, tmm4, tmm6":      {0xc4, 0xe2, 0x4a, 0x5c, 0xc4},
	"tdpbf16ps tmm1, tmm4, tmm7":      {0xc4, 0xe2, 0x42, 0x5c, 0xcc},
	"tdpbf16ps tmm2, tmm5, tmm6":      {0xc4, 0xe2, 0x4a, 0x5c, 0xd5},
	"tdpbf16ps tmm3, tmm5, tmm7":      {0xc4, 0xe2, 0x42, 0x5c, 0xdd},
	"tdpbusd tmm0, tmm4, tmm6":        {0xc4, 0xe2, 0x49, 0x5e, 0xc4},
	"tdpbusd tmm1, tmm4, tmm7":        {0xc4, 0xe2, 0x41, 0x5e, 0xcc},
	"tdpbusd tmm2, tmm5, tmm6":        {0xc4, 0xe2, 0x49, 0x5e, 0xd5},
	"tdpbusd tmm3, tmm5, tmm7":        {0xc4, 0xe2, 0x41, 0x5e, 0xdd},
	"tdpbssd tmm0, tmm4, tmm6":        {0xc4, 0xe2, 0x4b, 0x5e, 0xc4},
	"tdpbssd tmm1, tmm4, tmm7":        {0xc4, 0xe2, 0x43, 0x5e, 0xcc},
	"tdpbssd tmm2, tmm5, tmm6":        {0xc4, 0xe2, 0x4b, 0x5e, 0xd5},
	"tdpbssd tmm3, tmm5, tmm7":        {0xc4, 0xe2, 0x43, 0x5e, 0xdd},
	"tilestored [rdi+rdx*1], tmm0":    {0xc4, 0xe2, 0x7a, 0x4b, 0x04, 0x17},
	"tilestored [rdi+rdx*1+64], tmm1": {0xc4, 0xe2, 0x7a, 0x4b, 0x4c, 0x17, 0x40},
	"tilestored [r10+rdx*1], tmm2":    {0xc4, 0xc2, 0x7a, 0x4b, 0x14, 0x12},
	"tilestored [r10+rdx*1+64], tmm3": {0xc4, 0xc2, 0x7a, 0x4b, 0x5c, 0x12, 0x40},
	"prefetchw [rcx]":                 {0x0f, 0x0d, 0x09},
	"prefetchw [rcx+64]":              {0x0f, 0x0d, 0x49, 0x40},
}

// amx emits one tile instruction of amxCode.
func (g *gen) amx(intel string) {
	b, ok := amxCode[intel]
	if !ok {
		panic("no encoding of " + intel)
	}
	g.Comment(intel)
	g.bytes(b)
}

func genGemmAMX(g *gen) {
	for _, k := range amxKernels {
		g.amxMicroKernel(k)
	}
}

func (g *gen) amxMicroKernel(k amxKernel) {
	g.Function(k.name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(cfg *byte, k int, a *byte, astride, astep, apanel int, b, c *uint32, ldc int, add int, tiles int, pf, pfend *uint32)")
	g.Doc(
		k.name+" computes tiles ≥ 1 tiles of 32×32 down a column of c, c = a·b (c += a·b",
		"when add ≠ 0) with AMX's "+k.dp+": cfg the 64-byte tile configuration (every",
		"tile 16 rows of 64 bytes), a the tiles' panels of A one after another, each",
		"k steps of 64 bytes per row: row i of step s of panel t at",
		"a + t·apanel + s·astep + i·astride (bytes); b one panel of B, k steps of 16",
		"words of k-groups (see gemm_amx.go in _asm), c row-major 32-bit values with",
		"row stride ldc. k ≥ 1. Each step also prefetches 256 bytes from pf on into",
		"L2, up to pfend: the next panel of B, which would otherwise come from",
		"further out while the tiles wait. Before a tile's steps it asks for the",
		"next tile's rows of c for writing (PREFETCHW; the first tile's on entry),",
		"so that its stores do not wait for their reads.",
	)
	g.Load(g.Param("cfg"), RAX)
	g.Load(g.Param("a"), R13)
	g.Load(g.Param("astride"), R8)
	g.Load(g.Param("pf"), R15)
	g.Load(g.Param("b"), R12)
	g.Load(g.Param("c"), RDI)
	g.Load(g.Param("ldc"), RDX)
	g.SHLQ(U8(2), RDX) // C's row stride in bytes
	g.MOVQ(RDX, R11)
	g.SHLQ(U8(4), R11) // 16 rows of C
	g.LEAQ(Mem{Base: RDI, Index: R11, Scale: 1}, R10)
	g.MOVQ(U32(128), R9)
	g.amx("ldtilecfg [rax]")
	g.Load(g.Param("tiles"), RAX)
	g.MOVQ(RDI, RCX)
	g.prefetchCTile("pfc0")

	// One call configures the tiles once for all its tiles of C: the
	// configuration and release cost as much as a few tile products.
	g.Label("tile")
	g.CMPQ(RAX, U8(1))
	g.JBE(LabelRef("nopfc"))
	g.LEAQ(Mem{Base: R10, Index: R11, Scale: 1}, RCX)
	g.prefetchCTile("pfc")
	g.Label("nopfc")
	g.Load(g.Param("k"), RCX)
	g.MOVQ(R12, RBX)
	g.MOVQ(R13, RSI) // rows 0–15 of the panel
	g.MOVQ(R8, R14)
	g.SHLQ(U8(4), R14)
	g.ADDQ(R13, R14) // rows 16–31
	add, err := g.Param("add").Resolve()
	if err != nil {
		panic(err)
	}
	g.CMPQ(add.Addr, U8(0))
	g.JNE(LabelRef("loadc"))
	for i := 0; i < 4; i++ {
		g.amx("tilezero tmm" + string(rune('0'+i)))
	}
	g.JMP(LabelRef("loop"))
	g.Label("loadc")
	g.amx("tileloadd tmm0, [rdi+rdx*1]")
	g.amx("tileloadd tmm1, [rdi+rdx*1+64]")
	g.amx("tileloadd tmm2, [r10+rdx*1]")
	g.amx("tileloadd tmm3, [r10+rdx*1+64]")
	// Each product follows the loads it needs, so that the next loads
	// overlap the products of the tiles already there.
	g.Label("loop")
	g.amx("tileloadd tmm4, [rsi+r8*1]")
	g.amx("tileloadd tmm6, [rbx+r9*1]")
	g.amx(k.dp + " tmm0, tmm4, tmm6")
	g.amx("tileloadd tmm7, [rbx+r9*1+64]")
	g.amx(k.dp + " tmm1, tmm4, tmm7")
	g.amx("tileloadd tmm5, [r14+r8*1]")
	g.amx(k.dp + " tmm2, tmm5, tmm6")
	g.amx(k.dp + " tmm3, tmm5, tmm7")
	astep, err := g.Param("astep").Resolve()
	if err != nil {
		panic(err)
	}
	pfend, err := g.Param("pfend").Resolve()
	if err != nil {
		panic(err)
	}
	g.ADDQ(astep.Addr, RSI)
	g.ADDQ(astep.Addr, R14)
	g.CMPQ(R15, pfend.Addr)
	g.JAE(LabelRef("nopf"))
	for i := 0; i < 4; i++ {
		g.PREFETCHT1(Mem{Base: R15, Disp: 64 * i})
	}
	g.ADDQ(U32(256), R15)
	g.Label("nopf")
	g.ADDQ(U32(2048), RBX) // 16 k-groups × 32 words
	g.DECQ(RCX)
	g.JNZ(LabelRef("loop"))
	g.amx("tilestored [rdi+rdx*1], tmm0")
	g.amx("tilestored [rdi+rdx*1+64], tmm1")
	g.amx("tilestored [r10+rdx*1], tmm2")
	g.amx("tilestored [r10+rdx*1+64], tmm3")
	apanel, err := g.Param("apanel").Resolve()
	if err != nil {
		panic(err)
	}
	g.ADDQ(apanel.Addr, R13)
	g.LEAQ(Mem{Base: R10, Index: R11, Scale: 1}, RDI) // 32 rows down
	g.LEAQ(Mem{Base: RDI, Index: R11, Scale: 1}, R10)
	g.DECQ(RAX)
	g.JNZ(LabelRef("tile"))
	g.amx("tilerelease")
	g.RET()
}

// prefetchCTile asks for the 32 rows of 128 bytes of a tile of C from RCX
// on (row stride RDX) for writing (PREFETCHW), using RSI as its count: a
// tile store to lines not held for writing waits for their reads, as much
// from DRAM after other work has made C cold, where a tile's k loop
// leaves the reads time to arrive.
func (g *gen) prefetchCTile(label string) {
	g.MOVQ(U32(32), RSI)
	g.Label(label)
	g.amx("prefetchw [rcx]")
	g.amx("prefetchw [rcx+64]")
	g.ADDQ(RDX, RCX)
	g.DECQ(RSI)
	g.JNZ(LabelRef(label))
}
