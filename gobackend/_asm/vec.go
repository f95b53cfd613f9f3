package main

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Vector kernels: one pass over n elements, 256-bit vectors, several
// vectors per loop trip, then single vectors, then the last n mod lanes
// elements under a mask (VMASKMOVPS), so every element goes through the same
// arithmetic whatever its position. Registers are avo's virtual ones.

// vconst returns a 32-byte constant holding v in every lane of t (the bits
// of v for a float, v itself for an integer), defined once per file. While
// a zmm kernel is emitted (g.w) it returns the scalar instead, which the
// instruction helpers of ops.go take as an embedded broadcast ({1to16},
// {1to8}): a 64-byte constant would straddle two cache lines wherever the
// linker places it 32 bytes past one, and exp reads some fifteen
// constants per vector. A kernel with registers to spare holds the
// constants its loop reads in them instead (pin).
func (g *gen) vconst(t dtype, name string, bits uint64) Mem {
	if g.width() == zmm {
		return g.sconst(t, name, bits)
	}
	key := fmt.Sprintf("%s%s", t.char, name)
	if m, ok := g.consts[key]; ok {
		return m
	}
	m := g.StaticGlobal(key)
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for off := 0; off < 32; off += t.size {
		if t.f64 {
			g.AddDatum(off, U64(bits))
		} else {
			g.AddDatum(off, U32(uint32(bits)))
		}
	}
	if g.consts == nil {
		g.consts = map[string]Mem{}
	}
	g.consts[key] = m
	return m
}

// sconst is the scalar constant of vconst in a zmm kernel.
func (g *gen) sconst(t dtype, name string, bits uint64) Mem {
	key := fmt.Sprintf("%s%s_s", t.char, name) // vconst names have no "_"
	if m, ok := g.consts[key]; ok {
		return m
	}
	m := g.StaticGlobal(key)
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	if t.f64 {
		g.AddDatum(0, U64(bits))
	} else {
		g.AddDatum(0, U32(uint32(bits)))
	}
	if g.consts == nil {
		g.consts = map[string]Mem{}
	}
	if g.scalars == nil {
		g.scalars = map[Symbol]bool{}
	}
	g.consts[key] = m
	g.scalars[m.Symbol] = true
	return m
}

// pin broadcasts the scalar constants ms (of sconst) into registers that
// the instruction helpers then use in their place, until unpin. A zmm
// kernel whose loop reads the same constants every trip pins those it
// has registers for: on the Ice Lake VM, exp f64 with its twelve
// polynomial and reduction constants in registers took 0.6× the time of
// the same instructions with embedded-broadcast operands (1 Ki
// elements, Go benchmarks alternated; the FMAs with a broadcast
// operand issued one a cycle, not two).
func (g *gen) pin(t dtype, ms ...Mem) {
	if g.pins == nil {
		g.pins = map[Symbol]VecVirtual{}
	}
	for _, m := range ms {
		if !g.bcast(m) {
			panic("pin: not a broadcast constant: " + m.Symbol.Name)
		}
		if _, ok := g.pins[m.Symbol]; ok {
			continue
		}
		r := g.newVec()
		g.vbroadcast(t, m, r)
		g.pins[m.Symbol] = r
	}
}

// unpin ends pin's registers: the constants are memory operands again.
func (g *gen) unpin() { g.pins = nil }

// constant is the operand an instruction helper emits for op: the
// register of a pinned constant, else op itself, with whether that is a
// scalar constant to take as an embedded broadcast.
func (g *gen) constant(op Op) (Op, bool) {
	if m, ok := op.(Mem); ok {
		if r, ok := g.pins[m.Symbol]; ok {
			return r, false
		}
	}
	return op, g.bcast(op)
}

// bcast reports whether op is a scalar constant of sconst.
func (g *gen) bcast(op Op) bool {
	m, ok := op.(Mem)
	return ok && g.scalars[m.Symbol]
}

// width is the vector width of the kernel being emitted by the
// width-generic generators (math.go, nn.go): g.w, ymm when unset.
func (g *gen) width() width {
	if g.w == zmm {
		return zmm
	}
	return ymm
}

// newVec returns a new virtual vector register of g.width().
func (g *gen) newVec() VecVirtual { return g.vec(g.width()) }

// fconst is vconst of a float value.
func (g *gen) fconst(t dtype, name string, v float64) Mem {
	if t.f64 {
		return g.vconst(t, name, math.Float64bits(v))
	}
	return g.vconst(t, name, uint64(math.Float32bits(float32(v))))
}

// maskTable is 32 bytes of ones then 32 of zeros: the 32 bytes at
// 32 − r·size select the first r lanes.
func (g *gen) maskTable() Mem {
	if g.masks != nil {
		return *g.masks
	}
	m := g.StaticGlobal("tailmask")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for off := 0; off < 64; off += 4 {
		v := uint32(0)
		if off < 32 {
			v = 0xffffffff
		}
		g.AddDatum(off, U32(v))
	}
	g.masks = &m
	return m
}

// vload loads vector u (counted from ptr) into dst, under the tail mask
// when one is active.
func (g *gen) vload(t dtype, ptr Register, u int, dst VecVirtual) {
	m := Mem{Base: ptr, Disp: u * 32}
	if g.mask != nil {
		if t.f64 {
			g.VMASKMOVPD(m, g.mask, dst)
		} else {
			g.VMASKMOVPS(m, g.mask, dst)
		}
		return
	}
	g.vmovu(t, m, dst)
}

// vstore stores src as vector u from ptr, under the tail mask when active.
func (g *gen) vstore(t dtype, src VecVirtual, ptr Register, u int) {
	m := Mem{Base: ptr, Disp: u * 32}
	if g.mask != nil {
		if t.f64 {
			g.VMASKMOVPD(src, g.mask, m)
		} else {
			g.VMASKMOVPS(src, g.mask, m)
		}
		return
	}
	g.vmovu(t, src, m)
}

// loop emits the element loop over n (a GP register, counting down): body(u,
// of) handles vector u of the of vectors of the current trip, from the
// current position of every pointer in ptrs,
// unroll vectors per trip, then one per trip, then the masked tail (g.mask
// set). After the loop n is zero and the pointers are past the last full
// vector.
func (g *gen) loop(t dtype, unroll int, n Register, ptrs []Register, body func(u, of int)) {
	g.loopW(t, ymm, unroll, n, ptrs, func(u, of int, k Op) {
		g.mask = k
		body(u, of)
		g.mask = nil
	})
}

// loopW is loop for vectors of width w, the tail's mask passed to body as
// k (nil for whole vectors): a ymm register of all-ones lanes for
// VMASKMOVPS, or, for zmm, a mask register.
func (g *gen) loopW(t dtype, w width, unroll int, n Register, ptrs []Register, body func(u, of int, k Op)) {
	lanes := w.lanes(t)
	big, single, tail, done := g.label("big"), g.label("single"), g.label("tail"), g.label("done")
	g.Label(big)
	g.CMPQ(n, U32(unroll*lanes))
	g.JL(LabelRef(single))
	for u := 0; u < unroll; u++ {
		body(u, unroll, nil)
	}
	for _, p := range ptrs {
		g.ADDQ(U32(unroll*w.bytes), p)
	}
	g.SUBQ(U32(unroll*lanes), n)
	g.JMP(LabelRef(big))

	g.Label(single)
	g.CMPQ(n, U32(lanes))
	g.JL(LabelRef(tail))
	body(0, 1, nil)
	for _, p := range ptrs {
		g.ADDQ(U32(w.bytes), p)
	}
	g.SUBQ(U32(lanes), n)
	g.JMP(LabelRef(single))

	g.Label(tail)
	g.TESTQ(n, n)
	g.JZ(LabelRef(done))
	g.maskedTail(t, w, n, body)
	g.Label(done)
}

// maskedTail runs body once on the n < lanes elements at the pointers,
// under their mask (tailMask).
func (g *gen) maskedTail(t dtype, w width, n Register, body func(u, of int, k Op)) {
	body(0, 1, g.tailMask(t, w, n))
}

// tailMask returns the mask of the first r lanes (r < lanes) of width w:
// a mask register for zmm, a ymm of all-ones lanes (VMASKMOVPS) otherwise.
func (g *gen) tailMask(t dtype, w width, r Register) Op {
	tbl := g.GP64()
	if w == zmm {
		g.LEAQ(g.kmaskTable(), tbl)
		k := g.K()
		g.KMOVW(Mem{Base: tbl, Index: r, Scale: 2}, k)
		return k
	}
	off := g.GP64()
	g.LEAQ(g.maskTable(), tbl)
	g.MOVQ(r, off)
	g.SHLQ(U8(log2(t.size)), off)
	g.NEGQ(off)
	mask := g.YMM()
	g.VMOVDQU(Mem{Base: tbl, Index: off, Scale: 1, Disp: 32}, mask)
	return mask
}

// loopBackW is loopW walking down from the end: the pointers start past
// their last element, the last n mod lanes elements go first, masked, and
// then each trip steps the pointers back before its vectors, which body
// takes highest first, so every load and store lies below those before it
// and the whole vectors lie where loopW's do, as aligned as the arrays'
// starts (with the masked part last, an n off a multiple of the lanes
// put every vector across two cache lines: an AVX-512 add of 341 f32 from
// L1 took 1.4× the time of one walking up). The element-wise kernels whose
// output's page offset is just ahead of an input's run it (elem, by
// num.WalkDown): walking up, each load would then share its address's low
// 12 bits with a store a few hundred bytes back, still in the store
// buffer, and wait for it (4K aliasing).
func (g *gen) loopBackW(t dtype, w width, unroll int, n Register, ptrs []Register, body func(u, of int, k Op)) {
	lanes := w.lanes(t)
	for _, p := range ptrs {
		g.LEAQ(Mem{Base: p, Index: n, Scale: uint8(t.size)}, p)
	}
	big, single, done := g.label("big"), g.label("single"), g.label("done")
	// The last r = n mod lanes elements, from lanes·⌊n/lanes⌋ on.
	r := g.GP64()
	g.MOVQ(n, r)
	g.ANDQ(U32(lanes-1), r)
	g.JZ(LabelRef(big))
	g.SUBQ(r, n)
	tail := g.GP64()
	g.MOVQ(r, tail)
	g.SHLQ(U8(log2(t.size)), tail)
	for _, p := range ptrs {
		g.SUBQ(tail, p)
	}
	g.maskedTail(t, w, r, body)

	g.Label(big)
	g.CMPQ(n, U32(unroll*lanes))
	g.JL(LabelRef(single))
	for _, p := range ptrs {
		g.SUBQ(U32(unroll*w.bytes), p)
	}
	for u := unroll - 1; u >= 0; u-- {
		body(u, unroll, nil)
	}
	g.SUBQ(U32(unroll*lanes), n)
	g.JMP(LabelRef(big))

	g.Label(single)
	g.TESTQ(n, n)
	g.JZ(LabelRef(done))
	for _, p := range ptrs {
		g.SUBQ(U32(w.bytes), p)
	}
	body(0, 1, nil)
	g.SUBQ(U32(lanes), n)
	g.JMP(LabelRef(single))
	g.Label(done)
}

// vloadW loads m into dst, a vector of width w: with k (loopW's tail
// mask), only its lanes, the others zero (a masked load does not fault).
func (g *gen) vloadW(t dtype, w width, m Mem, k Op, dst VecVirtual) {
	switch {
	case k == nil:
		g.vmovu(t, m, dst)
	case w == zmm && t.f64:
		g.VMOVUPD_Z(m, k, dst)
	case w == zmm:
		g.VMOVUPS_Z(m, k, dst)
	case t.f64:
		g.VMASKMOVPD(m, k, dst)
	default:
		g.VMASKMOVPS(m, k, dst)
	}
}

// vec returns a new virtual vector register of width w.
func (g *gen) vec(w width) VecVirtual {
	if w == zmm {
		return g.ZMM()
	}
	return g.YMM()
}

// lowHalf is the register of half v's width holding its low half.
func lowHalf(v VecVirtual) Register {
	if v.Size() == 64 {
		return v.AsY()
	}
	return v.AsX()
}

// extractHigh copies the high half of v (ymm or zmm) into dst, a register
// of half its width.
func (g *gen) extractHigh(v VecVirtual, dst Register) {
	if v.Size() == 64 {
		g.VEXTRACTF64X4(U8(1), v, dst)
	} else {
		g.VEXTRACTF128(U8(1), v, dst)
	}
}

// elemFunc declares an AVX2 kernel function.
func (g *gen) elemFunc(t dtype, name, sig string, doc ...string) {
	g.vecFunc(t, ymm, name, sig, doc...)
}

// vecFunc declares the kernel function <t><name><w.name>, its signature sig
// with %s for the element type.
func (g *gen) vecFunc(t dtype, w width, name, sig string, doc ...string) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.Function(fmt.Sprintf("%s%s%s", t.char, name, w.name))
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf(sig, elem))
	g.Doc(doc...)
}

// elemKernelFunc declares the element-wise kernel <t><name><w.name>, with
// nt <t><name><w.name>NT, its doc the name then doc.
func (g *gen) elemKernelFunc(t dtype, w width, nt bool, name, sig string, doc ...string) {
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	full := fmt.Sprintf("%s%s%s%s", t.char, name, w.name, ntSuffix(nt))
	doc[0] = full + " " + doc[0]
	g.Function(full)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(fmt.Sprintf(sig, elem))
	g.Doc(elemDoc(w, nt, doc...)...)
}

func genElem(g *gen) {
	for _, nt := range []bool{false, true} {
		for _, w := range []width{ymm, zmm} {
			for _, t := range []dtype{f32, f64} {
				g.elemKernels(t, w, nt)
			}
		}
	}
}

// elemKernels emits the element-wise kernels of one type and width; with
// nt, those with an output of their own (all but axpy, which writes the y
// it read) store it non-temporally, the <name>NT kernels.
func (g *gen) elemKernels(t dtype, w width, nt bool) {
	g.binary(t, w, nt, "add", "z[i] = x[i] + y[i]", g.vadd)
	g.binary(t, w, nt, "mul", "z[i] = x[i] · y[i]", g.vmul)
	if !nt {
		g.axpy(t, w)
		g.axpyKernel(t, w, true)
	}
	g.relu(t, w, nt)
	// Vectors per loop trip, their chains interleaved: as many as the 16
	// ymm registers hold; the same arithmetic in zmm, so the same bits,
	// where 32 registers hold more chains.
	batch := struct{ exp, tanh, sigmoid int }{3, 2, 3}
	if w == zmm {
		batch = zmmBatch
	}
	g.mathKernel(t, w, nt, "exp", "y[i] = exp(x[i])", g.exp, batch.exp, g.expPins)
	g.mathKernel(t, w, nt, "tanh", "y[i] = tanh(x[i])", g.tanh, batch.tanh, nil)
	g.mathKernel(t, w, nt, "sigmoid", "y[i] = 1/(1+exp(-x[i]))", g.sigmoid, batch.sigmoid, g.expPins)
}

// zmmBatch is the vectors per loop trip of the zmm math kernels: exp's
// chain is latency-bound at 4 (a 1 Ki f64 exp took 6% less time at 5 in
// alternated Go benchmarks; 6 no less, 8 runs out of registers); tanh and
// sigmoid gained nothing beyond 3 and 4, and f64 tanh allocates no more.
var zmmBatch = struct{ exp, tanh, sigmoid int }{5, 3, 4}

type vop func(t dtype, y, x, dst Op)

// vstoreW stores src (a vector of width w) to m: with k (loopW's tail
// mask), only its lanes.
func (g *gen) vstoreW(t dtype, w width, src VecVirtual, m Mem, k Op) {
	switch {
	case k == nil:
		g.vmovu(t, src, m)
	case w == zmm && t.f64:
		g.VMOVUPD(src, k, m)
	case w == zmm:
		g.VMOVUPS(src, k, m)
	case t.f64:
		g.VMASKMOVPD(src, k, m)
	default:
		g.VMASKMOVPS(src, k, m)
	}
}

// vstoreOut is vstoreW of an element-wise kernel's output: with nt, a
// whole vector by a non-temporal store (VMOVNTPS, VMOVNTPD: aligned to
// its width, past the caches, without reading the line first), the masked
// tail as vstoreW.
func (g *gen) vstoreOut(t dtype, w width, nt bool, src VecVirtual, m Mem, k Op) {
	switch {
	case !nt || k != nil:
		g.vstoreW(t, w, src, m, k)
	case t.f64:
		g.VMOVNTPD(src, m)
	default:
		g.VMOVNTPS(src, m)
	}
}

// elemDoc is the doc of an element-wise kernel: what, then with nt the
// note on its stores, then needs(w).
func elemDoc(w width, nt bool, what ...string) []string {
	if nt {
		what = append(what, "Whole vectors are stored non-temporally: the output must be aligned to",
			"64 bytes, and it is fenced (SFENCE) before the call returns.")
	}
	return append(what, needs(w)...)
}

// needs is the doc line of a kernel's instruction set beyond AVX2.
func needs(w width) []string {
	if w == zmm {
		return []string{"It needs AVX-512F."}
	}
	return nil
}

func (g *gen) binary(t dtype, w width, nt bool, name, what string, op vop) {
	g.binaryKernel(t, w, nt, false, name, what, op)
	if !nt {
		g.binaryKernel(t, w, false, true, name, what, op)
	}
}

// binaryKernel is binary's kernel; with back the <name>Back twin, the same
// arithmetic walked from the end (loopBackW).
func (g *gen) binaryKernel(t dtype, w width, nt, back bool, name, what string, op vop) {
	doc := "sets " + what + " for i < n (z may be x or y)."
	loop := g.loopW
	if back {
		name += "Back"
		doc = "sets " + what + " for i < n (z may be x or y), from i = n−1 down."
		loop = g.loopBackW
	}
	g.elemKernelFunc(t, w, nt, name, "func(n int, x, y, z *%s)", doc)
	n, x, y, z := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	g.Load(g.Param("z"), z)
	loop(t, w, 4, n, []Register{x, y, z}, func(u, _ int, k Op) {
		a := g.vec(w)
		g.vloadW(t, w, Mem{Base: x, Disp: u * w.bytes}, k, a)
		if k == nil {
			op(t, Mem{Base: y, Disp: u * w.bytes}, a, a)
		} else {
			b := g.vec(w)
			g.vloadW(t, w, Mem{Base: y, Disp: u * w.bytes}, k, b)
			op(t, b, a, a)
		}
		g.vstoreOut(t, w, nt, a, Mem{Base: z, Disp: u * w.bytes}, k)
	})
	g.end(nt)
}

func (g *gen) axpy(t dtype, w width) { g.axpyKernel(t, w, false) }

// axpyKernel is axpy's kernel; with back the axpy<w>Back twin, walked from
// the end (loopBackW).
func (g *gen) axpyKernel(t dtype, w width, back bool) {
	name, from, loop := "axpy", "", g.loopW
	if back {
		name, from, loop = "axpyBack", ", from i = n−1 down", g.loopBackW
	}
	g.vecFunc(t, w, name, "func(n int, alpha %s, x, y *%[1]s)",
		append([]string{fmt.Sprintf("%s%s%s sets y[i] += alpha·x[i] for i < n%s (one rounding: FMA).", t.char, name, w.name, from)}, needs(w)...)...)
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	alpha := g.vec(w)
	g.vbroadcast(t, g.addr("alpha"), alpha)
	// 8 vectors a trip, not binary's 4: a 1024-element f32 axpy (zmm)
	// took 25.0 ns against 25.6–28 (Intel VM of docs/tuning.md, alternated
	// Go benchmarks), its loop's counting a smaller share.
	loop(t, w, 8, n, []Register{x, y}, func(u, _ int, k Op) {
		a := g.vec(w)
		g.vloadW(t, w, Mem{Base: y, Disp: u * w.bytes}, k, a)
		if k == nil {
			g.vfmadd231(t, Mem{Base: x, Disp: u * w.bytes}, alpha, a)
		} else {
			b := g.vec(w)
			g.vloadW(t, w, Mem{Base: x, Disp: u * w.bytes}, k, b)
			g.vfmadd231(t, b, alpha, a)
		}
		g.vstoreW(t, w, a, Mem{Base: y, Disp: u * w.bytes}, k)
	})
	g.VZEROUPPER()
	g.RET()
}

// relu: y = |max(+0, x)|. VMAXPS returns its second source, x, when
// either is NaN, and of two zeros, so x ≤ 0 gives ±0 and NaN gives NaN;
// clearing the sign makes -0 (and a NaN's sign) +0. One operation with the
// load folded in, one without: with a compare and a masking instead (a ≤ 0
// then VANDNPS, or with AVX-512 a mask register and a zeroing move), a 16
// KiB ReLU ran 15–25% slower on Zen 4.
func (g *gen) relu(t dtype, w width, nt bool) {
	g.reluKernel(t, w, nt, false)
	if !nt {
		g.reluKernel(t, w, false, true)
	}
}

// reluKernel is relu's kernel; with back the reluBack twin, walked from the
// end (loopBackW).
func (g *gen) reluKernel(t dtype, w width, nt, back bool) {
	name, from, loop := "relu", "", g.loopW
	if back {
		name, from, loop = "reluBack", ", from i = n−1 down", g.loopBackW
	}
	g.elemKernelFunc(t, w, nt, name, "func(n int, x, y *%s)",
		"sets y[i] = max(x[i], 0) for i < n"+from+"; NaN stays NaN (its sign", "cleared), -0 becomes +0.")
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	zero, abs := g.vec(w), g.vec(w)
	g.vxor(t, zero, zero, zero)
	g.vbroadcast(t, g.absMask(t), abs)
	and := func(a VecVirtual) {
		switch {
		case w == ymm:
			g.vand(t, abs, a, a)
		case t.f64:
			g.VPANDQ(abs, a, a)
		default:
			g.VPANDD(abs, a, a)
		}
	}
	loop(t, w, 4, n, []Register{x, y}, func(u, _ int, k Op) {
		m := Mem{Base: x, Disp: u * w.bytes}
		a := g.vec(w)
		if k == nil {
			g.vmax(t, m, zero, a)
		} else {
			g.vloadW(t, w, m, k, a)
			g.vmax(t, a, zero, a)
		}
		and(a)
		g.vstoreOut(t, w, nt, a, Mem{Base: y, Disp: u * w.bytes}, k)
	})
	g.end(nt)
}

// mathPrefetch is how far ahead, in bytes of x, the math kernels' main
// loop prefetches x (PREFETCHT0, one a line), as quantize does
// (quantPrefetch), so that past L2 the loads overlap the arithmetic: on
// the 2-vCPU Intel VM, 3 alternated runs of Go benchmarks (non-temporal
// stores), exp f64 4 Mi elements took 1.29–1.38 ms on 2 threads against
// 1.45 without, 3.0–3.2 on 1 against 3.3–3.5; exp f32 4 Mi and 256 Ki,
// and f64 256 Ki on 2 threads, 3–10% less; nothing slower.
const mathPrefetch = 8 << 10

// mathKernel is an element-wise kernel of one function with vectors of
// width w; f computes it on several vectors at once (it may clobber them),
// batch of them per loop trip. The tail loads its lanes under a mask, the
// others zero, and stores them under it. At zmm the constants pins gives
// (nil: none) are held in registers (pin).
func (g *gen) mathKernel(t dtype, w width, nt bool, name, what string, f func(t dtype, xs []VecVirtual) []VecVirtual, batch int, pins func(t dtype) []Mem) {
	g.elemKernelFunc(t, w, nt, name, "func(n int, x, y *%s)",
		"sets "+what+" for i < n (y may be x); see math.go in", "gobackend/_asm for the method and its error.")
	g.w = w
	defer func() { g.w = width{} }()
	n, x, y := g.GP64(), g.GP64(), g.GP64()
	g.Load(g.Param("n"), n)
	g.Load(g.Param("x"), x)
	g.Load(g.Param("y"), y)
	if w == zmm && pins != nil {
		g.pin(t, pins(t)...)
		defer g.unpin()
	}
	var in []VecVirtual
	g.loopW(t, w, batch, n, []Register{x, y}, func(u, of int, k Op) {
		if off := u * w.bytes; k == nil && of > 1 && off%64 == 0 {
			g.PREFETCHT0(Mem{Base: x, Disp: off + mathPrefetch}) // one per 64-byte line
		}
		a := g.vec(w)
		g.vloadW(t, w, Mem{Base: x, Disp: u * w.bytes}, k, a)
		in = append(in, a)
		if u < of-1 {
			return // the trip's last vector computes them all
		}
		out := f(t, in)
		for i, r := range out {
			g.vstoreOut(t, w, nt, r, Mem{Base: y, Disp: (u - len(out) + 1 + i) * w.bytes}, k)
		}
		in = nil
	})
	g.end(nt)
}
