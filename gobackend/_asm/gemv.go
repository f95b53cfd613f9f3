package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// GEMV's AVX-512 inner loops take several rows of A at a time. A dot
// product per row (op(A) = A) loads x once per row, two loads per FMA, and
// streams one row at a time from memory; eight rows share each load of x
// (nine loads per eight FMAs, where four rows take five per four) and keep
// eight streams in flight. From L1 and L2 eight rows took 7–8% less time
// than four (256², 512², 256×1024, f32 and f64); from L3 both run at its
// read bandwidth. The four-row dot takes the m mod 8 rows left. An axpy per
// row (op(A) = Aᵀ) loads and stores the accumulator row once per row of A;
// four rows at a time, once per four.

// gemvRows is the number of rows of A axpy4 takes per call.
const gemvRows = 4

func genGemv4(g *gen, t dtype) {
	g.dotRows(t, 8)
	g.dotRows(t, 4)
	g.axpy4(t)
}

func (g *gen) gemvFunc(t dtype, name, sig string, doc ...string) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.Function(t.char + name + "AVX512")
	// Without it the compiler assumes the pointers escape, and dot4's
	// out, an array on the caller's stack, was allocated on the heap at
	// every call (129 allocations in a 512×512 GEMV).
	g.Pragma("noescape")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf(sig, elem))
	g.Doc(doc...)
}

// rowPtrs loads a and lda (in elements) and returns the addresses of the
// first nrows rows.
func (g *gen) rowPtrs(t dtype, nrows int) []Register {
	a, lda := g.GP64(), g.GP64()
	g.Load(g.Param("a"), a)
	g.Load(g.Param("lda"), lda)
	g.SHLQ(U8(log2(t.size)), lda)
	rows := []Register{a}
	for r := 1; r < nrows; r++ {
		p := g.GP64()
		g.LEAQ(Mem{Base: rows[r-1], Index: lda, Scale: 1}, p)
		rows = append(rows, p)
	}
	return rows
}

// dotRows emits <t>dot<nrows>AVX512: out[r] = Σ a[r·lda+j]·x[j], r < nrows,
// j < n, two accumulators per row in T (2·nrows zmm registers and x's).
func (g *gen) dotRows(t dtype, nrows int) {
	name := fmt.Sprintf("dot%d", nrows)
	g.gemvFunc(t, name, fmt.Sprintf("func(n int, a *%%[1]s, lda int, x *%%[1]s, out *[%d]%%[1]s)", nrows),
		fmt.Sprintf("%s%sAVX512 sets out[r] = Σ a[r·lda+j]·x[j] for r < %d, j < n: %d rows of", t.char, name, nrows, nrows),
		"A with x, each summed in two vector accumulators of its type. It needs AVX-512F.")
	w := zmm
	n, x := g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	rows := g.rowPtrs(t, nrows)
	g.Load(g.Param("x"), x)
	const nacc = 2
	acc := make([][nacc]VecVirtual, nrows)
	for r := range acc {
		for i := range acc[r] {
			acc[r][i] = g.ZMM()
			g.vxor(t, acc[r][i], acc[r][i], acc[r][i])
		}
	}
	g.loopW(t, w, 2*nacc, n, append([]Register{x}, rows...), func(u, _ int, k Op) {
		xv := g.ZMM()
		g.vloadW(t, w, Mem{Base: x, Disp: u * w.bytes}, k, xv)
		for r, p := range rows {
			m := Mem{Base: p, Disp: u * w.bytes}
			if k == nil {
				g.vfmadd231(t, m, xv, acc[r][u%nacc])
				continue
			}
			av := g.ZMM()
			g.vloadW(t, w, m, k, av)
			g.vfmadd231(t, av, xv, acc[r][u%nacc])
		}
	})
	out := g.GP64()
	g.Load(g.Param("out"), out)
	for r := range acc {
		g.vadd(t, acc[r][1], acc[r][0], acc[r][0])
		s := g.hfold(t, acc[r][0], g.vadd)
		g.movs(t, s, Mem{Base: out, Disp: r * t.size})
	}
	g.VZEROUPPER()
	g.RET()
}

// axpy4 emits <t>axpy4AVX512: y[j] += x[0]·a[j] + x[1]·a[lda+j] +
// x[2]·a[2·lda+j] + x[3]·a[3·lda+j] for j < n, by FMAs in that order.
func (g *gen) axpy4(t dtype) {
	g.gemvFunc(t, "axpy4", "func(n int, x *[4]%[1]s, a *%[1]s, lda int, y *%[1]s)",
		fmt.Sprintf("%saxpy4AVX512 sets y[j] += Σ x[r]·a[r·lda+j] for r < 4, j < n, by FMAs in", t.char),
		"the order of r: four rows of A scaled and added to y. It needs AVX-512F.")
	w := zmm
	n, xp, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), xp)
	xs := make([]VecVirtual, gemvRows)
	for r := range xs {
		xs[r] = g.ZMM()
		g.vbroadcast(t, Mem{Base: xp, Disp: r * t.size}, xs[r])
	}
	rows := g.rowPtrs(t, gemvRows)
	g.Load(g.Param("y"), y)
	g.loopW(t, w, 4, n, append([]Register{y}, rows...), func(u, _ int, k Op) {
		acc := g.ZMM()
		g.vloadW(t, w, Mem{Base: y, Disp: u * w.bytes}, k, acc)
		for r, p := range rows {
			m := Mem{Base: p, Disp: u * w.bytes}
			if k == nil {
				g.vfmadd231(t, m, xs[r], acc)
				continue
			}
			av := g.ZMM()
			g.vloadW(t, w, m, k, av)
			g.vfmadd231(t, av, xs[r], acc)
		}
		g.vstoreW(t, w, acc, Mem{Base: y, Disp: u * w.bytes}, k)
	})
	g.VZEROUPPER()
	g.RET()
}
