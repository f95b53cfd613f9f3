package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The sparse package's CSR kernels: y[i] = Σ val[p]·x[colIdx[p]] over the
// entries p of each row, x gathered by its column indices (VGATHERDPS/PD,
// int32 indices as CSR holds them), two vector accumulators per row
// summed across lanes at the row's end. AVX-512 runs a row's last
// entries under a mask (up to scalarTail of them, and AVX2 all, one at a
// time after the lanes are summed).

func genSparse(g *gen) {
	for _, t := range []dtype{f32, f64} {
		g.spmvRows(t, ymm)
		g.spmvRows(t, zmm)
		g.spmvSELL(t)
		g.spmmRows(t, ymm)
		g.spmmRows(t, zmm)
	}
}

// spmvRows emits <t>spmvRows<W>: y[r] = A's row r times x, for r < rows,
// rowPtr pointing at the first row's start (rowPtr[r+1] is its end);
// colIdx and val are the whole matrix's, indexed from rowPtr's values.
func (g *gen) spmvRows(t dtype, w width) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.Function(t.char + "spmvRows" + w.name)
	g.Pragma("noescape")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf("func(rows int, rowPtr *int32, colIdx *int32, val *%[1]s, x *%[1]s, y *%[1]s)", elem))
	doc := []string{fmt.Sprintf("%sspmvRows%s sets y[r] = Σ val[p]·x[colIdx[p]], p from rowPtr[r] to rowPtr[r+1], for r < rows.", t.char, w.name),
		"Every column index must be within x: the gathers do not check."}
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
	lanes := w.lanes(t)
	p, end, left := g.GP64(), g.GP64(), g.GP64()
	g.MOVLQSX(Mem{Base: rp}, p)

	rowLoop, done := g.label("row"), g.label("done")
	pairs, single, tail, sum := g.label("pairs"), g.label("single"), g.label("tail"), g.label("sum")
	g.Label(rowLoop)
	g.TESTQ(rows, rows)
	g.JE(LabelRef(done))
	g.MOVLQSX(Mem{Base: rp, Disp: 4}, end)
	acc := [2]VecVirtual{g.vec(w), g.vec(w)}
	for _, a := range acc {
		g.vxor(t, a, a, a)
	}
	// One vector of entries from p + u·lanes into acc[u]. Columns are
	// ascending and distinct, so a vector whose first and last differ by
	// lanes−1 reads consecutive elements of x: one load instead of a
	// gather (a band's or a stencil's runs of columns).
	step := func(u int) {
		first, last := g.GP64(), g.GP64()
		g.MOVLQSX(Mem{Base: ci, Index: p, Scale: 4, Disp: u * lanes * 4}, first)
		g.MOVLQSX(Mem{Base: ci, Index: p, Scale: 4, Disp: (u*lanes + lanes - 1) * 4}, last)
		g.SUBQ(first, last)
		g.CMPQ(last, U32(lanes-1))
		gathered, loaded := g.label("gathered"), g.label("loaded")
		v := g.vec(w)
		g.JNE(LabelRef(gathered))
		g.vmovu(t, Mem{Base: x, Index: first, Scale: uint8(t.size)}, v)
		g.JMP(LabelRef(loaded))
		g.Label(gathered)
		idx := g.indexVec(t, w)
		m := Mem{Base: ci, Index: p, Scale: 4, Disp: u * lanes * 4}
		if lanes*4 == 64 {
			g.VMOVDQU32(m, idx)
		} else {
			g.VMOVDQU(m, idx)
		}
		g.gatherInto(t, w, x, idx, nil, v)
		g.Label(loaded)
		g.vfmadd231(t, Mem{Base: val, Index: p, Scale: uint8(t.size), Disp: u * lanes * t.size}, v, acc[u])
	}
	g.Label(pairs)
	g.MOVQ(end, left)
	g.SUBQ(p, left)
	g.CMPQ(left, U32(2*lanes))
	g.JL(LabelRef(single))
	step(0)
	step(1)
	g.ADDQ(U32(2*lanes), p)
	g.JMP(LabelRef(pairs))
	g.Label(single)
	g.CMPQ(left, U32(lanes))
	g.JL(LabelRef(tail))
	step(0)
	g.ADDQ(U32(lanes), p)
	g.SUBQ(U32(lanes), left)
	g.Label(tail)
	if w == zmm {
		// The last left < lanes entries under a mask of left ones; up to
		// scalarTail of them one at a time below (a masked gather costs
		// as much as a full one: a 5-entry row ran faster without it).
		g.CMPQ(left, U8(scalarTail))
		g.JLE(LabelRef(sum))
		bits, k, kg := g.GP64(), g.K(), g.K()
		g.MOVQ(I32(-1), bits)
		g.BZHIQ(left, bits, bits)
		g.KMOVW(bits.As32(), k)
		idx := g.indexVec(t, w)
		g.VMOVDQU32_Z(Mem{Base: ci, Index: p, Scale: 4}, k, idx)
		g.KMOVW(k, kg)
		v := g.vec(w)
		g.gatherInto(t, w, x, idx, kg, v)
		m := g.vec(w)
		if t.f64 {
			g.VMOVUPD_Z(Mem{Base: val, Index: p, Scale: 8}, k, m)
		} else {
			g.VMOVUPS_Z(Mem{Base: val, Index: p, Scale: 4}, k, m)
		}
		g.vfmadd231(t, m, v, acc[0])
		g.MOVQ(end, p)
	}
	g.Label(sum)
	g.vadd(t, acc[1], acc[0], acc[0])
	s := g.sumLanes(t, w, acc[0])
	{
		// The entries left one at a time, into the sum.
		scalar, scalarDone := g.label("scalar"), g.label("scalarDone")
		g.Label(scalar)
		g.CMPQ(p, end)
		g.JGE(LabelRef(scalarDone))
		j, e := g.GP64(), g.XMM()
		g.MOVLQSX(Mem{Base: ci, Index: p, Scale: 4}, j)
		if t.f64 {
			g.VMOVSD(Mem{Base: x, Index: j, Scale: 8}, e)
			g.VFMADD231SD(Mem{Base: val, Index: p, Scale: 8}, e, s)
		} else {
			g.VMOVSS(Mem{Base: x, Index: j, Scale: 4}, e)
			g.VFMADD231SS(Mem{Base: val, Index: p, Scale: 4}, e, s)
		}
		g.INCQ(p)
		g.JMP(LabelRef(scalar))
		g.Label(scalarDone)
	}
	if t.f64 {
		g.VMOVSD(s, Mem{Base: y})
	} else {
		g.VMOVSS(s, Mem{Base: y})
	}
	g.ADDQ(U8(4), rp)
	g.ADDQ(U8(t.size), y)
	g.DECQ(rows)
	g.JMP(LabelRef(rowLoop))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// indexVec is a register for one vector's column indices: lanes int32s.
func (g *gen) indexVec(t dtype, w width) VecVirtual {
	switch w.lanes(t) * 4 {
	case 16:
		return g.XMM()
	case 32:
		return g.YMM()
	}
	return g.ZMM()
}

// scalarTail is the most entries the AVX-512 kernels leave to scalar code
// at a row's end.
const scalarTail = 4

// gatherInto loads x[idx[l]] for every lane l into v, under the mask k
// (AVX-512; nil: every lane). It clears v first, breaking the dependency
// on its old value, which a gather merges into.
func (g *gen) gatherInto(t dtype, w width, x Register, idx VecVirtual, k Op, v VecVirtual) {
	g.vxor(t, v, v, v)
	m := Mem{Base: x, Index: idx, Scale: uint8(t.size)}
	if w == ymm {
		ones := g.YMM()
		g.VPCMPEQD(ones, ones, ones)
		if t.f64 {
			g.VGATHERDPD(ones, m, v)
		} else {
			g.VGATHERDPS(ones, m, v)
		}
		return
	}
	if k == nil {
		kk := g.K()
		g.KXNORW(kk, kk, kk)
		k = kk
	}
	if t.f64 {
		g.VGATHERDPD(m, k, v)
	} else {
		g.VGATHERDPS(m, k, v)
	}
}

// sumLanes adds the lanes of v; the total is the low element of the
// returned XMM register (the rest of it undefined).
func (g *gen) sumLanes(t dtype, w width, v VecVirtual) Register {
	y := v.AsY()
	if w == zmm {
		hi := g.YMM()
		g.VEXTRACTF64X4(U8(1), v, hi)
		g.vadd(t, hi, y, y)
	}
	xv, hi := v.AsX(), g.XMM()
	g.VEXTRACTF128(U8(1), y, hi)
	g.vadd(t, hi, xv, xv)
	h := g.XMM()
	if t.f64 {
		g.VPERMILPD(U8(1), xv, h)
		g.VADDSD(h, xv, xv)
		return xv
	}
	g.VMOVHLPS(xv, xv, h)
	g.VADDPS(h, xv, xv)
	g.VMOVSHDUP(xv, h)
	g.VADDSS(h, xv, xv)
	return xv
}

// sellPrefetch is how far ahead of the loads, in bytes, the SELL kernel
// prefetches its value and index streams. A matrix past the caches is a
// few long streams that one core alone does not keep busy enough to
// reach DRAM's bandwidth (13 GB/s from one core here where two reach
// 26): prefetching 16 lines ahead took the banded f64 SpMV from 0.93× to
// 1.01–1.08× MKL's optimized handle and uniform f64 from 0.92 to
// 0.99–1.08 (Intel Xeon VM, interleaved runs); 512 was no better than
// none and 2048–4096 no better than 1024. On a matrix in the caches
// (a 5-point stencil of 490 k rows) they cost nothing measurable on the
// whole slices' paths; the general path paid 14% before stencils left
// it.
const sellPrefetch = 1024

// spmvSELL emits <t>spmvSELLAVX512: y = A·x over slices of A in sliced
// ELLPACK form (gobackend/sparse.SELL), one zmm of rows per slice. Entry j
// of the slice's rows is a vector: its indices and values loaded, x
// gathered under the mask of the rows at least j+1 long (padding never
// reads x), or loaded under it where the columns are consecutive,
// multiplied into the rows' sums, which are stored whole.
func (g *gen) spmvSELL(t dtype) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.Function(t.char + "spmvSELLAVX512")
	g.Pragma("noescape")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf("func(slices int, start *int32, width *int32, rowLen *int32, colIdx *int32, run *int32, affine *int32, val *%[1]s, x *%[1]s, y *%[1]s)", elem))
	g.Doc(fmt.Sprintf("%sspmvSELLAVX512 computes the rows of slices slices (start, width: theirs;", t.char),
		"rowLen: their rows'; affine: theirs; colIdx, run and val: the whole matrix's; y: their first row's).",
		"Every column index must be within x: the gathers do not check. It needs AVX-512F and VL.")
	n, st, wd, rl, ci, rn, af, val, x, y := g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("slices"), n)
	g.Load(g.Param("start"), st)
	g.Load(g.Param("width"), wd)
	g.Load(g.Param("rowLen"), rl)
	g.Load(g.Param("colIdx"), ci)
	g.Load(g.Param("run"), rn)
	g.Load(g.Param("affine"), af)
	g.Load(g.Param("val"), val)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	lanes := zmm.lanes(t)
	ones := g.indexVec(t, zmm)
	one := g.GP32()
	g.MOVL(U32(1), one)
	g.VPBROADCASTD(one, ones)
	slice, done, entry, store := g.label("slice"), g.label("done"), g.label("entry"), g.label("store")
	e, w, ri := g.GP64(), g.GP64(), g.GP64()
	g.Label(slice)
	g.TESTQ(n, n)
	g.JE(LabelRef(done))
	g.MOVLQSX(Mem{Base: st}, e)
	g.MOVLQSX(Mem{Base: wd}, w)
	acc := g.vec(zmm)
	g.vxor(t, acc, acc, acc)
	g.spmvSELLWhole(t, af, e, w, rn, val, x, acc, store)
	g.MOVQ(e, ri)
	g.SHRQ(U8(log2(lanes)), ri) // run's index: start[s]/lanes + j
	lens, jv := g.indexVec(t, zmm), g.indexVec(t, zmm)
	g.VMOVDQU32(Mem{Base: rl}, lens)
	g.VPXORD(jv, jv, jv)
	g.Label(entry)
	g.TESTQ(w, w)
	g.JE(LabelRef(store))
	k := g.K()
	g.VPCMPGTD(jv, lens, k) // rows longer than j
	g.PREFETCHT0(Mem{Base: val, Index: e, Scale: uint8(t.size), Disp: sellPrefetch})
	g.PREFETCHT0(Mem{Base: ci, Index: e, Scale: 4, Disp: sellPrefetch})
	// Rows whose entry j lies on one diagonal (a band's, a stencil's:
	// run ≥ 0, found by NewSELL) read consecutive elements of x: a masked
	// load, and none of the vector's indices.
	first := g.GP64()
	g.MOVLQSX(Mem{Base: rn, Index: ri, Scale: 4}, first)
	gathered, loaded := g.label("gathered"), g.label("loaded")
	v := g.vec(zmm)
	g.TESTQ(first, first)
	g.JS(LabelRef(gathered))
	if t.f64 {
		g.VMOVUPD_Z(Mem{Base: x, Index: first, Scale: 8}, k, v)
	} else {
		g.VMOVUPS_Z(Mem{Base: x, Index: first, Scale: 4}, k, v)
	}
	g.JMP(LabelRef(loaded))
	g.Label(gathered)
	idx := g.indexVec(t, zmm)
	g.VMOVDQU32(Mem{Base: ci, Index: e, Scale: 4}, idx)
	g.gatherInto(t, zmm, x, idx, k, v)
	g.Label(loaded)
	g.vfmadd231(t, Mem{Base: val, Index: e, Scale: uint8(t.size)}, v, acc)
	g.VPADDD(ones, jv, jv)
	g.ADDQ(U32(lanes), e)
	g.INCQ(ri)
	g.DECQ(w)
	g.JMP(LabelRef(entry))
	g.Label(store)
	g.vmovu(t, acc, Mem{Base: y})
	g.ADDQ(U8(4), st)
	g.ADDQ(U8(4), wd)
	g.ADDQ(U8(4), af)
	g.ADDQ(U32(lanes*4), rl)
	g.ADDQ(U32(lanes*t.size), y)
	g.DECQ(n)
	g.JMP(LabelRef(slice))
	g.Label(done)
	g.VZEROUPPER()
	g.RET()
}

// spmvSELLWhole emits the paths of a slice whose rows hold all of its
// entries (no padding: no mask, nor rowLen's read) and whose every vector
// lies on a diagonal (run ≥ 0), marked by NewSELL in affine: ≥ 0 when
// entry j of lane 0 is column affine[s] + j (a band inside its edges:
// nothing but the values is read — the traffic of the diagonal format,
// without its storage), sellRuns when the columns are run's (a stencil's
// diagonals, apart), −1 for the general loop that follows. Two
// accumulators halve the FMA chain a slice of few entries waits on. Each
// path sums into acc and jumps to store.
func (g *gen) spmvSELLWhole(t dtype, af, e, w, rn, val, x Register, acc VecVirtual, store string) {
	general, runs := g.label("general"), g.label("runs")
	first := g.GP64()
	g.MOVLQSX(Mem{Base: af}, first)
	g.CMPQ(first, I8(sellRuns))
	g.JE(LabelRef(runs))
	g.TESTQ(first, first)
	g.JS(LabelRef(general))
	xp, vp := g.GP64(), g.GP64()
	g.LEAQ(Mem{Base: x, Index: first, Scale: uint8(t.size)}, xp)
	g.LEAQ(Mem{Base: val, Index: e, Scale: uint8(t.size)}, vp)
	g.sellPairs(t, w, vp, acc, store, func(v VecVirtual, j int) {
		g.vmovu(t, Mem{Base: xp, Disp: j * t.size}, v)
	}, func(step int) { g.ADDQ(U8(step*t.size), xp) })

	g.Label(runs)
	rp, c0, c1 := g.GP64(), g.GP64(), g.GP64()
	g.MOVQ(e, rp)
	g.SHRQ(U8(log2(zmm.lanes(t))), rp)
	g.LEAQ(Mem{Base: rn, Index: rp, Scale: 4}, rp)
	g.LEAQ(Mem{Base: val, Index: e, Scale: uint8(t.size)}, vp)
	g.sellPairs(t, w, vp, acc, store, func(v VecVirtual, j int) {
		c := []GPVirtual{c0, c1}[j]
		g.MOVLQSX(Mem{Base: rp, Disp: 4 * j}, c)
		g.vmovu(t, Mem{Base: x, Index: c, Scale: uint8(t.size)}, v)
	}, func(step int) { g.ADDQ(U8(4*step), rp) })
	g.Label(general)
}

// sellPairs emits the loop of a whole slice's w vectors, two at a time
// into acc and a second accumulator, x's vector j of the pair loaded by
// loadX and its pointer moved on by advance; then acc's sum and a jump to
// store.
func (g *gen) sellPairs(t dtype, w, vp Register, acc VecVirtual, store string, loadX func(v VecVirtual, j int), advance func(step int)) {
	lanes := zmm.lanes(t)
	acc2, v, v2 := g.vec(zmm), g.vec(zmm), g.vec(zmm)
	g.vxor(t, acc2, acc2, acc2)
	pair, single, sum := g.label("pair"), g.label("single"), g.label("sum")
	g.Label(pair)
	g.CMPQ(w, U8(2))
	g.JL(LabelRef(single))
	g.PREFETCHT0(Mem{Base: vp, Disp: sellPrefetch})
	g.PREFETCHT0(Mem{Base: vp, Disp: sellPrefetch + 64})
	loadX(v, 0)
	loadX(v2, 1)
	g.vfmadd231(t, Mem{Base: vp}, v, acc)
	g.vfmadd231(t, Mem{Base: vp, Disp: lanes * t.size}, v2, acc2)
	advance(2)
	g.ADDQ(U32(2*lanes*t.size), vp)
	g.SUBQ(U8(2), w)
	g.JMP(LabelRef(pair))
	g.Label(single)
	g.TESTQ(w, w)
	g.JE(LabelRef(sum))
	loadX(v, 0)
	g.vfmadd231(t, Mem{Base: vp}, v, acc)
	g.Label(sum)
	g.vadd(t, acc2, acc, acc)
	g.JMP(LabelRef(store))
}

// sellRuns marks, in SELL's affine, a whole slice whose vectors each lie
// on a diagonal of their own (gobackend/sparse.sellRuns).
const sellRuns = -2
