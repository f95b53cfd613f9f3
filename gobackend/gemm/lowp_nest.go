package gemm

import (
	"runtime"
	"sync"
	"unsafe"
)

// gemmLowp is the loop nest of the low-precision gemms, gemmNest's in
// outline: jc over column blocks of nc, pc over depth slices of kc words
// (kc·group k values), each (jc, pc) a phase; in a phase, row blocks of mc
// rows (A's block packed for each) times B's micro-panels. The first slice
// writes C, later ones add to it.
//
// Threads share a phase without a barrier inside it (lowpPhase): each owns
// a row block at a time, packs its A block into its own buffer and
// computes it against B's panels one by one, packing a panel of the
// shared B block itself when no thread has yet (the owners of the first
// row blocks start at different panels, so the packing of B is split
// between them as it is needed). When no row block is left to own, a
// thread joins the row block with the most panels left if those would
// take longer than packing its A block twice (lowpPhase.steal). The
// extra threads are lowpTeam's workers. Each element of C is computed the
// same way whatever the number of threads.
func gemmLowp[A, B lowpIn, C lowpOut](ch lowpChoice, transA, transB bool, m, n, k int, a []A, lda int, b []B, ldb int, c []C, ldc, threads int) {
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc, threads)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
		return
	}
	kern := kernelOfChoice[C](ch)
	if blockKC > 0 { // the tests' block sizes
		kk := *kern
		kk.kc = max(1, blockKC/kk.fmtB.group())
		kk.mc, kk.nc = max(1, blockMC/kk.mr)*kk.mr, max(1, blockNC/kk.nr)*kk.nr
		kern = &kk
	}
	if work := m * n * k; work/minFlopsPerThread < threads {
		threads = max(1, work/minFlopsPerThread)
	}
	if tc := lowpColumnBlocks[A](kern, transA, n, k, threads); tc > 1 {
		gemmLowpColumns(ch, kern.nr, transA, transB, m, n, k, a, lda, b, ldb, c, ldc, tc)
		return
	}
	mr, nr, g := kern.mr, kern.nr, kern.fmtB.group()
	w := &lowpNest[A, B, C]{
		kern: kern, transA: transA, transB: transB, m: m, n: n, k: k,
		a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc,
		kcv: min(kern.kc*g, ceilDiv(k, g)*g),
		nc:  min(max(1, kern.nc/nr)*nr, ceilDiv(n, nr)*nr), // whole panels
	}
	tiles := ceilDiv(m, mr)
	mcTiles := max(1, min(kern.mc/mr, tiles))
	if threads > 1 { // at least minItemsPerThread row blocks each, where m allows
		q := max(minItemsPerThread, ceilDiv(ceilDiv(tiles, mcTiles), threads))
		mcTiles = ceilDiv(tiles, threads*q)
	}
	w.mc = mcTiles * mr
	w.rowBlocks = ceilDiv(m, w.mc)
	w.threads = min(threads, w.rowBlocks*ceilDiv(w.nc, nr))
	kgMax := w.kg(w.kcv)

	bbuf := getWords(kgMax * w.nc)
	defer putWords(bbuf)
	// No room past the block: an overrun panics.
	w.bp = (*bbuf)[:len(*bbuf):len(*bbuf)]
	// The column sums' buffer comes as the cache has it: packPanel sets
	// each panel's columns before any thread reads them.
	if kern.biasedA {
		ibuf := getWords(w.nc)
		defer putWords(ibuf)
		w.initB = unsafe.Slice((*C)(unsafe.Pointer(&(*ibuf)[0])), w.nc)
	}
	w.jcs, w.pcs = ceilDiv(n, w.nc), ceilDiv(k, w.kcv)
	w.phases = make([]lowpPhase, w.jcs*w.pcs)
	for p := range w.phases {
		_, nb, _, _ := w.block(p)
		w.phases[p].init(w.rowBlocks, ceilDiv(nb, nr), w.threads)
	}
	if w.threads == 1 {
		w.run(0, kgMax)
		return
	}
	w.bar.init(w.threads)
	lowpTeam.run(w.threads, func(t int) { w.run(t, kgMax) })
}

// lowpNest is what the threads of one gemmLowp share.
type lowpNest[A, B lowpIn, C lowpOut] struct {
	kern           *lowpKernel[C]
	transA, transB bool
	m, n, k        int
	a              []A
	lda            int
	b              []B
	ldb            int
	c              []C
	ldc            int
	kcv, mc, nc    int // k values per slice (a multiple of the group), rows per block, columns per block
	rowBlocks      int
	threads        int
	jcs, pcs       int // column blocks and depth slices: phase = jc·pcs + pc
	bp             []uint32
	initB          []C // −128·(column sums of the slice of B), for a biased A
	phases         []lowpPhase
	bar            barrier
}

// kg is the words of a slice of kb values, padded as the kernel needs.
func (w *lowpNest[A, B, C]) kg(kb int) int {
	return roundUp(ceilDiv(kb, w.kern.fmtB.group()), w.kern.kAlign)
}

// block returns phase p's column offset, width, depth offset and depth.
func (w *lowpNest[A, B, C]) block(p int) (jc, nb, pc, kb int) {
	jc, pc = p/w.pcs*w.nc, p%w.pcs*w.kcv
	return jc, min(w.nc, w.n-jc), pc, min(w.kcv, w.k-pc)
}

// run is thread t's part of the loop nest: in each phase the row blocks
// it owns, then those it joins; a barrier between phases, as a slice adds
// to what the previous one wrote and reuses B's buffer.
func (w *lowpNest[A, B, C]) run(t, kgMax int) {
	abuf := getWords(w.mc * kgMax)
	defer putWords(abuf)
	ap := (*abuf)[:len(*abuf):len(*abuf)]
	tile := make([]C, w.kern.mr*w.kern.nr)
	waiting := make([]int, 0, ceilDiv(w.nc, w.kern.nr))
	var own rowBlockTimes // this thread's, from the last row block it owned
	for p := range w.phases {
		if p > 0 {
			w.bar.wait()
		}
		ph := &w.phases[p]
		for {
			r := int(ph.nextRow.Add(1)) - 1
			if r >= w.rowBlocks {
				break
			}
			w.rowBlock(p, r, &own, ap, tile, &waiting)
		}
		for {
			r := ph.steal(own)
			if r < 0 {
				break
			}
			w.rowBlock(p, r, nil, ap, tile, &waiting)
		}
	}
}

// rowBlock packs row block r's A block into ap and computes it against
// the panels of B left to take in phase p, packing those not yet packed;
// a panel another thread is packing is put off until the others are done
// (in waiting, kept in *waiting between calls). Its owner (own not nil)
// publishes what its packing took and when it began computing, which the
// threads that may join it weigh, and keeps its rates in own.
func (w *lowpNest[A, B, C]) rowBlock(p, r int, own *rowBlockTimes, ap []uint32, tile []C, waiting *[]int) {
	kern := w.kern
	_, _, pc, kb := w.block(p)
	kg := w.kg(kb)
	ph := &w.phases[p]
	rb := &ph.rows[r]
	ic := r * w.mc
	mb := min(w.mc, w.m-ic)
	t0 := nanotime()
	// Rows read as stored (rawA) need no packing: only the rows past the
	// last whole tile are packed, where panel looks for them.
	packed := 0
	if w.rawA(kb) {
		packed = mb / kern.mr * kern.mr
	}
	if packed < mb {
		if w.transA {
			packRows(w.a[pc*w.lda+ic+packed:], w.lda, true, mb-packed, kb, kg, kern, ap[packed*kg:])
		} else {
			packRows(w.a[(ic+packed)*w.lda+pc:], w.lda, false, mb-packed, kb, kg, kern, ap[packed*kg:])
		}
	}
	var t1 int64
	if own != nil {
		t1 = nanotime()
		rb.packNs.Store(t1 - t0)
		rb.start.Store(t1)
	}
	panels := len(ph.panels)
	done, later := 0, (*waiting)[:0]
	for {
		i := int(rb.next.Add(1)) - 1
		if i >= panels {
			break
		}
		jp := (rb.first + i) % panels
		if !w.packPanel(p, jp) {
			later = append(later, jp)
			continue
		}
		w.panel(p, jp, ic, mb, ap, tile)
		done++
	}
	for _, jp := range later {
		for ph.panels[jp].Load() != panelPacked {
			runtime.Gosched()
		}
		w.panel(p, jp, ic, mb, ap, tile)
		done++
	}
	*waiting = later
	if own != nil && done > 0 {
		*own = rowBlockTimes{packNs: t1 - t0, panelNs: (nanotime() - t1) / int64(done)}
	}
}

// panel computes rows ic … ic+mb−1 of C, A's block packed in ap, against
// panel jp of phase p's block of B, packed.
func (w *lowpNest[A, B, C]) panel(p, jp, ic, mb int, ap []uint32, tile []C) {
	kern, mr, nr := w.kern, w.kern.mr, w.kern.nr
	jc, nb, pc, kb := w.block(p)
	kg := w.kg(kb)
	add := pc > 0
	jr := jp * nr
	bpan := w.bp[jr*kg : (jr+nr)*kg]
	cols := min(nr, nb-jr)
	var init []C
	if w.initB != nil {
		init = w.initB[jr : jr+nr]
	}
	// The panel after this one, most often the next one computed, to
	// fetch while this one is.
	nj := (jr + nr) % (ceilDiv(nb, nr) * nr)
	next := w.bp[nj*kg : (nj+nr)*kg]
	ir := 0
	full := mb / mr
	switch {
	case full == 0:
	case w.rawA(kb) && cols == nr:
		kern.stripRaw(kg, full, w.rawRows(ic, pc), w.ldaBytes(), bpan, w.c[ic*w.ldc+jc+jr:], w.ldc, add, next)
		ir = full * mr
	case w.rawA(kb):
		for ; ir < full*mr; ir += mr {
			kern.stripRaw(kg, 1, w.rawRows(ic+ir, pc), w.ldaBytes(), bpan, tile, nr, false, nil)
			storeTile(w.c[(ic+ir)*w.ldc+jc+jr:], w.ldc, tile, nr, mr, cols, add)
		}
	case kern.strip != nil && cols == nr:
		kern.strip(kg, full, ap[:full*mr*kg], bpan, w.c[ic*w.ldc+jc+jr:], w.ldc, add, next)
		ir = full * mr
	}
	for ; ir < mb; ir += mr {
		apan := ap[ir*kg : (ir+mr)*kg]
		rows := min(mr, mb-ir)
		ct := w.c[(ic+ir)*w.ldc+jc+jr:]
		if rows == mr && cols == nr {
			kern.fn(kg, apan, bpan, ct, w.ldc, init, add)
			continue
		}
		kern.fn(kg, apan, bpan, tile, nr, init, false)
		storeTile(ct, w.ldc, tile, nr, rows, cols, add)
	}
}

// storeTile writes (or adds, with add) rows×cols of a tile computed into
// tile (row stride nr) to c (row stride ldc).
func storeTile[C lowpOut](c []C, ldc int, tile []C, nr, rows, cols int, add bool) {
	for i := 0; i < rows; i++ {
		ci, ti := c[i*ldc:i*ldc+cols], tile[i*nr:i*nr+cols]
		if add {
			for j := range ci {
				ci[j] += ti[j]
			}
		} else {
			copy(ci, ti)
		}
	}
}

// rawA reports whether slices of kb values read A as it is stored
// (kern.stripRaw), needing no packing: A not transposed, each word a
// group of values as they lie in memory, and the slice in whole chunks.
func (w *lowpNest[A, B, C]) rawA(kb int) bool {
	k := w.kern
	return k.stripRaw != nil && !w.transA && k.fmtA != wordQuad8Biased && rawWords[A](k.fmtA) &&
		kb%(k.kAlign*k.fmtA.group()) == 0
}

// rawRows is A from row i, column p on, as bytes.
func (w *lowpNest[A, B, C]) rawRows(i, p int) []byte {
	a := w.a[i*w.lda+p:]
	return unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), len(a)*int(unsafe.Sizeof(a[0])))
}

// ldaBytes is A's row stride in bytes.
func (w *lowpNest[A, B, C]) ldaBytes() int {
	var z A
	return w.lda * int(unsafe.Sizeof(z))
}

// packPanel packs panel jp of phase p's block of B if no thread has
// claimed it, and reports whether it is packed (false: another thread is
// packing it).
func (w *lowpNest[A, B, C]) packPanel(p, jp int) bool {
	st := &w.phases[p].panels[jp]
	if st.Load() == panelPacked {
		return true
	}
	if !st.CompareAndSwap(panelUnpacked, panelPacking) {
		return st.Load() == panelPacked
	}
	kern, nr := w.kern, w.kern.nr
	jc, nb, pc, kb := w.block(p)
	kg := w.kg(kb)
	c0 := jp * nr
	cols := min(nr, nb-c0)
	dst := w.bp[c0*kg : (c0+nr)*kg]
	if w.transB {
		packLines(w.b[(jc+c0)*w.ldb+pc:], w.ldb, true, cols, nr, kb, kg, kern.fmtB, kern.vecPack, dst)
	} else {
		packLines(w.b[pc*w.ldb+jc+c0:], w.ldb, false, cols, nr, kb, kg, kern.fmtB, kern.vecPack, dst)
	}
	if w.initB != nil {
		biasCorrection(dst, nr, kg, w.initB[c0:c0+nr])
	}
	st.Store(panelPacked)
	return true
}

// packRows packs the mb rows of op(A) as ⌈mb/mr⌉ panels of mr rows, kg
// steps each (in chunks, for a kernel with aChunked).
func packRows[A lowpIn, C lowpOut](a []A, lda int, trans bool, mb, kb, kg int, kern *lowpKernel[C], dst []uint32) {
	mr, f := kern.mr, kern.fmtA
	if kern.aChunked && !trans && rawWords[A](f) {
		for r := 0; r < mb; r += mr {
			packChunkedRows(a[r*lda:], lda, min(mr, mb-r), mr, kb, kg, f, dst[r*kg:(r+mr)*kg])
		}
		return
	}
	var tmp []uint32
	if kern.aChunked {
		p := getWords(mr * kg)
		defer putWords(p)
		tmp = *p
	}
	for r := 0; r < mb; r += mr {
		d := dst[r*kg : (r+mr)*kg]
		if tmp != nil {
			d = tmp
		}
		rows := min(mr, mb-r)
		if trans { // op(A)[i][p] = a[p*lda+i]: k runs down the stored rows
			packLines(a[r:], lda, false, rows, mr, kb, kg, f, kern.vecPack, d)
		} else {
			packLines(a[r*lda:], lda, true, rows, mr, kb, kg, f, kern.vecPack, d)
		}
		if tmp != nil {
			chunkRows(tmp, mr, kg, dst[r*kg:(r+mr)*kg])
		}
	}
}

// amxChunk is the words of k-groups in one row of an AMX tile (64 bytes).
const amxChunk = 16

// chunkRows reorders a panel of kg steps of mr words (word (g, i) at
// src[g*mr+i]) into chunks of amxChunk steps, each its mr rows one after
// another: word (g, i) at dst[(g/16·mr + i)·16 + g%16], the AMX tiles'
// layout. kg is a multiple of amxChunk.
func chunkRows(src []uint32, mr, kg int, dst []uint32) {
	for c := 0; c < kg; c += amxChunk {
		out := dst[c*mr : (c+amxChunk)*mr]
		for q := 0; q < amxChunk; q++ {
			step := src[(c+q)*mr : (c+q+1)*mr]
			for i, v := range step {
				out[i*amxChunk+q] = v
			}
		}
	}
}

func roundUp(n, m int) int {
	if m <= 1 {
		return n
	}
	return ceilDiv(n, m) * m
}

// biasCorrection sets init[j] = −128·Σ (the bytes of column j's words) for
// a packed panel of B of nr columns and kg words each: VPDPBUSD on A + 128
// adds 128·Σₚ B[p][j] to every element of column j, which the kernel's
// start from init takes back.
func biasCorrection[C lowpOut](panel []uint32, nr, kg int, init []C) {
	if s, ok := any(init).([]int32); ok && biasCorrectionAsm(panel, nr, kg, s) {
		return
	}
	biasCorrectionGo(panel, nr, kg, init)
}

// biasCorrectionGo is biasCorrection in Go, a word at a time.
func biasCorrectionGo[C lowpOut](panel []uint32, nr, kg int, init []C) {
	sums := make([]int32, nr)
	for p := 0; p < kg; p++ {
		for j, w := range panel[p*nr : p*nr+nr] {
			sums[j] += int32(int8(w)) + int32(int8(w>>8)) + int32(int8(w>>16)) + int32(int8(w>>24))
		}
	}
	for j, s := range sums {
		init[j] = C(-128 * s)
	}
}

// kernelOfChoice is ch's kernel for output type C.
func kernelOfChoice[C lowpOut](ch lowpChoice) *lowpKernel[C] {
	if k, ok := any(ch.f32).(*lowpKernel[C]); ok && ch.f32 != nil {
		return k
	}
	if k, ok := any(ch.s32).(*lowpKernel[C]); ok && ch.s32 != nil {
		return k
	}
	panic("gemm: " + ch.name + " does not write this output type")
}

// wordCache keeps the packing buffers of finished calls for the next
// ones, up to maxCachedWords of them. A sync.Pool drops what it holds at
// every other garbage collection, and a program whose heap is small
// collects often: peakbench's parent process, whose operands live outside
// the Go heap, had a heap goal of 4 MiB, so the 1.4 MiB of buffers of a
// 1024³ i8 gemm on two threads were the better part of it, and the first
// call of one sample in ten (two threads, beside oneDNN, on the Zen 5 VM)
// allocated them afresh: zeroed, and page faults on memory the runtime had
// returned to the system.
var wordCache struct {
	sync.Mutex
	free []*[]uint32
}

// maxCachedWords bounds wordCache: B's block and an A block per thread
// for a few calls at once.
const maxCachedWords = 8

// getWords returns a buffer of n words starting on a 64-byte boundary,
// recycled across calls (the packed blocks are megabytes): the smallest
// cached one that holds n words, or a new one.
func getWords(n int) *[]uint32 {
	wordCache.Lock()
	best := -1
	for i, p := range wordCache.free {
		if cap(*p) >= n && (best < 0 || cap(*p) < cap(*wordCache.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		p := wordCache.free[best]
		last := len(wordCache.free) - 1
		wordCache.free[best], wordCache.free[last] = wordCache.free[last], nil
		wordCache.free = wordCache.free[:last]
		wordCache.Unlock()
		*p = (*p)[:n]
		return p
	}
	wordCache.Unlock()
	s := make([]uint32, n+16)
	off := 0
	if n > 0 {
		off = int(-uintptr(unsafe.Pointer(&s[0])) % 64 / 4)
	}
	s = s[off : off+n]
	return &s
}

// putWords hands p back to the cache; when the cache is full it keeps the
// larger buffers.
func putWords(p *[]uint32) {
	wordCache.Lock()
	defer wordCache.Unlock()
	if len(wordCache.free) < maxCachedWords {
		wordCache.free = append(wordCache.free, p)
		return
	}
	small := 0
	for i, q := range wordCache.free {
		if cap(*q) < cap(*wordCache.free[small]) {
			small = i
		}
	}
	if cap(*p) > cap(*wordCache.free[small]) {
		wordCache.free[small] = p
	}
}

// wordsAsF32 is w's words as the float32 values whose bits they are.
func wordsAsF32(w []uint32) []float32 {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&w[0])), len(w))
}
