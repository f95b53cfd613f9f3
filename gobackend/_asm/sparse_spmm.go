package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The sparse package's SpMM kernels: Y = A·X, A in CSR, X and Y row-major
// with k columns. Each row of Y is held in registers, spmmVecs vectors of
// it per pass (k wider than that runs in column blocks, each re-reading
// the row's few indices and values from L1); each entry broadcasts its
// value and multiplies it into X's row at its column, loaded from memory
// by the FMA. Entries alternate between two sets of accumulators, which
// halves the FMA chain a row waits on. The last vector of the last pass
// runs under a mask of the tail's lanes (AVX-512: masked FMA and store,
// which never touch masked-off memory; AVX2: VMASKMOV).

// spmmVecs is the most vectors of Y's row a pass holds: two sets of four
// accumulators and two broadcasts fit AVX2's sixteen registers.
const spmmVecs = 4

// spmmRows emits <t>spmmRows<W>: rows of Y = A·X from rowPtr (the first
// row's start; rowPtr[r+1] its end), colIdx and val the whole matrix's.
func (g *gen) spmmRows(t dtype, w width) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.Function(t.char + "spmmRows" + w.name)
	g.Pragma("noescape")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf("func(rows int, rowBytes int, passes int, tailVecs int, tail int, rowPtr *int32, colIdx *int32, val *%[1]s, x *%[1]s, y *%[1]s)", elem))
	doc := []string{fmt.Sprintf("%sspmmRows%s sets Y's row r = Σ val[p]·X's row colIdx[p], p from rowPtr[r] to rowPtr[r+1], for r < rows.", t.char, w.name),
		fmt.Sprintf("Rows of X and Y are rowBytes long: passes blocks of %d vectors, then tailVecs vectors", spmmVecs),
		"(0 to 4), the last of them tail lanes (1 to all). Every column index must be within X: the loads do not check."}
	if w == zmm {
		doc = append(doc, "It needs AVX-512F and BMI2.")
	}
	g.Doc(doc...)

	rows, rp, ci, val, x, y := g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("rows"), rows)
	g.Load(g.Param("rowPtr"), rp)
	g.Load(g.Param("colIdx"), ci)
	g.Load(g.Param("val"), val)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)

	// The tail's mask: a k register (AVX-512) or a vector of ones in the
	// tail's lanes (AVX2, from the mask table at 32 − tail·size).
	var mask Op
	{
		tail := g.GP64()
		g.Load(g.Param("tail"), tail)
		if w == zmm {
			bits, k := g.GP64(), g.K()
			g.MOVQ(I32(-1), bits)
			g.BZHIQ(tail, bits, bits)
			g.KMOVW(bits.As32(), k)
			mask = k
		} else {
			p, m := g.GP64(), g.YMM()
			g.LEAQ(g.maskTable(), p)
			g.SHLQ(U8(log2(t.size)), tail)
			g.ADDQ(U8(32), p)
			g.SUBQ(tail, p)
			g.VMOVDQU(Mem{Base: p}, m)
			mask = m
		}
	}

	rb := g.GP64() // rowBytes, in a register: a memory operand of IMUL is a load per entry
	g.Load(g.Param("rowBytes"), rb)
	colOff, cnt := g.GP64(), g.GP64()
	rowLoop, done, passLoop, tailPass, rowEnd := g.label("row"), g.label("done"), g.label("pass"), g.label("tailpass"), g.label("rowend")
	g.Label(rowLoop)
	g.TESTQ(rows, rows)
	g.JE(LabelRef(done))
	g.XORQ(colOff, colOff)
	g.Load(g.Param("passes"), cnt)
	g.Label(passLoop)
	g.TESTQ(cnt, cnt)
	g.JE(LabelRef(tailPass))
	g.spmmPass(t, w, spmmVecs, nil, rp, ci, val, x, y, colOff, rb)
	g.ADDQ(U32(spmmVecs*w.bytes), colOff)
	g.DECQ(cnt)
	g.JMP(LabelRef(passLoop))

	// The tail: tailVecs vectors, the last under the mask unless the tail
	// fills it (then the plain loads and stores, without the mask's cost).
	g.Label(tailPass)
	g.Load(g.Param("tailVecs"), cnt)
	full := g.label("full")
	g.CMPQ(g.paramAddr("tail"), U8(w.bytes/t.size))
	g.JE(LabelRef(full))
	var masked, plain []string
	for nv := 1; nv <= spmmVecs; nv++ {
		masked = append(masked, g.label(fmt.Sprintf("tail%d_", nv)))
		plain = append(plain, g.label(fmt.Sprintf("full%d_", nv)))
		g.CMPQ(cnt, U8(nv))
		g.JE(LabelRef(masked[nv-1]))
	}
	g.JMP(LabelRef(rowEnd))
	g.Label(full)
	for nv := 1; nv <= spmmVecs; nv++ {
		g.CMPQ(cnt, U8(nv))
		g.JE(LabelRef(plain[nv-1]))
	}
	g.JMP(LabelRef(rowEnd))
	for nv := 1; nv <= spmmVecs; nv++ {
		g.Label(masked[nv-1])
		g.spmmPass(t, w, nv, mask, rp, ci, val, x, y, colOff, rb)
		g.JMP(LabelRef(rowEnd))
		g.Label(plain[nv-1])
		g.spmmPass(t, w, nv, nil, rp, ci, val, x, y, colOff, rb)
		g.JMP(LabelRef(rowEnd))
	}

	g.Label(rowEnd)
	g.ADDQ(U8(4), rp)
	g.ADDQ(rb, y)
	g.DECQ(rows)
	g.JMP(LabelRef(rowLoop))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// spmmPrefetch is how far ahead, in bytes, a pass asks for the value and
// column-index streams (one line of each per row): the hardware
// prefetcher alone left one core short of lines in flight, as in the SELL
// kernel (sparse.go).
const spmmPrefetch = 1024

// spmmPass emits one pass over a row's entries: nv vectors of Y's row at
// byte offset colOff, the last under mask (nil: none). The entries go four
// at a time, alternating between the two sets of accumulators, with one
// compare and branch per four.
func (g *gen) spmmPass(t dtype, w width, nv int, mask Op, rp, ci, val, x, y, colOff, rowBytes Register) {
	p, end, xb := g.GP64(), g.GP64(), g.GP64()
	g.MOVLQSX(Mem{Base: rp}, p)
	g.MOVLQSX(Mem{Base: rp, Disp: 4}, end)
	g.LEAQ(Mem{Base: x, Index: colOff, Scale: 1}, xb)
	g.PREFETCHT0(Mem{Base: val, Index: p, Scale: uint8(t.size), Disp: spmmPrefetch})
	g.PREFETCHT0(Mem{Base: ci, Index: p, Scale: 4, Disp: spmmPrefetch})
	var acc [2][]VecVirtual
	for s := range acc {
		for range nv {
			a := g.vec(w)
			g.vxor(t, a, a, a)
			acc[s] = append(acc[s], a)
		}
	}
	// fma adds val[p+e]·X's row colIdx[p+e] into accumulator set s.
	fma := func(e, s int) {
		c, b := g.GP64(), g.vec(w)
		g.MOVLQSX(Mem{Base: ci, Index: p, Scale: 4, Disp: 4 * e}, c)
		g.IMULQ(rowBytes, c)
		g.vbroadcast(t, Mem{Base: val, Index: p, Scale: uint8(t.size), Disp: t.size * e}, b)
		for v := range nv {
			m := Mem{Base: xb, Index: c, Scale: 1, Disp: v * w.bytes}
			switch {
			case v < nv-1 || mask == nil:
				g.vfmadd231(t, m, b, acc[s][v])
			case w == zmm && t.f64:
				g.VFMADD231PD(m, b, mask, acc[s][v])
			case w == zmm:
				g.VFMADD231PS(m, b, mask, acc[s][v])
			default:
				xv := g.vec(w)
				if t.f64 {
					g.VMASKMOVPD(m, mask, xv)
				} else {
					g.VMASKMOVPS(m, mask, xv)
				}
				g.vfmadd231(t, xv, b, acc[s][v])
			}
		}
	}
	// No prefetch of X's rows: asking for the row 8 entries ahead measured
	// no better on the suite's shapes (k = 8, X of 8–16 MiB; Intel Xeon
	// VM, runs of asm and MKL alternated with and without): uniform within
	// the noise, banded 5–10% slower.
	quad, rest, single, sum := g.label("quad"), g.label("rest"), g.label("single"), g.label("sum")
	g.SUBQ(U8(3), end) // p < end−3: four entries left
	g.CMPQ(p, end)
	g.JGE(LabelRef(rest))
	g.Label(quad)
	fma(0, 0)
	fma(1, 1)
	fma(2, 0)
	fma(3, 1)
	g.ADDQ(U8(4), p)
	g.CMPQ(p, end)
	g.JL(LabelRef(quad))
	g.Label(rest)
	g.ADDQ(U8(3), end)
	g.Label(single)
	g.CMPQ(p, end)
	g.JGE(LabelRef(sum))
	fma(0, 0)
	g.INCQ(p)
	g.JMP(LabelRef(single))
	g.Label(sum)
	for v := range nv {
		a := acc[0][v]
		g.vadd(t, acc[1][v], a, a)
		m := Mem{Base: y, Index: colOff, Scale: 1, Disp: v * w.bytes}
		switch {
		case v < nv-1 || mask == nil:
			g.vmovu(t, a, m)
		case w == zmm && t.f64:
			g.VMOVUPD(a, mask, m)
		case w == zmm:
			g.VMOVUPS(a, mask, m)
		case t.f64:
			g.VMASKMOVPD(a, mask, m)
		default:
			g.VMASKMOVPS(a, mask, m)
		}
	}
}
