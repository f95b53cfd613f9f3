package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Packing routines copy one full panel of w rows (A) or columns (B) into the
// order the micro-kernels read, k steps of w contiguous values. There are
// two source layouts:
//
//   - copy: the w values of a step are contiguous in the source (op(A)
//     transposed, op(B) not), src[p*lds+i];
//   - gather: each of the w values comes from its own source row (op(A) not
//     transposed, op(B) transposed), src[i*lds+p].
//
// Packing streams memory, so 256-bit moves serve the AVX-512 kernels too.
type packKernel struct {
	t      dtype
	w      int
	gather bool
}

func (p packKernel) name() string {
	op := "Copy"
	if p.gather {
		op = "Gather"
	}
	return fmt.Sprintf("%spack%s%dAVX2", p.t.char, op, p.w)
}

func genPack(g *gen) {
	for _, t := range []dtype{f32, f64} {
		// mr, nr of sgemm6x16AVX2, sgemm14x32AVX512 and sgemm8x48AVX512
		widths := []int{6, 16, 14, 32, 8, 48}
		if t.f64 {
			widths = []int{6, 8, 14, 16, 8, 24}
		}
		done := map[int]bool{}
		for _, w := range widths {
			if done[w] {
				continue
			}
			done[w] = true
			g.packCopy(packKernel{t, w, false})
			if w <= maxGatherRows {
				g.packGather(packKernel{t, w, true})
			}
		}
		for _, nr := range []int{widths[1], widths[3], widths[5]} {
			g.packRows(t, nr)
		}
	}
}

// packRows packs several w-wide panels of B (not transposed) at once,
// reading B a row at a time across all of them: dst[q*ds+p*w+i] =
// src[p*lds+q*w+i] for p < k, q < panels, i < w. Panel by panel, each
// row of B is read w values at a time, one short run per row of a
// strided walk the hardware prefetchers do not follow; row by row, each
// row is one contiguous run of panels·w values.
func (g *gen) packRows(t dtype, w int) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	name := fmt.Sprintf("%spackRows%dAVX2", t.char, w)
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf("func(k int, src *%[1]s, lds int, panels int, dst *%[1]s, ds int)", elem))
	g.Doc(fmt.Sprintf("%s sets dst[q*ds+p*%d+i] = src[p*lds+q*%d+i] for p < k, q < panels, i < %d.", name, w, w, w))
	shift := U8(log2(t.size))
	g.Load(g.Param("k"), RCX)
	g.Load(g.Param("src"), RSI)
	g.Load(g.Param("lds"), RDX)
	g.Load(g.Param("panels"), R8)
	g.Load(g.Param("dst"), RDI)
	g.Load(g.Param("ds"), R10)
	g.SHLQ(shift, RDX)
	g.SHLQ(shift, R10)
	g.TESTQ(RCX, RCX)
	g.JLE(LabelRef("done"))
	g.TESTQ(R8, R8)
	g.JLE(LabelRef("done"))
	g.Label("row")
	g.MOVQ(RSI, R11)
	g.MOVQ(RDI, R12)
	g.MOVQ(R8, R13)
	g.Label("panel")
	g.copyBytes(R11, R12, w*t.size)
	g.ADDQ(U32(w*t.size), R11)
	g.ADDQ(R10, R12)
	g.DECQ(R13)
	g.JNZ(LabelRef("panel"))
	g.ADDQ(RDX, RSI)
	g.ADDQ(U32(w*t.size), RDI)
	g.DECQ(RCX)
	g.JNZ(LabelRef("row"))
	g.Label("done")
	g.VZEROUPPER()
	g.RET()
}

func (g *gen) packSignature(p packKernel) {
	elem := "float32"
	if p.t.f64 {
		elem = "float64"
	}
	g.Function(p.name())
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf("func(k int, src *%[1]s, lds int, dst *%[1]s)", elem))
}

// packCopy: dst[p*w+i] = src[p*lds+i] for p < k, i < w.
func (g *gen) packCopy(p packKernel) {
	g.packSignature(p)
	g.Doc(fmt.Sprintf("%s sets dst[p*%d+i] = src[p*lds+i] for p < k, i < %d.", p.name(), p.w, p.w))
	g.Load(g.Param("k"), RCX)
	g.Load(g.Param("src"), RSI)
	g.Load(g.Param("lds"), RDX)
	g.Load(g.Param("dst"), RDI)
	g.SHLQ(U8(log2(p.t.size)), RDX)
	g.TESTQ(RCX, RCX)
	g.JLE(LabelRef("done"))
	g.Label("loop")
	g.copyBytes(RSI, RDI, p.w*p.t.size)
	g.ADDQ(RDX, RSI)
	g.ADDQ(U32(p.w*p.t.size), RDI)
	g.DECQ(RCX)
	g.JNZ(LabelRef("loop"))
	g.Label("done")
	g.VZEROUPPER()
	g.RET()
}

// copyBytes copies n bytes from (src) to (dst) with the widest moves that fit.
func (g *gen) copyBytes(src, dst Register, n int) {
	off, r := 0, 0
	for ; n-off >= 32; off += 32 {
		y := yregs[r%16]
		g.VMOVUPS(Mem{Base: src, Disp: off}, y)
		g.VMOVUPS(y, Mem{Base: dst, Disp: off})
		r++
	}
	for ; n-off >= 16; off += 16 {
		x := yregs[r%16].AsX()
		g.VMOVUPS(Mem{Base: src, Disp: off}, x)
		g.VMOVUPS(x, Mem{Base: dst, Disp: off})
		r++
	}
	for ; n-off >= 8; off += 8 {
		x := yregs[r%16].AsX()
		g.VMOVSD(Mem{Base: src, Disp: off}, x)
		g.VMOVSD(x, Mem{Base: dst, Disp: off})
		r++
	}
	for ; n-off >= 4; off += 4 {
		x := yregs[r%16].AsX()
		g.VMOVSS(Mem{Base: src, Disp: off}, x)
		g.VMOVSS(x, Mem{Base: dst, Disp: off})
		r++
	}
}

// gatherBases are packGather's base registers, each for three rows;
// maxGatherRows is the widest panel they reach (gobackend/gemm packs a
// wider one with pack.go's loop).
var (
	gatherBases   = []Register{RSI, R8, R9, R10, R11, R12, R13, R14, R15, RBX, RAX}
	maxGatherRows = 3 * len(gatherBases)
)

// packGather: dst[p*w+i] = src[i*lds+p] for p < k, i < w. Row i is read
// through a base register for every third row plus 0, 1 or 2 times the row
// stride (the scaled index), so w/3 bases cover the panel.
func (g *gen) packGather(p packKernel) {
	g.packSignature(p)
	g.Doc(fmt.Sprintf("%s sets dst[p*%d+i] = src[i*lds+p] for p < k, i < %d.", p.name(), p.w, p.w))
	g.Load(g.Param("k"), RCX)
	g.Load(g.Param("src"), RSI)
	g.Load(g.Param("lds"), RDX)
	g.Load(g.Param("dst"), RDI)
	g.SHLQ(U8(log2(p.t.size)), RDX)
	g.TESTQ(RCX, RCX)
	g.JLE(LabelRef("done"))
	bases := gatherBases
	nb := (p.w + 2) / 3
	if nb > len(bases) {
		panic(p.name() + ": too many rows")
	}
	// R15 is clobbered by dynamic linking in Go's assembler rules only when
	// global data is referenced; none is here.
	g.LEAQ(Mem{Base: RDX, Index: RDX, Scale: 2}, RBP) // 3·lds
	for b := 1; b < nb; b++ {
		g.LEAQ(Mem{Base: bases[b-1], Index: RBP, Scale: 1}, bases[b])
	}
	g.Label("loop")
	for i := 0; i < p.w; i++ {
		base := bases[i/3]
		var m Mem
		switch i % 3 {
		case 0:
			m = Mem{Base: base}
		case 1:
			m = Mem{Base: base, Index: RDX, Scale: 1}
		case 2:
			m = Mem{Base: base, Index: RDX, Scale: 2}
		}
		x := yregs[i%16].AsX()
		g.movs(p.t, m, x)
		g.movs(p.t, x, Mem{Base: RDI, Disp: i * p.t.size})
	}
	for b := 0; b < nb; b++ {
		g.ADDQ(U8(p.t.size), bases[b])
	}
	g.ADDQ(U32(p.w*p.t.size), RDI)
	g.DECQ(RCX)
	g.JNZ(LabelRef("loop"))
	g.Label("done")
	g.RET()
}
