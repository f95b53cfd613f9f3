package gemm

// Packing copies a block of op(A) or op(B) into the order the micro-kernel
// reads it: panel after panel, each panel k steps of mr (or nr) contiguous
// values. The kernel then streams both operands with unit stride whatever the
// transposes and leading dimensions were, and a short edge panel is padded
// with zeros so the kernel never needs a ragged variant.

// packA packs the mb×kb block of op(A) whose top-left element is a[0] into
// dst, as ⌈mb/mr⌉ panels of mr rows. op(A)[i][p] is a[i*lda+p], or a[p*lda+i]
// when trans.
func packA[T Float](trans bool, a []T, lda, mb, kb, mr int, dst []T) {
	for r := 0; r < mb; r += mr {
		d := dst[r*kb : (r+mr)*kb]
		rows := min(mr, mb-r)
		if trans {
			for p := 0; p < kb; p++ {
				src := a[p*lda+r : p*lda+r+rows]
				dp := d[p*mr : p*mr+mr]
				copy(dp, src)
				clear(dp[rows:])
			}
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
func packB[T Float](trans bool, b []T, ldb, kb, nb, nr int, dst []T) {
	for c := 0; c < nb; c += nr {
		d := dst[c*kb : (c+nr)*kb]
		cols := min(nr, nb-c)
		if !trans {
			for p := 0; p < kb; p++ {
				src := b[p*ldb+c : p*ldb+c+cols]
				dp := d[p*nr : p*nr+nr]
				copy(dp, src)
				clear(dp[cols:])
			}
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
