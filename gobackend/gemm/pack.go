package gemm

// Packing copies a block of op(A) or op(B) into the order the micro-kernel
// reads it: panel after panel, each panel k steps of mr (or nr) contiguous
// values. The kernel then streams both operands with unit stride whatever the
// transposes and leading dimensions were, and a short edge panel is padded
// with zeros so the kernel never needs a ragged variant. A read in place
// instead (the direct kernel on packed B, no packing of A) ran SGEMM 1024³
// on one thread at 0.74–0.87× the speed on the Zen 5 Turin VM (three
// alternated runs): its mr rows, 4 KiB apart, fall in the same L1 sets.
//
// A full panel goes to the kernel's packing routines when it has them (the
// assembly ones of gemm_amd64.s); edge panels, and every panel of the pure-Go
// kernel, are packed here.

// A panelPacker packs one full panel of w values per step, k steps, into
// dst[:k*w]: with copy, step p is src[p*lds : p*lds+w]; with gather, value i
// of step p is src[i*lds+p].
type panelPacker[T Float] func(k int, src []T, lds int, dst []T)

// packA packs the mb×kb block of op(A) whose top-left element is a[0] into
// dst, as ⌈mb/mr⌉ panels of mr rows. op(A)[i][p] is a[i*lda+p], or a[p*lda+i]
// when trans.
func packA[T Float](kern *microKernel[T], trans bool, a []T, lda, mb, kb int, dst []T) {
	mr := kern.mr
	for r := 0; r < mb; r += mr {
		d := dst[r*kb : (r+mr)*kb]
		rows := min(mr, mb-r)
		if trans {
			if rows == mr && kern.packCopyA != nil {
				kern.packCopyA(kb, a[r:], lda, d)
				continue
			}
			for p := 0; p < kb; p++ {
				src := a[p*lda+r : p*lda+r+rows]
				dp := d[p*mr : p*mr+mr]
				copy(dp, src)
				clear(dp[rows:])
			}
			continue
		}
		if rows == mr && kern.packGatherA != nil {
			kern.packGatherA(kb, a[r*lda:], lda, d)
			continue
		}
		for i := 0; i < rows; i++ {
			src := a[(r+i)*lda : (r+i)*lda+kb]
			for p, v := range src {
				d[p*mr+i] = v
			}
		}
		for i := rows; i < mr; i++ {
			for p := 0; p < kb; p++ {
				d[p*mr+i] = 0
			}
		}
	}
}

// packB packs the kb×nb block of op(B) whose top-left element is b[0] into
// dst, as ⌈nb/nr⌉ panels of nr columns. op(B)[p][j] is b[p*ldb+j], or
// b[j*ldb+p] when trans.
func packB[T Float](kern *microKernel[T], trans bool, b []T, ldb, kb, nb int, dst []T) {
	nr := kern.nr
	for c := 0; c < nb; c += nr {
		d := dst[c*kb : (c+nr)*kb]
		cols := min(nr, nb-c)
		if !trans {
			if cols == nr && kern.packCopyB != nil {
				kern.packCopyB(kb, b[c:], ldb, d)
				continue
			}
			for p := 0; p < kb; p++ {
				src := b[p*ldb+c : p*ldb+c+cols]
				dp := d[p*nr : p*nr+nr]
				copy(dp, src)
				clear(dp[cols:])
			}
			continue
		}
		if cols == nr && kern.packGatherB != nil {
			kern.packGatherB(kb, b[c*ldb:], ldb, d)
			continue
		}
		for j := 0; j < cols; j++ {
			src := b[(c+j)*ldb : (c+j)*ldb+kb]
			for p, v := range src {
				d[p*nr+j] = v
			}
		}
		for j := cols; j < nr; j++ {
			for p := 0; p < kb; p++ {
				d[p*nr+j] = 0
			}
		}
	}
}

// packRowsB is packB for B not transposed, its full panels packed by
// kern.packRowsB where the kernel has one: B read a row at a time across
// the block (one contiguous run per row), not a panel at a time (a run of
// nr values per row, then the next row ldb further on). The streaming
// path's: f64 16×6272×432 ran 1.5× as fast (2.7 ms → 1.8 at one thread),
// f32 64×3136×256 2–4% (BenchmarkStream, Intel Xeon VM).
func packRowsB[T Float](kern *microKernel[T], b []T, ldb, kb, nb int, dst []T) {
	full := nb / kern.nr
	if kern.packRowsB == nil || full == 0 {
		packB(kern, false, b, ldb, kb, nb, dst)
		return
	}
	kern.packRowsB(kb, b, ldb, full, dst)
	if c := full * kern.nr; c < nb {
		packB(kern, false, b[c:], ldb, kb, nb-c, dst[c*kb:])
	}
}
