//go:build !cgo

package cblas

import (
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// Without cgo no library can be opened: open fails, and the methods below
// are unreachable (no *Library exists to call them on).

type handle = struct{}

type jobPtr = unsafe.Pointer

// families reads the C layer's table from its source: no C is linked.
func families() []Family {
	var fs []Family
	for _, r := range native.CBLASRowsFromSource() {
		fs = append(fs, Family(r))
	}
	return fs
}

func open(name, path string) (handle, string, error) {
	return handle{}, "", &LoadError{Library: name, Path: path, Reason: native.ErrNoCgo.Error(), Err: native.ErrNoCgo}
}

const unreachable = "cblas: built without cgo: no library can be open"

func (l *Library) free()                  {}
func (l *Library) setThreads(n int) error { return native.ErrNoCgo }
func (l *Library) threads() int           { return 0 }
func (l *Library) hasExtras() bool        { return false }
func (l *Library) hasVML(op VMLOp, dt DType) bool {
	return false
}

func (l *Library) gemm(dt DType, ta, tb bool, m, n, k int, alpha float64, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, beta float64, c unsafe.Pointer, ldc int) {
	panic(unreachable)
}

func (l *Library) gemv(dt DType, ta bool, m, n int, alpha float64, a unsafe.Pointer, lda int, x unsafe.Pointer, incX int, beta float64, y unsafe.Pointer, incY int) {
	panic(unreachable)
}

func (l *Library) axpy(dt DType, n int, alpha float64, x unsafe.Pointer, incX int, y unsafe.Pointer, incY int) {
	panic(unreachable)
}

func (l *Library) dot(dt DType, n int, x unsafe.Pointer, incX int, y unsafe.Pointer, incY int) float64 {
	panic(unreachable)
}

func (l *Library) scal(dt DType, n int, alpha float64, x unsafe.Pointer, incX int) {
	panic(unreachable)
}
func (l *Library) nrm2(dt DType, n int, x unsafe.Pointer, incX int) float64 { panic(unreachable) }
func (l *Library) asum(dt DType, n int, x unsafe.Pointer, incX int) float64 { panic(unreachable) }
func (l *Library) iamax(dt DType, n int, x unsafe.Pointer, incX int) int    { panic(unreachable) }

func (l *Library) copyv(dt DType, n int, x unsafe.Pointer, incX int, y unsafe.Pointer, incY int) {
	panic(unreachable)
}

func (l *Library) swap(dt DType, n int, x unsafe.Pointer, incX int, y unsafe.Pointer, incY int) {
	panic(unreachable)
}

func (l *Library) trsm(dt DType, left, upper, ta, unit bool, m, n int, alpha float64, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int) {
	panic(unreachable)
}

func (l *Library) jobGemm(dt DType, ta, tb bool, m, n, k int, opt JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}

func (l *Library) lowpHas(dt LowPrecision) bool       { return false }
func (l *Library) lowpRoutine(dt LowPrecision) string { return "" }

func (l *Library) jobGemmLowp(dt LowPrecision, ta, tb bool, m, n, k int, opt JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}

func (l *Library) jobGemv(dt DType, m, n int, opt JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}

func (l *Library) jobAxpy(dt DType, n int, alpha float64, opt JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}

func (l *Library) jobDot(dt DType, n int, opt JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}

func (l *Library) jobVML(op VMLOp, dt DType, n int, opt JobOptions) (jobPtr, error) {
	return nil, native.ErrNoCgo
}
