package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// gemmKernel describes one register-blocked GEMM micro-kernel: it computes
// the mr×nr tile C = alpha·A·B + beta·C from a packed panel of A (k steps of
// mr values) and one of B (k steps of nr values), C row-major with row stride
// ldc elements. Names follow BLIS: type, shape, ISA (sgemm6x16AVX2).
type gemmKernel struct {
	t      dtype
	w      width
	mr, nr int
	unroll int // k steps per loop trip
	// prefetchA is how many bytes ahead of the A panel the loop prefetches
	// (0: none). The A panel streams from L2 while B's stays in L1, but the
	// hardware prefetcher follows that stream by itself: with PREFETCHT0
	// 256 bytes ahead, SGEMM and DGEMM at n = 1024 ran 2–6% slower (the
	// prefetches take load slots from the kernel's broadcasts).
	prefetchA int
	// prefetchB: the streaming path's variant (name suffix PF), which
	// takes two more arguments, pf and pfs, and prefetches into L2 two
	// 128-byte runs per loop trip, at pf and pf+pfs, then moves pf on by
	// 2·pfs elements: the rows of the block of B packed next, fetched
	// while this one computes (gobackend/gemm: stream.go).
	prefetchB bool
}

func (k gemmKernel) name() string {
	pf := ""
	if k.prefetchB {
		pf = "PF"
	}
	return fmt.Sprintf("%sgemm%dx%d%s%s", k.t.char, k.mr, k.nr, k.w.name, pf)
}

// gemmKernels are the micro-kernels gobackend/gemm dispatches to; see
// kernelFor there for which runs where and why.
var gemmKernels = []gemmKernel{
	{t: f32, w: ymm, mr: 6, nr: 16, unroll: 4, prefetchA: 0},
	{t: f64, w: ymm, mr: 6, nr: 8, unroll: 4, prefetchA: 0},
	{t: f32, w: zmm, mr: 14, nr: 32, unroll: 4, prefetchA: 0},
	{t: f64, w: zmm, mr: 14, nr: 16, unroll: 4, prefetchA: 0},
}

// narrowKernels are the AVX-512 micro-kernels one vector wide that
// gobackend/gemm runs on products narrower than a panel of the AVX-512
// kernels above (microKernel.narrow there): packed and unpacked, and
// unpacked with fewer rows (gemm_stream.go). Such products never stream.
var narrowKernels = []gemmKernel{
	{t: f32, w: zmm, mr: 14, nr: 16, unroll: 4},
	{t: f64, w: zmm, mr: 14, nr: 8, unroll: 4},
}

// wideKernels are the AVX-512 micro-kernels of 8 rows and 3 vectors that
// gobackend/gemm's loop nest runs instead of the 14-row ones where the
// machine's tune file says (tune.GEMM.Shape there): 11 loads (3 of B, 8
// broadcasts) per 24 FMAs against 16 (2 and 14) per 28. Packed only: the
// unpacked and streaming paths keep the 14-row kernels.
var wideKernels = []gemmKernel{
	{t: f32, w: zmm, mr: 8, nr: 48, unroll: 4},
	{t: f64, w: zmm, mr: 8, nr: 24, unroll: 4},
}

func genGemm(g *gen) {
	for _, k := range gemmKernels {
		g.gemmMicroKernel(k)
		g.gemmDirectKernel(k) // gemm_direct.go
	}
	for _, k := range wideKernels {
		g.gemmMicroKernel(k)
	}
	for _, k := range narrowKernels {
		g.gemmMicroKernel(k)
		g.gemmDirectKernel(k)
	}
	genPack(g)
	// GEMV's inner loops: a dot product per row of A (op(A) = A) and an
	// axpy per row (op(A) = Aᵀ), the same kernels as reduce's and elem's.
	for _, t := range []dtype{f32, f64} {
		g.sum(t, true, ymm)
		g.axpy(t, ymm)
	}
	// At AVX-512, four rows at a time (gemv.go), the last m mod 4 rows
	// one at a time.
	for _, t := range []dtype{f32, f64} {
		genGemv4(g, t)
		g.sum(t, true, zmm)
		g.axpy(t, zmm)
	}
	genGemmLowp(g) // gemm_lowp.go
	genGemmAMX(g)  // gemm_amx.go
}

func (g *gen) gemmMicroKernel(k gemmKernel) {
	t, w := k.t, k.w
	vw := w.lanes(t)
	nv := k.nr / vw // vectors per row of the tile
	if nv*vw != k.nr {
		panic(k.name() + ": nr is not a multiple of the vector width")
	}
	elem := "float32"
	if t.f64 {
		elem = "float64"
	}
	g.Function(k.name())
	g.Attributes(attr.NOSPLIT)
	doc := []string{
		fmt.Sprintf("%s computes the %d×%d tile c = alpha·a·b + beta·c, a a packed", k.name(), k.mr, k.nr),
		fmt.Sprintf("panel of op(A) (k steps of %d values), b one of op(B) (k steps of %d", k.mr, k.nr),
		"values), c row-major with row stride ldc. beta == 0 (either sign) writes c",
		"without reading it. k ≥ 1.",
	}
	if k.prefetchB {
		g.SignatureExpr(fmt.Sprintf("func(k int, a, b, c *%[1]s, ldc int, alpha, beta %[1]s, pf *%[1]s, pfs int)", elem))
		doc = append(doc, "Each trip of 4 steps prefetches 128 bytes at pf and at pf+pfs into L2,",
			"then moves pf on by 2·pfs elements (pf is only prefetched, never read).")
	} else {
		g.SignatureExpr(fmt.Sprintf("func(k int, a, b, c *%[1]s, ldc int, alpha, beta %[1]s)", elem))
	}
	g.Doc(doc...)
	acc := func(i, j int) VecPhysical { return w.vec(i*nv + j) }
	breg := func(j int) VecPhysical { return w.vec(k.mr*nv + j) }
	bcast := func(i int) VecPhysical { return w.vec(k.mr*nv + nv + i%2) }
	if k.mr*nv+nv+2 > 16 && w.bytes == 32 || k.mr*nv+nv+2 > 32 {
		panic(k.name() + ": too many registers")
	}

	g.Load(g.Param("k"), RCX)
	g.Load(g.Param("a"), RAX)
	g.Load(g.Param("b"), RBX)
	g.Load(g.Param("c"), RDX)
	g.Load(g.Param("ldc"), RSI)
	shift := 2
	if t.f64 {
		shift = 3
	}
	g.SHLQ(U8(shift), RSI)
	if k.prefetchB {
		g.Load(g.Param("pf"), R12)
		g.Load(g.Param("pfs"), R13)
		g.SHLQ(U8(shift), R13)
	}

	// The rows of C are read (or written) after the loop: the loop's first
	// mr trips prefetch one each, at DI, R11 left to go. Prefetched all at
	// once before the loop, their misses held up the loop's own loads from
	// L2: this way ran 1.5% faster at the median of 32 alternated cells (n =
	// 1024 and 2048, every kernel, 1 and 2 threads; −2% to +6%), DGEMM at
	// n = 2048 2–5%.
	g.MOVQ(RDX, RDI)
	g.MOVQ(U32(k.mr), R11)
	for i := 0; i < k.mr; i++ {
		for j := 0; j < nv; j++ {
			g.vxor(t, acc(i, j), acc(i, j), acc(i, j))
		}
	}

	step := func(u int) {
		for j := 0; j < nv; j++ {
			g.vmovu(t, Mem{Base: RBX, Disp: (u*k.nr + j*vw) * t.size}, breg(j))
		}
		for i := 0; i < k.mr; i++ {
			g.vbroadcast(t, Mem{Base: RAX, Disp: (u*k.mr + i) * t.size}, bcast(i))
			for j := 0; j < nv; j++ {
				g.vfmadd231(t, breg(j), bcast(i), acc(i, j))
			}
		}
	}

	g.MOVQ(RCX, R8)
	g.SHRQ(U8(log2(k.unroll)), R8)
	g.JZ(LabelRef("tail"))
	g.Label("loop")
	g.TESTQ(R11, R11)
	g.JZ(LabelRef("prefetched"))
	for _, off := range cRowLines(k.nr * t.size) {
		g.PREFETCHT0(Mem{Base: RDI, Disp: off})
	}
	g.ADDQ(RSI, RDI)
	g.DECQ(R11)
	g.Label("prefetched")
	if k.prefetchB {
		g.PREFETCHT1(Mem{Base: R12})
		g.PREFETCHT1(Mem{Base: R12, Disp: 64})
		g.PREFETCHT1(Mem{Base: R12, Index: R13, Scale: 1})
		g.PREFETCHT1(Mem{Base: R12, Index: R13, Scale: 1, Disp: 64})
		g.LEAQ(Mem{Base: R12, Index: R13, Scale: 2}, R12)
	}
	if k.prefetchA > 0 {
		stepBytes := k.unroll * k.mr * t.size
		for off := 0; off < stepBytes; off += 64 {
			g.PREFETCHT0(Mem{Base: RAX, Disp: k.prefetchA + off})
		}
	}
	for u := 0; u < k.unroll; u++ {
		step(u)
	}
	g.ADDQ(U32(k.unroll*k.mr*t.size), RAX)
	g.ADDQ(U32(k.unroll*k.nr*t.size), RBX)
	g.DECQ(R8)
	g.JNZ(LabelRef("loop"))

	g.Label("tail")
	g.ANDQ(U8(k.unroll-1), RCX)
	g.JZ(LabelRef("update"))
	g.Label("tailloop")
	step(0)
	g.ADDQ(U32(k.mr*t.size), RAX)
	g.ADDQ(U32(k.nr*t.size), RBX)
	g.DECQ(RCX)
	g.JNZ(LabelRef("tailloop"))

	g.Label("update")
	g.gemmUpdate(k, acc, breg(0), bcast(0))
}

// gemmUpdate ends a micro-kernel: c = alpha·acc + beta·c for the mr×nr tile
// at RDX, row stride RSI bytes, then returns. alpha and beta are two free
// vector registers; RDI and R9 are free.
func (g *gen) gemmUpdate(k gemmKernel, acc func(i, j int) VecPhysical, alpha, beta VecPhysical) {
	t, w := k.t, k.w
	vw := w.lanes(t)
	nv := k.nr / vw
	g.vbroadcast(t, g.addr("alpha"), alpha)
	for i := 0; i < k.mr; i++ {
		for j := 0; j < nv; j++ {
			g.vmul(t, alpha, acc(i, j), acc(i, j))
		}
	}
	g.Comment("beta == 0 (either sign) when its bits shifted left by one are zero.")
	if t.f64 {
		g.MOVQ(g.addr("beta"), R9)
		g.SHLQ(U8(1), R9)
	} else {
		g.MOVL(g.addr("beta"), R9L)
		g.SHLL(U8(1), R9L)
	}
	g.JNZ(LabelRef("withbeta"))
	g.MOVQ(RDX, RDI)
	for i := 0; i < k.mr; i++ {
		for j := 0; j < nv; j++ {
			g.vmovu(t, acc(i, j), Mem{Base: RDI, Disp: j * vw * t.size})
		}
		if i < k.mr-1 {
			g.ADDQ(RSI, RDI)
		}
	}
	g.VZEROUPPER()
	g.RET()

	g.Label("withbeta")
	g.vbroadcast(t, g.addr("beta"), beta)
	g.MOVQ(RDX, RDI)
	for i := 0; i < k.mr; i++ {
		for j := 0; j < nv; j++ {
			g.vfmadd231(t, Mem{Base: RDI, Disp: j * vw * t.size}, beta, acc(i, j))
			g.vmovu(t, acc(i, j), Mem{Base: RDI, Disp: j * vw * t.size})
		}
		if i < k.mr-1 {
			g.ADDQ(RSI, RDI)
		}
	}
	g.VZEROUPPER()
	g.RET()
}

// cRowLines are the offsets the micro-kernels prefetch a row of C of n
// bytes at: its first and last byte, which cover a row of up to 128 bytes
// that starts on a line (pb's buffers do), and every 64 bytes between on
// a wider row, whose lines both ends leave out wherever it starts.
func cRowLines(n int) []int {
	if n <= 128 {
		return []int{0, n - 1}
	}
	var offs []int
	for off := 0; off < n-1; off += 64 {
		offs = append(offs, off)
	}
	return append(offs, n-1)
}

func log2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	if 1<<l != n {
		panic(fmt.Sprint(n, " is not a power of two"))
	}
	return l
}
