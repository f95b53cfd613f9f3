// Package gemm is the matrix multiply of peakbench's own backends: a blocked
// GEMM in the BLIS structure (packed panels, a register-blocked micro-kernel)
// and a GEMV, generic over float32 and float64 and parallel over an explicit
// number of goroutines. Every function takes an isa.Level: isa.Generic runs
// the pure-Go micro-kernel (the go backend's), higher levels the assembly
// ones of gemm_amd64.s (the asm backend's).
//
// Matrices are row-major. Caller mistakes (negative sizes, a leading
// dimension too small, a slice too short, threads < 1) panic with a message
// starting "gemm: ", as gonum's BLAS does.
package gemm

import (
	"sync"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// Float is the element type: float32, float64 or a type defined on them.
type Float = num.Float

// minFlopsPerThread keeps small products serial: below about 64³
// multiply-adds per goroutine the start and join cost more than they save.
var minFlopsPerThread = 64 * 64 * 64

// Gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices: op(A)
// is m×k, op(B) is k×n, C is m×n. A is stored m×k (lda ≥ k) when !transA and
// k×m (lda ≥ m) when transA; likewise B is stored k×n (ldb ≥ n) or n×k
// (ldb ≥ k). At most threads goroutines work on it (threads ≥ 1).
//
// As in reference BLAS: with beta == 0, C is written without being read (NaN
// in C does not leak into the result); with alpha == 0 or k == 0, A and B are
// not read and C is only scaled by beta; m == 0 or n == 0 does nothing.
// C must not overlap A or B.
func Gemm[T Float](lvl isa.Level, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int, threads int) {
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc, threads)
	if m == 0 || n == 0 {
		return
	}
	if alpha == 0 || k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	kern := kernelFor[T](lvl)

	// Each goroutine owns a tm×tn cell of C and runs the whole loop nest on
	// it with its own packing buffers: no barriers, at the price of packing
	// the shared panels once per cell (B once per row cell), which is
	// O(1/m) of the work. Cells are whole multiples of mr and nr, so only
	// the true edges of C get edge tiles. Rows are split first: a row cell
	// needs only its own rows of A.
	tm, tn := grid(m, n, k, threads, kern.mr, kern.nr)
	if tm*tn == 1 {
		gemmSerial(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, kern)
		return
	}
	rowStep := ceilDiv(ceilDiv(m, kern.mr), tm) * kern.mr
	colStep := ceilDiv(ceilDiv(n, kern.nr), tn) * kern.nr
	var wg sync.WaitGroup
	for r0 := 0; r0 < m; r0 += rowStep {
		for c0 := 0; c0 < n; c0 += colStep {
			mb, nb := min(rowStep, m-r0), min(colStep, n-c0)
			aOff, bOff := r0*lda, c0
			if transA {
				aOff = r0
			}
			if transB {
				bOff = c0 * ldb
			}
			aa, bb := a[aOff:], b[bOff:]
			cc := c[r0*ldc+c0:]
			wg.Add(1)
			go func() {
				defer wg.Done()
				gemmSerial(transA, transB, mb, nb, k, alpha, aa, lda, bb, ldb, beta, cc, ldc, kern)
			}()
		}
	}
	wg.Wait()
}

// grid splits threads over the rows and columns of C, in whole micro-tiles,
// never more cells than threads and never so many that a cell gets less than
// minFlopsPerThread of work.
func grid(m, n, k, threads, mr, nr int) (tm, tn int) {
	if work := m * n * k; work/minFlopsPerThread < threads {
		threads = max(1, work/minFlopsPerThread)
	}
	tm = min(threads, ceilDiv(m, mr))
	tn = min(threads/tm, ceilDiv(n, nr))
	// Rounding the cells to whole tiles can leave fewer cells than asked.
	tm = ceilDiv(ceilDiv(m, mr), ceilDiv(ceilDiv(m, mr), tm))
	tn = ceilDiv(ceilDiv(n, nr), ceilDiv(ceilDiv(n, nr), tn))
	return tm, tn
}

// gemmSerial is the BLIS loop nest on one goroutine: jc over column blocks
// of nc, pc over kc-deep slices of the inner dimension (B packed once per
// slice), ic over row blocks of mc (A packed once per block), then jr and ir
// over the micro-tiles. The first pc slice applies beta; later ones add.
func gemmSerial[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int, kern microKernel[T]) {
	mr, nr := kern.mr, kern.nr
	kc := max(1, min(kern.kc, k))
	mc := min(kern.mc, ceilDiv(m, mr)*mr)
	nc := min(kern.nc, ceilDiv(n, nr)*nr)

	bufA := getBuf[T](mc * kc)
	bufB := getBuf[T](kc * nc)
	defer putBuf(bufA)
	defer putBuf(bufB)
	ap, bp := *bufA, *bufB
	tile := make([]T, mr*nr) // an edge tile, computed whole then clipped

	for jc := 0; jc < n; jc += nc {
		nb := min(nc, n-jc)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			betaPC := beta
			if pc > 0 {
				betaPC = 1
			}
			if transB {
				packB(&kern, true, b[jc*ldb+pc:], ldb, kb, nb, bp)
			} else {
				packB(&kern, false, b[pc*ldb+jc:], ldb, kb, nb, bp)
			}
			for ic := 0; ic < m; ic += mc {
				mb := min(mc, m-ic)
				if transA {
					packA(&kern, true, a[pc*lda+ic:], lda, mb, kb, ap)
				} else {
					packA(&kern, false, a[ic*lda+pc:], lda, mb, kb, ap)
				}
				for jr := 0; jr < nb; jr += nr {
					bpan := bp[jr*kb : (jr+nr)*kb]
					cols := min(nr, nb-jr)
					for ir := 0; ir < mb; ir += mr {
						apan := ap[ir*kb : (ir+mr)*kb]
						rows := min(mr, mb-ir)
						ct := c[(ic+ir)*ldc+jc+jr:]
						if rows == mr && cols == nr {
							kern.fn(kb, apan, bpan, alpha, betaPC, ct, ldc)
							continue
						}
						// Edge tile: compute the full tile aside, keep
						// only the part inside C.
						kern.fn(kb, apan, bpan, 1, 0, tile, nr)
						for i := 0; i < rows; i++ {
							ci := ct[i*ldc : i*ldc+cols]
							ti := tile[i*nr : i*nr+cols]
							if betaPC == 0 {
								for j := range ci {
									ci[j] = alpha * ti[j]
								}
							} else {
								for j := range ci {
									ci[j] = alpha*ti[j] + betaPC*ci[j]
								}
							}
						}
					}
				}
			}
		}
	}
}

// scaleC sets C = beta·C, writing zeros (not 0·C, which keeps NaN) when
// beta == 0.
func scaleC[T Float](m, n int, beta T, c []T, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func checkGemm(transA, transB bool, m, n, k, la, lda, lb, ldb, lc, ldc, threads int) {
	switch {
	case m < 0:
		panic("gemm: m < 0")
	case n < 0:
		panic("gemm: n < 0")
	case k < 0:
		panic("gemm: k < 0")
	case threads < 1:
		panic("gemm: threads < 1")
	}
	// Stored shapes: A is rowsA×colsA with stride lda, and so on.
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	switch {
	case lda < max(1, colsA):
		panic("gemm: bad lda")
	case ldb < max(1, colsB):
		panic("gemm: bad ldb")
	case ldc < max(1, n):
		panic("gemm: bad ldc")
	case la < minLen(rowsA, colsA, lda):
		panic("gemm: short a")
	case lb < minLen(rowsB, colsB, ldb):
		panic("gemm: short b")
	case lc < minLen(m, n, ldc):
		panic("gemm: short c")
	}
}

// minLen is the length a rows×cols matrix with stride ld needs.
func minLen(rows, cols, ld int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*ld + cols
}
