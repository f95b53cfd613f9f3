package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// gemmDirectKernel writes the unpacked twin of k's micro-kernel
// (sgemm14x32AVX512Direct): the same mr×nr tile and register blocking, but
// A and B are read where they lie, A row-major with row stride lda and B
// row-major with row stride ldb, instead of from packed panels. Small
// products (gobackend/gemm: direct.go) run it to skip the packing, which
// costs as much as the arithmetic when A and B are a few KiB and already in
// the caches.
//
// Row i of the tile broadcasts from a + i·lda: the rows are reached from
// three bases five rows apart (RAX, R10, R13), each with index 0, lda, 2·lda,
// 3·lda (R9) or 4·lda, so that every step addresses all mr rows without
// arithmetic; all three bases move one element per k step.
func (g *gen) gemmDirectKernel(k gemmKernel) {
	t, w := k.t, k.w
	vw := w.lanes(t)
	nv := k.nr / vw
	if k.unroll != 4 || k.mr > 15 {
		panic(k.name() + "Direct: the addressing assumes unroll 4 and at most 15 rows")
	}
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	name := k.name() + "Direct"
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf("func(k int, a *%[1]s, lda int, b *%[1]s, ldb int, c *%[1]s, ldc int, alpha, beta %[1]s)", elem))
	g.Doc(
		fmt.Sprintf("%s computes the %d×%d tile c = alpha·a·b + beta·c, a row-major", name, k.mr, k.nr),
		fmt.Sprintf("(%d rows of k, stride lda), b row-major (k rows of %d, stride ldb), c", k.mr, k.nr),
		"row-major with row stride ldc. beta == 0 (either sign) writes c without",
		"reading it. k ≥ 1.",
	)
	acc := func(i, j int) VecPhysical { return w.vec(i*nv + j) }
	breg := func(j int) VecPhysical { return w.vec(k.mr*nv + j) }
	bcast := func(i int) VecPhysical { return w.vec(k.mr*nv + nv + i%2) }

	shift := uint8(2)
	if t.f64 {
		shift = 3
	}
	g.Load(g.Param("a"), RAX)
	g.Load(g.Param("lda"), R8)
	g.SHLQ(U8(shift), R8)
	g.LEAQ(Mem{Base: R8, Index: R8, Scale: 2}, R9) // 3·lda
	g.LEAQ(Mem{Base: RAX, Index: R8, Scale: 4}, R10)
	g.ADDQ(R8, R10) // a + 5·lda
	g.LEAQ(Mem{Base: R10, Index: R8, Scale: 4}, R13)
	g.ADDQ(R8, R13) // a + 10·lda
	g.Load(g.Param("b"), RBX)
	g.Load(g.Param("ldb"), R12)
	g.SHLQ(U8(shift), R12)
	g.LEAQ(Mem{Base: R12, Index: R12, Scale: 2}, R11) // 3·ldb
	g.Load(g.Param("c"), RDX)
	g.Load(g.Param("ldc"), RSI)
	g.SHLQ(U8(shift), RSI)
	for i := 0; i < k.mr; i++ {
		for j := 0; j < nv; j++ {
			g.vxor(t, acc(i, j), acc(i, j), acc(i, j))
		}
	}

	bases := []Register{RAX, R10, R13}
	rowAddr := func(i, disp int) Mem {
		m := Mem{Base: bases[i/5], Disp: disp}
		switch i % 5 {
		case 1:
			m.Index, m.Scale = R8, 1
		case 2:
			m.Index, m.Scale = R8, 2
		case 3:
			m.Index, m.Scale = R9, 1
		case 4:
			m.Index, m.Scale = R8, 4
		}
		return m
	}
	bRow := func(u int) Mem {
		switch u {
		case 1:
			return Mem{Base: RBX, Index: R12, Scale: 1}
		case 2:
			return Mem{Base: RBX, Index: R12, Scale: 2}
		case 3:
			return Mem{Base: RBX, Index: R11, Scale: 1}
		}
		return Mem{Base: RBX}
	}
	step := func(u int) {
		for j := 0; j < nv; j++ {
			m := bRow(u)
			m.Disp = j * vw * t.size
			g.vmovu(t, m, breg(j))
		}
		for i := 0; i < k.mr; i++ {
			g.vbroadcast(t, rowAddr(i, u*t.size), bcast(i))
			for j := 0; j < nv; j++ {
				g.vfmadd231(t, breg(j), bcast(i), acc(i, j))
			}
		}
	}
	advance := func(steps int) {
		for b := 0; b <= (k.mr-1)/5; b++ {
			g.ADDQ(U32(steps*t.size), bases[b])
		}
	}

	g.Load(g.Param("k"), RCX)
	g.SHRQ(U8(2), RCX)
	g.JZ(LabelRef("tail"))
	g.Label("loop")
	for u := 0; u < 4; u++ {
		step(u)
	}
	advance(4)
	g.LEAQ(Mem{Base: RBX, Index: R12, Scale: 4}, RBX)
	g.DECQ(RCX)
	g.JNZ(LabelRef("loop"))

	g.Label("tail")
	g.Load(g.Param("k"), RCX)
	g.ANDQ(U8(3), RCX)
	g.JZ(LabelRef("update"))
	g.Label("tailloop")
	step(0)
	advance(1)
	g.ADDQ(R12, RBX)
	g.DECQ(RCX)
	g.JNZ(LabelRef("tailloop"))

	g.Label("update")
	g.gemmUpdate(k, acc, breg(0), bcast(0))
}
