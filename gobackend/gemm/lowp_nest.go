package gemm

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// gemmLowp is the loop nest of the low-precision gemms, gemmNest's in
// outline: jc over column blocks of nc, pc over depth slices of kc words
// (kc·group k values) with B's block packed once per slice, then work
// items of mc rows (A's block packed for each) times a range of B's
// micro-panels. Each phase (jc, pc) runs in two parallel steps, packing B
// in chunks of panels and then the items, each shared out from a counter;
// the first slice writes C, later ones add to it. Each element of C is
// computed the same way whatever the number of threads.
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
	mr, nr, g := kern.mr, kern.nr, kern.fmtB.group()
	kcv := min(kern.kc*g, ceilDiv(k, g)*g)                                   // k values per slice, a multiple of the group
	kgOf := func(kb int) int { return roundUp(ceilDiv(kb, g), kern.kAlign) } // words of a slice, padded
	kgMax := kgOf(kcv)
	nc := min(max(1, kern.nc/nr)*nr, ceilDiv(n, nr)*nr) // whole panels
	tiles := ceilDiv(m, mr)
	mcTiles := max(1, min(kern.mc/mr, tiles))
	if threads > 1 {
		q := max(minItemsPerThread, ceilDiv(ceilDiv(tiles, mcTiles), threads))
		mcTiles = ceilDiv(tiles, threads*q)
	}
	mc := mcTiles * mr
	rowItems := ceilDiv(m, mc)
	split := 1
	if threads > 1 && rowItems < 2*threads {
		split = min(ceilDiv(2*threads, rowItems), ceilDiv(nc, nr))
	}
	items := rowItems * split

	bbuf := getWords(kgMax * nc)
	defer putWords(bbuf)
	bp := (*bbuf)[:len(*bbuf):len(*bbuf)] // no room past the block: an overrun panics
	var initB []C                         // −128·(column sums of the slice of B), for a biased A
	if kern.biasedA {
		initB = make([]C, nc)
	}
	type worker struct {
		abuf   *[]uint32
		tile   []C
		packed int // which block of A abuf holds, −1 for none
	}
	workers := make([]worker, min(threads, items))
	for i := range workers {
		workers[i] = worker{abuf: getWords(mc * kgMax), tile: make([]C, mr*nr), packed: -1}
		defer putWords(workers[i].abuf)
	}

	for jc := 0; jc < n; jc += nc {
		nb := min(nc, n-jc)
		panels := ceilDiv(nb, nr)
		for pc := 0; pc < k; pc += kcv {
			kb := min(kcv, k-pc)
			kg := kgOf(kb)
			add := pc > 0
			// B's panels, in chunks.
			chunks := min(panels, 4*threads)
			parallel(threads, chunks, func(_, i int) {
				for p := panels * i / chunks; p < panels*(i+1)/chunks; p++ {
					c0 := p * nr
					cols := min(nr, nb-c0)
					dst := bp[c0*kg : (c0+nr)*kg]
					if transB {
						packLines(b[(jc+c0)*ldb+pc:], ldb, true, cols, nr, kb, kg, kern.fmtB, kern.vecPack, dst)
					} else {
						packLines(b[pc*ldb+jc+c0:], ldb, false, cols, nr, kb, kg, kern.fmtB, kern.vecPack, dst)
					}
					if initB != nil {
						biasCorrection(dst, nr, kg, initB[c0:c0+nr])
					}
				}
			})
			parallel(min(threads, items), items, func(t, item int) {
				wk := &workers[t]
				ap := (*wk.abuf)[:len(*wk.abuf):len(*wk.abuf)]
				ic := item / split * mc
				mb := min(mc, m-ic)
				// A thread packs the block of A its item needs unless it
				// packed it for its previous item (items of one row block
				// may run on different threads).
				if key := (jc*k+pc)*m + ic; wk.packed != key {
					if transA {
						packRows(a[pc*lda+ic:], lda, true, mb, kb, kg, kern, ap)
					} else {
						packRows(a[ic*lda+pc:], lda, false, mb, kb, kg, kern, ap)
					}
					wk.packed = key
				}
				part := item % split
				for jr := panels * part / split * nr; jr < min(panels*(part+1)/split*nr, nb); jr += nr {
					bpan := bp[jr*kg : (jr+nr)*kg]
					cols := min(nr, nb-jr)
					var init []C
					if initB != nil {
						init = initB[jr : jr+nr]
					}
					ir := 0
					if full := mb / mr; kern.strip != nil && cols == nr && full > 0 {
						kern.strip(kg, full, ap[:full*mr*kg], bpan, c[ic*ldc+jc+jr:], ldc, add)
						ir = full * mr
					}
					for ; ir < mb; ir += mr {
						apan := ap[ir*kg : (ir+mr)*kg]
						rows := min(mr, mb-ir)
						ct := c[(ic+ir)*ldc+jc+jr:]
						if rows == mr && cols == nr {
							kern.fn(kg, apan, bpan, ct, ldc, init, add)
							continue
						}
						kern.fn(kg, apan, bpan, wk.tile, nr, init, false)
						for i := 0; i < rows; i++ {
							ci, ti := ct[i*ldc:i*ldc+cols], wk.tile[i*nr:i*nr+cols]
							if add {
								for j := range ci {
									ci[j] += ti[j]
								}
							} else {
								copy(ci, ti)
							}
						}
					}
				}
			})
		}
	}
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
	for j := range init {
		init[j] = 0
	}
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

// parallel runs f(worker, i) for every i < n on up to threads goroutines
// (the caller's among them), each taking the next i from a counter.
func parallel(threads, n int, f func(worker, i int)) {
	threads = min(threads, n)
	if threads <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	run := func(w int) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			f(w, i)
		}
	}
	var wg sync.WaitGroup
	wg.Add(threads - 1)
	for w := 1; w < threads; w++ {
		go func() {
			defer wg.Done()
			run(w)
		}()
	}
	run(0)
	wg.Wait()
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

var wordPool sync.Pool

// getWords returns a buffer of n words starting on a 64-byte boundary,
// recycled across calls (the packed blocks are megabytes).
func getWords(n int) *[]uint32 {
	if p, ok := wordPool.Get().(*[]uint32); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]uint32, n+16)
	off := 0
	if n > 0 {
		off = int(-uintptr(unsafe.Pointer(&s[0])) % 64 / 4)
	}
	s = s[off : off+n]
	return &s
}

func putWords(p *[]uint32) { wordPool.Put(p) }

// wordsAsF32 is w's words as the float32 values whose bits they are.
func wordsAsF32(w []uint32) []float32 {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&w[0])), len(w))
}
