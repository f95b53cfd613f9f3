package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// nestDepth is the loop nest's kc and mc for kern: its own, or where the
// tune parameter gemm.kc is set (not 0) that depth and the rows of A whose
// packed block takes a quarter of L2 at it (floatBlocking's rule). The
// tests' block sizes (blockKC) win over both.
func nestDepth[T Float](kern *microKernel[T]) (kc, mc int) {
	size := num.Size[T]()
	d := tune.PerDTypeOf(tune.Current().GEMM.KC, size)
	if d == 0 || blockKC > 0 {
		return kern.kc, kern.mc
	}
	kc = min(d, maxNestKC)
	return kc, max(kern.mr, isa.Caches().L2/4/(kc*size)/kern.mr*kern.mr)
}

// maxNestKC bounds a tuned depth: past it a block is deeper than any
// cache's share (1 TiB, gemm.kc's largest value, would size mc at one
// micro-tile and the packing buffers by k alone).
const maxNestKC = 1 << 14

// gemmNest is the BLIS loop nest: jc over column blocks of nc, pc over
// kc-deep slices of the inner dimension with the kc×nc block of B packed
// once per slice, then work items, each mc rows of C (A's mc×kc block packed
// for it) times a range of B's micro-panels, a jr then ir loop over
// micro-tiles. The first pc slice applies beta; later ones add. Each (jc,
// pc) pair is a phase.
//
// With several threads, everything is shared out as it comes, from
// counters: the work items of a phase, then the packing of the next phase's
// block of B (in chunks of panels, into the other of two buffers), then a
// barrier before the next phase's items. A thread done with its items packs
// B while the others finish theirs, so the one barrier per phase costs
// little, and a core slowed by another process (the development machine is
// a shared VM) just takes fewer items. mc is lowered so that every thread
// gets at least minItemsPerThread row blocks per phase, and when there are
// too few row blocks the micro-panels of B are split as well. Each element
// of C is computed the same way whatever the split: results do not depend
// on the thread count.
func gemmNest[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int, kern *microKernel[T], threads int) {
	if tr, tc := gridFor(kern, m, n, threads); tr*tc > 1 {
		gemmGrid(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, kern, tr, tc)
		return
	}
	mr, nr := kern.mr, kern.nr
	depth, rows := nestDepth(kern)
	kc := max(1, min(depth, k))
	nc := min(kern.nc, ceilDiv(n, nr)*nr)
	tiles := ceilDiv(m, mr) // row tiles of C
	mcTiles := max(1, min(rows/mr, tiles))
	if threads > 1 {
		q := max(minItemsPerThread, ceilDiv(ceilDiv(tiles, mcTiles), threads))
		mcTiles = ceilDiv(tiles, threads*q)
	}
	mc := mcTiles * mr
	rowItems := ceilDiv(m, mc)
	split := 1 // ranges of B's micro-panels per row block
	if threads > 1 && rowItems < 2*threads {
		split = min(ceilDiv(2*threads, rowItems), ceilDiv(nc, nr))
	}
	items := rowItems * split
	threads = min(threads, items)

	w := &nest[T]{
		kern: kern, transA: transA, transB: transB, m: m, n: n, k: k,
		alpha: alpha, beta: beta, a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc,
		kc: kc, mc: mc, nc: nc, split: split, items: items, threads: threads,
		jcs: ceilDiv(n, nc), pcs: ceilDiv(k, kc),
	}
	w.nbuf = 1 // one thread packs B(p+1) after phase p's items: one buffer
	if threads > 1 {
		w.nbuf = 2
	}
	for i := range w.nbuf {
		buf := getBuf[T](kc * nc)
		defer putBuf(buf)
		w.bp[i] = *buf
	}
	if threads == 1 {
		w.run(0)
		return
	}
	w.bar.init(threads)
	phases := w.jcs * w.pcs
	w.nextItem = make([]atomic.Int64, phases)
	w.nextPack = make([]atomic.Int64, phases)
	w.packChunks = min(ceilDiv(nc, nr), 4*threads)
	// The threads come from internal/num's pool (forThreads), whose
	// workers stay awake between calls: a fresh goroutine took tens of
	// microseconds to start on the VMs, and at 256³–512³ two threads ran
	// barely faster than one.
	forThreads(threads, w.run)
}

// minItemsPerThread is the least number of row blocks per thread and
// phase when several threads share the work: smaller items balance better
// when one core is slowed, larger ones reload B's panels less often.
var minItemsPerThread = 2

// nest is what the threads of one gemmNest share.
type nest[T Float] struct {
	kern                  *microKernel[T]
	transA, transB        bool
	m, n, k               int
	alpha, beta           T
	a, b, c               []T
	lda, ldb, ldc         int
	kc, mc, nc            int
	split, items, threads int
	jcs, pcs              int    // column blocks and depth slices: phase = jc·pcs + pc
	bp                    [2][]T // the packed blocks of B, phase p's in bp[p%nbuf]
	nbuf                  int
	packChunks            int // B's packing is shared out in this many chunks
	bar                   barrier
	nextItem, nextPack    []atomic.Int64 // per phase: the next work item, packing chunk
}

// block returns phase p's column offset, width, depth offset and depth.
func (w *nest[T]) block(p int) (jc, nb, pc, kb int) {
	jc, pc = p/w.pcs*w.nc, p%w.pcs*w.kc
	return jc, min(w.nc, w.n-jc), pc, min(w.kc, w.k-pc)
}

// packPhase packs B's block of phase p: all of it on one thread, else the
// chunks of its panels left to take.
func (w *nest[T]) packPhase(p int) {
	jc, nb, pc, kb := w.block(p)
	nr := w.kern.nr
	panels := ceilDiv(nb, nr)
	bp := w.bp[p%w.nbuf]
	pack := func(p0, p1 int) {
		c0, c1 := p0*nr, min(p1*nr, nb)
		if w.transB {
			packB(w.kern, true, w.b[(jc+c0)*w.ldb+pc:], w.ldb, kb, c1-c0, bp[c0*kb:])
		} else {
			packB(w.kern, false, w.b[pc*w.ldb+jc+c0:], w.ldb, kb, c1-c0, bp[c0*kb:])
		}
	}
	if w.threads == 1 {
		pack(0, panels)
		return
	}
	chunks := min(w.packChunks, panels)
	for {
		i := int(w.nextPack[p].Add(1)) - 1
		if i >= chunks {
			return
		}
		pack(panels*i/chunks, panels*(i+1)/chunks)
	}
}

// run is thread t's part of the loop nest.
func (w *nest[T]) run(t int) {
	kern, mr, nr := w.kern, w.kern.mr, w.kern.nr
	bufA := getBuf[T](w.mc * w.kc)
	defer putBuf(bufA)
	ap := *bufA
	tile := make([]T, mr*nr) // an edge tile, computed whole then clipped
	phases := w.jcs * w.pcs
	w.packPhase(0)
	for p := range phases {
		// All of B(p) is packed and every item of phase p−1 done, so the
		// buffer phase p+1 packs into is free.
		w.bar.wait()
		jc, nb, pc, kb := w.block(p)
		panels := ceilDiv(nb, nr)
		bp := w.bp[p%w.nbuf]
		betaPC := w.beta
		if pc > 0 {
			betaPC = 1
		}
		packed := -1 // the row block in ap
		for item := 0; ; item++ {
			if w.threads > 1 {
				item = int(w.nextItem[p].Add(1)) - 1
			}
			if item >= w.items {
				break
			}
			ic := item / w.split * w.mc
			mb := min(w.mc, w.m-ic)
			if ic != packed {
				if w.transA {
					packA(kern, true, w.a[pc*w.lda+ic:], w.lda, mb, kb, ap)
				} else {
					packA(kern, false, w.a[ic*w.lda+pc:], w.lda, mb, kb, ap)
				}
				packed = ic
			}
			part := item % w.split
			for jr := panels * part / w.split * nr; jr < min(panels*(part+1)/w.split*nr, nb); jr += nr {
				bpan := bp[jr*kb : (jr+nr)*kb]
				cols := min(nr, nb-jr)
				for ir := 0; ir < mb; ir += mr {
					apan := ap[ir*kb : (ir+mr)*kb]
					rows := min(mr, mb-ir)
					ct := w.c[(ic+ir)*w.ldc+jc+jr:]
					if rows == mr && cols == nr {
						kern.fn(kb, apan, bpan, w.alpha, betaPC, ct, w.ldc)
						continue
					}
					edgeTile(kern, kb, apan, bpan, w.alpha, betaPC, ct, w.ldc, rows, cols, tile)
				}
			}
		}
		if p+1 < phases {
			w.packPhase(p + 1)
		}
	}
}

// edgeTile computes a full tile aside and keeps its rows×cols part inside C.
func edgeTile[T Float](kern *microKernel[T], kb int, apan, bpan []T, alpha, beta T, ct []T, ldc, rows, cols int, tile []T) {
	kern.fn(kb, apan, bpan, 1, 0, tile, kern.nr)
	clipTile(tile, kern.nr, alpha, beta, ct, ldc, rows, cols)
}

// clipTile sets the rows×cols corner of C to alpha·tile + beta·C, tile a
// whole micro-tile with row stride nr.
func clipTile[T Float](tile []T, nr int, alpha, beta T, ct []T, ldc, rows, cols int) {
	for i := 0; i < rows; i++ {
		ci := ct[i*ldc : i*ldc+cols]
		ti := tile[i*nr : i*nr+cols]
		if beta == 0 {
			for j := range ci {
				ci[j] = alpha * ti[j]
			}
		} else {
			for j := range ci {
				ci[j] = alpha*ti[j] + beta*ci[j]
			}
		}
	}
}

// barrier makes n goroutines wait for each other, any number of times.
// Waiters first spin (yielding the processor) for a while, as the threads
// of one GEMM arrive close together, then sleep on a condition variable.
type barrier struct {
	n     int32
	count atomic.Int32
	gen   atomic.Int32
	mu    sync.Mutex
	cond  sync.Cond
}

func (b *barrier) init(n int) {
	b.n = int32(n)
	b.cond.L = &b.mu
}

// spinYields is how many times a waiter yields before it sleeps.
const spinYields = 100

func (b *barrier) wait() {
	if b.n <= 1 {
		return
	}
	gen := b.gen.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.mu.Lock()
		b.gen.Add(1)
		b.cond.Broadcast()
		b.mu.Unlock()
		return
	}
	for range spinYields {
		if b.gen.Load() != gen {
			return
		}
		runtime.Gosched()
	}
	b.mu.Lock()
	for b.gen.Load() == gen {
		b.cond.Wait()
	}
	b.mu.Unlock()
}
