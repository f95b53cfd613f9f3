package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// convTileKernel writes the direct convolution's tile kernel of
// gobackend/conv (direct_tile.go there): an mr×(nv vectors) tile of output
// channels × consecutive output positions, summed over every input
// channel and filter tap in registers — an implicit GEMM whose inner
// dimension is C·taps, A the filter in place (row k: C·taps values, stride
// lda) and B the im2col matrix never built: step (c, s) reads nv vectors at
// x + c·ldx + offs[s].
//
//	y[i·ldy + j] = Σ_{c<C} Σ_{s<taps} a[i·lda + c·taps + s] · x[c·ldx + offs[s] + j]
//
// for i < mr, j < nv·lanes; y is overwritten. The taps of one channel run
// back to back, so the lines of x they read (a few, overlapping) are in L1.
// Rows of a are reached from two bases five rows apart, as gemmDirectKernel
// does; both move one element per step.
func (g *gen) convTileKernel(t dtype, w width, mr, nv int) {
	vw := w.lanes(t)
	nr := nv * vw
	regs := 16
	if w.bytes == 64 {
		regs = 32
	}
	// Two broadcast registers where they fit (renaming makes one enough).
	nb := min(2, regs-mr*nv-nv)
	if nb < 1 || mr > 10 {
		panic("convTileKernel: too many registers")
	}
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	name := fmt.Sprintf("%sconv%dx%d%s", t.char, mr, nr, w.name)
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf("func(c, taps int, a *%[1]s, lda int, x *%[1]s, ldx int, offs *int, y *%[1]s, ldy int)", elem))
	g.Doc(
		fmt.Sprintf("%s sets the %d×%d tile y[i·ldy + j] = Σ_{ch<c, s<taps} a[i·lda + ch·taps + s] ·", name, mr, nr),
		"x[ch·ldx + offs[s] + j] (strides and offsets in elements). c, taps ≥ 1.",
	)
	acc := func(i, j int) VecPhysical { return w.vec(i*nv + j) }
	breg := func(j int) VecPhysical { return w.vec(mr*nv + j) }
	bcast := func(i int) VecPhysical { return w.vec(mr*nv + nv + i%nb) }
	shift := uint8(2)
	scale := uint8(4)
	if t.f64 {
		shift, scale = 3, 8
	}

	g.Load(g.Param("a"), RAX)
	g.Load(g.Param("lda"), R8)
	g.SHLQ(U8(shift), R8)
	g.LEAQ(Mem{Base: R8, Index: R8, Scale: 2}, R9) // 3·lda
	if mr > 5 {
		g.LEAQ(Mem{Base: RAX, Index: R8, Scale: 4}, R10)
		g.ADDQ(R8, R10) // a + 5·lda
	}
	g.Load(g.Param("x"), RBX)
	g.Load(g.Param("ldx"), R12)
	g.SHLQ(U8(shift), R12)
	g.Load(g.Param("offs"), RSI)
	g.Load(g.Param("taps"), R13)
	g.Load(g.Param("c"), RCX)
	for i := 0; i < mr; i++ {
		for j := 0; j < nv; j++ {
			g.vxor(t, acc(i, j), acc(i, j), acc(i, j))
		}
	}
	bases := []Register{RAX, R10}
	rowAddr := func(i int) Mem {
		m := Mem{Base: bases[i/5]}
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

	g.Label("channel")
	g.XORQ(RDI, RDI)
	g.Label("tap")
	g.MOVQ(Mem{Base: RSI, Index: RDI, Scale: 8}, R11)
	g.LEAQ(Mem{Base: RBX, Index: R11, Scale: scale}, R11)
	for j := 0; j < nv; j++ {
		g.vmovu(t, Mem{Base: R11, Disp: j * w.bytes}, breg(j))
	}
	for i := 0; i < mr; i++ {
		g.vbroadcast(t, rowAddr(i), bcast(i))
		for j := 0; j < nv; j++ {
			g.vfmadd231(t, breg(j), bcast(i), acc(i, j))
		}
	}
	g.ADDQ(U8(t.size), RAX)
	if mr > 5 {
		g.ADDQ(U8(t.size), R10)
	}
	g.INCQ(RDI)
	g.CMPQ(RDI, R13)
	g.JNE(LabelRef("tap"))
	g.ADDQ(R12, RBX)
	g.DECQ(RCX)
	g.JNZ(LabelRef("channel"))

	g.Load(g.Param("y"), RDX)
	g.Load(g.Param("ldy"), RSI)
	g.SHLQ(U8(shift), RSI)
	for i := 0; i < mr; i++ {
		for j := 0; j < nv; j++ {
			g.vmovu(t, acc(i, j), Mem{Base: RDX, Disp: j * w.bytes})
		}
		if i < mr-1 {
			g.ADDQ(RSI, RDX)
		}
	}
	g.VZEROUPPER()
	g.RET()
}

// convTileShapes are the tile kernels' shapes per width: mr from 1 to the
// tallest (a kernel per height, for the last rows of K), nv vectors wide.
// zmm: 8 rows × 3 vectors, 24 accumulators, 3 loads of x and 8 broadcasts
// per 24 FMAs; ymm: 4 × 3 in 16 registers.
var convTileShapes = []struct {
	w      width
	mr, nv int
}{
	{ymm, 4, 3},
	{zmm, 8, 3},
}

func genConvTiles(g *gen) {
	for _, s := range convTileShapes {
		for _, t := range []dtype{f32, f64} {
			for mr := 1; mr <= s.mr; mr++ {
				g.convTileKernel(t, s.w, mr, s.nv)
			}
		}
	}
}
