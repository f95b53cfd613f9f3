package gemm

import (
	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// The streaming path: a product with few rows of C (m ≤ streamMaxRows) and
// many columns, such as a convolution lowered onto a GEMM (m output
// channels, n output pixels). gemmNest packs a kc×nc block of B shared by
// all threads behind a barrier and then runs only ⌈m/mr⌉ row tiles over it,
// so packing B costs as much as the arithmetic and two threads mostly wait
// for each other. Here all of A (m×k, small) is packed once, up front, and
// the columns of C are split between the threads in contiguous ranges of
// B's micro-panels: each thread packs its own B a few panels at a time
// (the panels then still in L1 or L2) and runs every row tile over them,
// with no barrier and no shared buffer to wait for. Each element of C is
// computed the same way whatever the split.

// streamMaxRows is the largest m the streaming path takes. Measured on the
// 2-vCPU Intel VM (AVX-512, 2 MiB L2 per core) with BenchmarkStream, n =
// 3136 (and 1024), k = 256–1024, f32 and f64, one and two threads: the
// streaming path ran ahead of the loop nest at every m measured, 16 to 384:
// 1.1–1.5× at one thread and 1.3–2.5× at two, 2.8–4.1× at m = 16 (see
// docs/architecture.md, "GEMM").
// Larger products (square ones above all) stay with the nest, which
// reuses each packed block of B over many row blocks: not measured here.
const streamMaxRows = 256

// streamChunkPanels is how many of B's micro-panels a thread packs at
// once: more panels per row of B read more contiguous bytes per row
// (the prefetchers follow a run of lines, not a stride of ldb), fewer keep
// the packed chunk (chunk × kc × nr elements) in L2 beside A. 1, 2, 4, 8
// and 16 ran within 5% of each other (BenchmarkStream, f32, one thread,
// the convolution shapes; Intel VM). Packing B is bound by reading B from
// L3 (26–30 GB/s alone, the L3's read bandwidth): a fifth of the time at
// 64×3136×256 (a CPU profile). The chunk is packed row by row
// (packRowsB), and the kernels prefetch the next one while they compute
// (prefetchPlan); a burst of prefetches before each kernel call instead
// had measured −16% to +2%.
var streamChunkPanels = 4

// kernelFunc is a micro-kernel's function (microKernel.fn).
type kernelFunc[T Float] func(k int, a, b []T, alpha, beta T, c []T, ldc int)

// useStream says whether Gemm runs this product on the streaming path: an
// assembly kernel (the measured case; the pure-Go kernel keeps the nest),
// few rows and at least two chunks' worth of columns.
func useStream[T Float](kern *microKernel[T], lvl isa.Level, m, n int) bool {
	if lvl.Clamp() == isa.Generic || kern.direct == nil {
		return false
	}
	return m <= streamMaxRows && n >= 2*streamChunkPanels*kern.nr
}

// gemmStream computes C = alpha·op(A)·op(B) + beta·C on the streaming path.
func gemmStream[T Float](lvl isa.Level, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int, kern *microKernel[T], threads int) {
	mr, nr := kern.mr, kern.nr
	kc := kern.kc
	if kern.streamKC > 0 {
		kc = kern.streamKC
	}
	kc = max(1, min(kc, k))
	mp := ceilDiv(m, mr) * mr // rows of packed A, padded to whole panels
	// The last m mod mr rows run on a kernel of their own height where
	// there is one, their panel packed that many rows wide.
	full := m
	var rowsFn kernelFunc[T]
	if rest := m % mr; rest > 0 {
		if rowsFn = rowsKernel[T](lvl, rest, nr); rowsFn != nil {
			full = m - rest
		}
	}
	restKern := *kern
	restKern.mr, restKern.packCopyA, restKern.packGatherA = m-full, nil, nil
	// A packed slice by slice: depth slice pc (kb deep) at ap[pc·mp:],
	// ⌈full/mr⌉ panels of mr×kb, then the last rows' panel.
	bufA := getBuf[T](mp * k)
	defer putBuf(bufA)
	ap := *bufA
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		dst := ap[pc*mp:]
		if transA {
			packA(kern, true, a[pc*lda:], lda, full, kb, dst)
		} else {
			packA(kern, false, a[pc:], lda, full, kb, dst)
		}
		if full == m {
			continue
		}
		if transA {
			packA(&restKern, true, a[pc*lda+full:], lda, m-full, kb, dst[full*kb:])
		} else {
			packA(&restKern, false, a[full*lda+pc:], lda, m-full, kb, dst[full*kb:])
		}
	}
	s := &stream[T]{
		kern: kern, rowsFn: rowsFn, transB: transB, m: m, n: n, k: k, kc: kc, mp: mp, full: full,
		alpha: alpha, beta: beta, ap: ap, b: b, c: c, ldb: ldb, ldc: ldc,
	}
	panels := ceilDiv(n, nr)
	if num.Single(panels, threads, streamChunkPanels) {
		s.run(0, panels)
		return
	}
	// Pieces of at least one chunk, contiguous per thread (num.For gives
	// each thread its own stretch and then shares out the leftovers).
	num.For(panels, threads, 1, streamChunkPanels, func(_, lo, hi int) { s.run(lo, hi) })
}

// stream is what the threads of one gemmStream share, all read-only but C,
// of which each writes its own columns.
type stream[T Float] struct {
	kern        *microKernel[T]
	rowsFn      kernelFunc[T] // the last m − full rows' kernel, if any
	full        int           // the rows before them: whole mr-row tiles, or clipped ones
	transB      bool
	m, n, k     int
	kc, mp      int
	alpha, beta T
	ap, b, c    []T
	ldb, ldc    int
}

// run computes the columns of B's micro-panels [lo, hi) of C.
func (s *stream[T]) run(lo, hi int) {
	kern, mr, nr := s.kern, s.kern.mr, s.kern.nr
	bufB := getBuf[T](streamChunkPanels * nr * s.kc)
	defer putBuf(bufB)
	bp := *bufB
	// The edge tiles' scratch, from the buffer cache, as gemmDirect's: an array
	// here is allocated at every call.
	bufT := getBuf[T](mr * nr)
	defer putBuf(bufT)
	tile := *bufT
	for p0 := lo; p0 < hi; p0 += streamChunkPanels {
		c0 := p0 * nr
		nb := min(min(hi, p0+streamChunkPanels)*nr, s.n) - c0
		for pc := 0; pc < s.k; pc += s.kc {
			kb := min(s.kc, s.k-pc)
			if s.transB {
				packB(kern, true, s.b[c0*s.ldb+pc:], s.ldb, kb, nb, bp)
			} else {
				packRowsB(kern, s.b[pc*s.ldb+c0:], s.ldb, kb, nb, bp)
			}
			beta := s.beta
			if pc > 0 {
				beta = 1
			}
			apc := s.ap[pc*s.mp:]
			pf := s.prefetchPlan(lo, hi, p0, pc, kb)
			for jr := 0; jr < nb; jr += nr {
				bpan := bp[jr*kb : (jr+nr)*kb]
				cols := min(nr, nb-jr)
				for ir := 0; ir < s.full; ir += mr {
					apan := apc[ir*kb : (ir+mr)*kb]
					rows := min(mr, s.full-ir)
					ct := s.c[ir*s.ldc+c0+jr:]
					if rows == mr && cols == nr {
						if at, ok := pf.next(); ok {
							kern.prefetching(kb, apan, bpan, s.alpha, beta, ct, s.ldc, &s.b[at], s.ldb)
							continue
						}
						kern.fn(kb, apan, bpan, s.alpha, beta, ct, s.ldc)
						continue
					}
					edgeTile(kern, kb, apan, bpan, s.alpha, beta, ct, s.ldc, rows, cols, tile)
				}
				if rows := s.m - s.full; rows > 0 {
					apan := apc[s.full*kb : (s.full+rows)*kb]
					ct := s.c[s.full*s.ldc+c0+jr:]
					if cols == nr {
						s.rowsFn(kb, apan, bpan, s.alpha, beta, ct, s.ldc)
						continue
					}
					s.rowsFn(kb, apan, bpan, 1, 0, tile, nr)
					clipTile(tile, nr, s.alpha, beta, ct, s.ldc, rows, cols)
				}
			}
		}
	}
}

// streamPrefetch turns the prefetching kernels on (off: benchmarks).
var streamPrefetch = true

// prefetchRun is the bytes each prefetch of microKernel.prefetching
// covers: two lines, a B panel's width at AVX-512 (32 f32, 16 f64).
const prefetchRun = 128

// prefetchPlan says which stretch of B each full-tile kernel call of the
// block at (p0, pc) prefetches: the block packed next (the next depth
// slice of the chunk, else the thread's next chunk), as it lies in B:
// rows of contiguous bytes ldb apart, cut into columns prefetchRun bytes
// wide, each call a stretch of one column, rows apart. Packing then reads
// B from L2 rather than L3, and the reads of L3 overlap the arithmetic:
// 2–4% faster at 64×3136×256 and 3–5% at 16×6272×432, f32 and f64, one
// and two threads (BenchmarkStream, 4–6 rounds interleaved, Intel Xeon
// VM); PREFETCHT0 (into L1) instead cost up to 2× at two threads. At
// m = 16 the few full tiles cover half of the next block; four rows per
// trip instead of two covered it all and ran 3–8% faster there at one
// thread, but 2–10% slower at m = 64 (the 1×1 convolution), so two stay.
func (s *stream[T]) prefetchPlan(lo, hi, p0, pc, kb int) prefetcher {
	var pl prefetcher
	if s.kern.prefetching == nil || !streamPrefetch {
		return pl
	}
	np, npc := p0, pc+s.kc
	if npc >= s.k {
		np, npc = p0+streamChunkPanels, 0
	}
	if np >= hi {
		return pl
	}
	c0 := np * s.kern.nr
	nb := min(min(hi, np+streamChunkPanels)*s.kern.nr, s.n) - c0
	nkb := min(s.kc, s.k-npc)
	size := num.Size[T]()
	// The block as stored: rows × width elements, row stride ldb.
	rows, width, at := nkb, nb, npc*s.ldb+c0
	if s.transB {
		rows, width, at = nb, nkb, c0*s.ldb+npc
	}
	pl.at, pl.ldb = at, s.ldb
	pl.rows, pl.runs, pl.runElems = rows, ceilDiv(width*size, prefetchRun), prefetchRun/size
	// Each call prefetches two rows per trip of 4 steps.
	pl.perCall = max(1, 2*(kb/4))
	return pl
}

// A prefetcher hands out, call by call, where each kernel call's
// prefetches start (an index into B), until the block is covered.
type prefetcher struct {
	at, ldb    int // the block's first element in B, B's row stride
	rows, runs int // the block: rows, and columns of prefetchRun bytes
	runElems   int // elements per run
	perCall    int // rows one call covers
	done       int // rows of the current run handed out
	run        int
}

// next returns the index in B at which the next call starts prefetching,
// or false when the block is covered (or there is none).
func (p *prefetcher) next() (int, bool) {
	if p.run >= p.runs || p.rows == 0 {
		return 0, false
	}
	at := p.at + p.done*p.ldb + p.run*p.runElems
	p.done += p.perCall
	if p.done >= p.rows {
		p.done, p.run = 0, p.run+1
	}
	return at, true
}
