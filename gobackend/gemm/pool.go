package gemm

import (
	"sync"
	"unsafe"
)

// Packing buffers are big (kc×nc elements for B) and a benchmark calls Gemm
// back to back, so they are recycled instead of allocated per call. One pool
// per element size; a *[]T of another type with the same size (a named
// float32, say) fails the type assertion in getBuf and is simply dropped.
var pools [2]sync.Pool

func poolFor[T Float]() *sync.Pool {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return &pools[0]
	}
	return &pools[1]
}

// getBuf returns a buffer of n elements with unspecified contents, starting
// on a 64-byte boundary so that the kernels' vector loads of packed panels
// never straddle cache lines.
func getBuf[T Float](n int) *[]T {
	if p, ok := poolFor[T]().Get().(*[]T); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	var z T
	size := int(unsafe.Sizeof(z))
	s := make([]T, n+64/size)
	off := 0
	if n > 0 {
		off = int(-uintptr(unsafe.Pointer(&s[0])) % 64 / uintptr(size))
	}
	s = s[off : off+n]
	return &s
}

func putBuf[T Float](p *[]T) { poolFor[T]().Put(p) }
