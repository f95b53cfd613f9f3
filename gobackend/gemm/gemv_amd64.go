//go:build !purego

package gemm

import "unsafe"

// dot8Asm returns the dot products of x (n elements) with the eight rows of
// a, lda apart: a holds them, len(a) == 7·lda + n.
func dot8Asm[T Float](n int, a []T, lda int, x []T) (d [8]T) {
	if n == 0 {
		return d
	}
	_, _ = a[7*lda+n-1], x[n-1]
	var z T
	if unsafe.Sizeof(z) == 4 {
		sdot8AVX512(n, ptr[T, float32](a), lda, ptr[T, float32](x), (*[8]float32)(unsafe.Pointer(&d)))
	} else {
		ddot8AVX512(n, ptr[T, float64](a), lda, ptr[T, float64](x), (*[8]float64)(unsafe.Pointer(&d)))
	}
	return d
}
