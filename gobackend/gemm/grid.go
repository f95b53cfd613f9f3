package gemm

// The grid split: C cut into tr×tc blocks, one per thread, each thread
// running the loop nest alone on its block, packing its own rows of A and
// columns of B. Against the shared nest (nest.go: one packed block of B for
// all threads, a barrier per phase) it packs more, k·(m/tr + n/tc) elements
// per thread instead of k·(m+n)/threads, but needs no barrier, and each
// thread's packed B stays in its own core's L2 instead of being read by
// every core from wherever the packing thread left it. On the 2-vCPU Intel
// VM (AVX-512, 2 MiB L2 a core), DGEMM at n = 512 and 1024 on two threads
// ran 3–13% faster this way (medians of 12 rounds, interleaved, twice),
// SGEMM at 1024 0–3%.

// maxGridPacking bounds the grid's packing per thread as a multiple of the
// shared nest's: 1.5 for two threads on a square product, 2 for four (2×2),
// 4 for sixteen (4×4), where the shared nest runs instead. Only two
// threads were measured.
const maxGridPacking = 2

// gridOff turns the grid off (tests and benchmarks: the shared nest).
var gridOff bool

// gridFor returns the grid (rows × columns of blocks) for threads threads
// on an m×n product, or 1×1 when the shared nest should run: the
// factorization of threads that packs least (near ties: the one with more
// columns), each block at least one
// micro-tile high and wide, within maxGridPacking of the shared nest.
func gridFor[T Float](kern *microKernel[T], m, n, threads int) (tr, tc int) {
	if threads < 2 || gridOff {
		return 1, 1
	}
	rowTiles, colTiles := ceilDiv(m, kern.mr), ceilDiv(n, kern.nr)
	best := -1
	tr, tc = 1, 1
	for r := 1; r <= threads; r++ {
		c := threads / r
		if r*c != threads || r > rowTiles || c > colTiles {
			continue
		}
		// Elements of A and B packed per unit of k by one thread.
		cost := ceilDiv(rowTiles, r)*kern.mr + ceilDiv(colTiles, c)*kern.nr
		// Near ties (5%) go to more columns of blocks (r rises, c falls):
		// a thread's packed block of B, which its items all read, is then
		// smaller and stays in its core's L2 more often.
		if best < 0 || cost*20 < best*19 {
			best, tr, tc = cost, r, c
		}
	}
	shared := ceilDiv(rowTiles*kern.mr+colTiles*kern.nr, threads) // in whole tiles, as cost
	if best < 0 || best > maxGridPacking*shared {
		return 1, 1
	}
	return tr, tc
}

// gemmGrid runs the nest on each of the tr×tc blocks of C, one thread
// each. Blocks are cut at whole micro-tiles, so every element of C is
// computed as on one thread (full tiles by the kernel, edge tiles aside):
// the result does not depend on the thread count.
func gemmGrid[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int, kern *microKernel[T], tr, tc int) {
	mr, nr := kern.mr, kern.nr
	rowTiles, colTiles := ceilDiv(m, mr), ceilDiv(n, nr)
	threads := tr * tc
	forThreads(threads, func(t int) {
		r, q := t/tc, t%tc
		i0, i1 := rowTiles*r/tr*mr, min(m, rowTiles*(r+1)/tr*mr)
		j0, j1 := colTiles*q/tc*nr, min(n, colTiles*(q+1)/tc*nr)
		ai, bj := a[i0:], b[j0:] // op(A)'s row i0 is a's column i0
		if !transA {
			ai = a[i0*lda:]
		}
		if transB {
			bj = b[j0*ldb:]
		}
		gemmNest(transA, transB, i1-i0, j1-j0, k, alpha, ai, lda, bj, ldb, beta, c[i0*ldc+j0:], ldc, kern, 1)
	})
}
