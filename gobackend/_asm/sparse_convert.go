package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The sparse package's format conversions (gobackend/sparse/convert.go):
// CSR → COO's row expansion with vector stores, and CSR → CSC's two passes
// (count per column, scatter) as scalar loops with no bounds checks, which
// took Go's compiled loops 2–3 times as many instructions an entry.

func genSparseConvert(g *gen) {
	g.cooRows(ymm)
	g.cooRows(zmm)
	g.cscCount()
	for _, t := range []dtype{f32, f64} {
		g.cscScatter(t)
	}
}

// cooBlock is the entries cooRows stores from each row's start whatever
// the row's length: two zmm or four ymm vectors, so that every row of up
// to cooBlock entries takes the same stores and no branch on its length.
const cooBlock = 32

// cooRows emits cooRows<W>: out[p] = row + r for the entries p of rows r <
// rows. Each row stores cooBlock entries from its start, then (a longer
// row) vectors up to its end, the last ending there: the stores past a
// row's end are overwritten by the rows after it, which run later.
func (g *gen) cooRows(w width) {
	g.Function("cooRows" + w.name)
	g.Pragma("noescape")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(rows int, row int32, rowPtr *int32, out *int32)")
	doc := []string{
		fmt.Sprintf("cooRows%s sets out[p] = row + r for p from rowPtr[r] to rowPtr[r+1], r < rows (rows > 0).", w.name),
		fmt.Sprintf("It writes out from rowPtr[0] to max(rowPtr[rows], rowPtr[rows-1] + %d): the caller", cooBlock),
		"owns what lies past rowPtr[rows] and rewrites it.",
	}
	g.Doc(append(doc, needs(w)...)...)
	rows, rp, out := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("rows"), rows)
	g.Load(g.Param("rowPtr"), rp)
	g.Load(g.Param("out"), out)
	v, one := g.vec(w), g.vec(w)
	r, k := g.GP32(), g.GP32()
	g.Load(g.Param("row"), r)
	g.MOVL(U32(1), k)
	for _, b := range []struct {
		src Register
		dst VecVirtual
	}{{r, v}, {k, one}} {
		if w == zmm {
			g.VPBROADCASTD(b.src, b.dst)
		} else {
			g.VMOVD(b.src, b.dst.AsX())
			g.VPBROADCASTD(b.dst.AsX(), b.dst)
		}
	}
	lanes := w.bytes / 4
	s, e, n, p := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.MOVLQSX(Mem{Base: rp}, s)
	rowLoop, next, long, longLoop, longLast := g.label("row"), g.label("next"), g.label("long"), g.label("longloop"), g.label("longlast")
	g.Label(rowLoop)
	g.MOVLQSX(Mem{Base: rp, Disp: 4}, e)
	for u := 0; u < cooBlock/lanes; u++ {
		g.VMOVDQU32orU(w, v, Mem{Base: out, Index: s, Scale: 4, Disp: u * w.bytes})
	}
	g.MOVQ(e, n)
	g.SUBQ(s, n)
	g.CMPQ(n, U32(cooBlock))
	g.JG(LabelRef(long))
	g.Label(next)
	g.VPADDD(one, v, v) // the next row
	g.MOVQ(e, s)
	g.ADDQ(U8(4), rp)
	g.DECQ(rows)
	g.JNZ(LabelRef(rowLoop))
	g.VZEROUPPER()
	g.RET()

	// A row of more than cooBlock entries: whole vectors from cooBlock on
	// while one more fits before the end, then the vector ending there.
	g.Label(long)
	g.LEAQ(Mem{Base: s, Disp: cooBlock}, p)
	g.SUBQ(U8(lanes), e) // the last vector's start
	g.Label(longLoop)
	g.CMPQ(p, e)
	g.JGE(LabelRef(longLast))
	g.VMOVDQU32orU(w, v, Mem{Base: out, Index: p, Scale: 4})
	g.ADDQ(U8(lanes), p)
	g.JMP(LabelRef(longLoop))
	g.Label(longLast)
	g.VMOVDQU32orU(w, v, Mem{Base: out, Index: e, Scale: 4})
	g.ADDQ(U8(lanes), e)
	g.JMP(LabelRef(next))
}

// cscCount emits cscCount: count[colIdx[p]]++ for p < n, four entries a
// trip.
func (g *gen) cscCount() {
	g.Function("cscCount")
	g.Pragma("noescape")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(n int, colIdx *int32, count *int32)")
	g.Doc("cscCount adds 1 to count[colIdx[p]] for p < n. Every index must be within count.")
	n, ci, count := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("colIdx"), ci)
	g.Load(g.Param("count"), count)
	c := [4]Register{g.GP64(), g.GP64(), g.GP64(), g.GP64()}
	quad, single, done := g.label("quad"), g.label("single"), g.label("done")
	g.Label(quad)
	g.CMPQ(n, U8(4))
	g.JL(LabelRef(single))
	for u := range c {
		g.MOVLQSX(Mem{Base: ci, Disp: 4 * u}, c[u])
	}
	for u := range c {
		g.INCL(Mem{Base: count, Index: c[u], Scale: 4})
	}
	g.ADDQ(U8(16), ci)
	g.SUBQ(U8(4), n)
	g.JMP(LabelRef(quad))
	g.Label(single)
	g.TESTQ(n, n)
	g.JZ(LabelRef(done))
	g.MOVLQSX(Mem{Base: ci}, c[0])
	g.INCL(Mem{Base: count, Index: c[0], Scale: 4})
	g.ADDQ(U8(4), ci)
	g.DECQ(n)
	g.JMP(LabelRef(single))
	g.Label(done)
	g.RET()
}

// cscScatter emits <t>cscScatter: CSR → CSC's scatter of rows, each entry
// to its column's cursor, which moves on by one. Values move through a
// general register (their bits, no arithmetic).
func (g *gen) cscScatter(t dtype) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.Function(t.char + "cscScatter")
	g.Pragma("noescape")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf("func(rows int, row int32, rowPtr *int32, colIdx *int32, val *%[1]s, cursor *int32, valOut *%[1]s, rowOut *int32)", elem))
	g.Doc(fmt.Sprintf("%scscScatter copies entry p of each row r < rows (p from rowPtr[r] to rowPtr[r+1]) to", t.char),
		"q = cursor[colIdx[p]]: valOut[q] = val[p], rowOut[q] = row + r; then cursor[colIdx[p]] = q+1.",
		"rows > 0; every index must be within its array.")
	rows, rp, ci, val, cur, vo, ro := g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("rows"), rows)
	g.Load(g.Param("rowPtr"), rp)
	g.Load(g.Param("colIdx"), ci)
	g.Load(g.Param("val"), val)
	g.Load(g.Param("cursor"), cur)
	g.Load(g.Param("valOut"), vo)
	g.Load(g.Param("rowOut"), ro)
	r := g.GP32()
	g.Load(g.Param("row"), r)
	p, e, c, q, x := g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.MOVLQSX(Mem{Base: rp}, p)
	rowLoop, entry, next := g.label("row"), g.label("entry"), g.label("next")
	g.Label(rowLoop)
	g.MOVLQSX(Mem{Base: rp, Disp: 4}, e)
	g.CMPQ(p, e)
	g.JGE(LabelRef(next))
	g.Label(entry)
	g.MOVLQSX(Mem{Base: ci, Index: p, Scale: 4}, c)
	g.MOVLQSX(Mem{Base: cur, Index: c, Scale: 4}, q)
	g.LEAL(Mem{Base: q, Disp: 1}, x.As32())
	g.MOVL(x.As32(), Mem{Base: cur, Index: c, Scale: 4})
	if t.f64 {
		g.MOVQ(Mem{Base: val, Index: p, Scale: 8}, x)
		g.MOVQ(x, Mem{Base: vo, Index: q, Scale: 8})
	} else {
		g.MOVL(Mem{Base: val, Index: p, Scale: 4}, x.As32())
		g.MOVL(x.As32(), Mem{Base: vo, Index: q, Scale: 4})
	}
	g.MOVL(r, Mem{Base: ro, Index: q, Scale: 4})
	g.INCQ(p)
	g.CMPQ(p, e)
	g.JL(LabelRef(entry))
	g.Label(next)
	g.INCL(r)
	g.ADDQ(U8(4), rp)
	g.DECQ(rows)
	g.JNZ(LabelRef(rowLoop))
	g.RET()
}
