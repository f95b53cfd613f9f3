package gemm

// The column split of the low-precision GEMM: where A is read as it is
// stored (rawA: the AMX kernels, A not transposed, k in whole chunks), A
// costs no packing, so cutting C into one block of whole panels of columns
// per thread packs no more than the shared nest (each thread packs its own
// columns of B, and only those) and needs no barrier between phases; each
// thread's packed B stays in its own core's L2 rather than being read by
// both cores from wherever the thread that packed it left it. Each element
// of C is computed as in the shared nest (the same panels, depth slices
// and row tiles), so the result does not depend on the split.

// lowpSplitOff turns the column split off (tests and benchmarks: the
// shared nest).
var lowpSplitOff bool

// lowpColumnBlocks returns into how many blocks of columns, one per
// thread, gemmLowp should cut the product, or 1 for the shared nest: the
// threads, where A is read raw in every depth slice and each block gets at
// least minItemsPerThread panels of B.
//
// Not for the zmm VNNI kernel, whose A is packed (by the AVX-512 packers,
// about 1% of the GEMM): on the Zen 5 VM, two threads, the split ran i8
// in a loop (TestLowpSweep) level with the shared nest when quiet (−2% to
// +4% by medians) and ahead under other jobs' load (−1.5% to +12%), but in
// pb beside oneDNN (two alternated pairs, quiet) asm ÷ oneDNN went from
// 0.88, 0.81 (1024³) and 0.96, 1.01 (2048³) to 0.93, 0.84 and 1.04, 0.95
// for i8, and from 0.88, 0.72 and 1.01, 1.00 to 0.87, 0.66 and 0.85, 0.91
// for u8s8: each thread packing all of A, twice the reads of A at 2048³.
//
// Only for 8-bit values: on the Intel Xeon VM (AMX, 2 vCPUs), two threads,
// interleaved in one process (TestLowpSweep), the split ran i8 at 1024³
// and 2048³ 0–2% faster than the shared nest on a quiet machine and 5–18%
// under other jobs' load, but bf16 at 1024³ 4–5% slower on a quiet machine
// (twice; 2048³ within 1%), where each thread reads all of an A twice the
// bytes.
func lowpColumnBlocks[A lowpIn, C lowpOut](kern *lowpKernel[C], transA bool, n, k, threads int) int {
	if threads < 2 || lowpSplitOff || kern.stripRaw == nil || transA || kern.fmtA.group() != 4 ||
		kern.fmtA == wordQuad8Biased || !rawWords[A](kern.fmtA) {
		return 1
	}
	// Every slice's depth is a multiple of the chunk when k is: the slices
	// but the last are kern.kc words, a multiple of kAlign.
	if k%(kern.kAlign*kern.fmtA.group()) != 0 || ceilDiv(n, kern.nr) < threads*minItemsPerThread {
		return 1
	}
	return threads
}

// gemmLowpColumns runs gemmLowp on tc blocks of whole panels of C's
// columns, each on one thread of lowpTeam.
func gemmLowpColumns[A, B lowpIn, C lowpOut](ch lowpChoice, nr int, transA, transB bool, m, n, k int, a []A, lda int, b []B, ldb int, c []C, ldc, tc int) {
	panels := ceilDiv(n, nr)
	lowpTeam.run(tc, func(q int) {
		j0, j1 := panels*q/tc*nr, min(n, panels*(q+1)/tc*nr)
		bj := b[j0:] // op(B)'s column j0 is b's row j0 when transposed
		if transB {
			bj = b[j0*ldb:]
		}
		gemmLowp(ch, transA, transB, m, j1-j0, k, a, lda, bj, ldb, c[j0:], ldc, 1)
	})
}
