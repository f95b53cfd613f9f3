//go:build !purego

package sparse

import "unsafe"

// The conversions' assembly (../_asm/sparse_convert.go). The callers pass
// non-empty ranges of a matrix with entries.

// cooRowsAsm writes the row indices of rows lo to hi (hi > lo), and past
// the last one's end up to cooBlock entries from its start.
func cooRowsAsm(k impl, rowPtr, rowIdx []int32, lo, hi int) {
	if k == implAVX512 {
		cooRowsAVX512(hi-lo, int32(lo), &rowPtr[lo], &rowIdx[0])
	} else {
		cooRowsAVX2(hi-lo, int32(lo), &rowPtr[lo], &rowIdx[0])
	}
}

// countAsm adds 1 to count[c] for each c of colIdx (not empty).
func countAsm(colIdx, count []int32) { cscCount(len(colIdx), &colIdx[0], &count[0]) }

// scatterAsm is scatterRows of rows lo to hi (hi > lo).
func scatterAsm[T Float](a *CSR[T], cursor []int32, val []T, rowIdx []int32, lo, hi int) {
	var z T
	if unsafe.Sizeof(z) == 4 {
		scscScatter(hi-lo, int32(lo), &a.rowPtr[lo], &a.colIdx[0], (*float32)(unsafe.Pointer(&a.val[0])), &cursor[0], (*float32)(unsafe.Pointer(&val[0])), &rowIdx[0])
		return
	}
	dcscScatter(hi-lo, int32(lo), &a.rowPtr[lo], &a.colIdx[0], (*float64)(unsafe.Pointer(&a.val[0])), &cursor[0], (*float64)(unsafe.Pointer(&val[0])), &rowIdx[0])
}
