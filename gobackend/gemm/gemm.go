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
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// Float is the element type: float32, float64 or a type defined on them.
type Float = num.Float

// minFlopsPerThread keeps small low-precision products serial (lowp_nest.go):
// below about 64³ multiply-adds per goroutine the start and join cost more
// than they save. The f32 and f64 GEMM's is tuned (threadsFor).
var minFlopsPerThread = 64 * 64 * 64

// threadsFor is how many of threads a product of m·n·k multiply-adds uses:
// each gets at least tune.GEMM.Parallel of them, measured by
// `peakbench -tune` (0: all threads whatever the size).
func threadsFor[T Float](m, n, k, threads int) int {
	var z T
	per := tune.PerDTypeOf(tune.Current().GEMM.Parallel, int(unsafe.Sizeof(z)))
	if work := m * n * k; per > 0 && work/per < threads {
		return max(1, work/per)
	}
	return threads
}

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
	kern := kernelRef[T](lvl)
	narrow := false
	if nk := kern.narrow; nk != nil && n < kern.nr && (n < nk.nr || n%nk.nr == 0) {
		kern, narrow = nk, true
	}
	threads = threadsFor[T](m, n, k, threads)
	if useDirect(kern, narrow, transA, transB, m, n, k) {
		gemmDirect(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, kern, threads)
		return
	}
	if useStream(kern, lvl, m, n) {
		gemmStream(lvl, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, kern, threads)
		return
	}
	gemmNest(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nestKernel(kern), threads)
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
