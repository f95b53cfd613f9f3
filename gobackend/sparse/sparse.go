// Package sparse is peakbench's own sparse kernels: y = A·x (SpMV) and
// Y = A·X (SpMM) for A in compressed sparse row form, generic over
// float32 and float64, pure Go everywhere and, on amd64, assembly (AVX2,
// AVX-512): SpMV gathering x by the column indices, SpMM holding Y's row
// in registers.
//
// Rows are split between threads by their entries, not their count
// (Partition): a power-law matrix's longest rows hold a large share of
// its entries, and equal row counts left a thread with most of the work.
package sparse

//go:generate go run -C ../_asm . -pkg sparse

import (
	"fmt"
	"sort"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// Float is the element type of the kernels.
type Float = num.Float

// CSR is a rows×cols matrix in compressed sparse row form, checked once by
// NewCSR so the kernels need not check its indices.
type CSR[T Float] struct {
	rows, cols int
	rowPtr     []int32
	colIdx     []int32
	val        []T
}

// NewCSR checks the arrays (rowPtr of rows+1 non-decreasing offsets from 0
// to len(colIdx); every column index in [0, cols); one value per index)
// and holds them, not copied.
func NewCSR[T Float](rows, cols int, rowPtr, colIdx []int32, val []T) (*CSR[T], error) {
	if rows < 0 || cols < 0 || len(rowPtr) != rows+1 || len(val) != len(colIdx) || rowPtr[0] != 0 || int(rowPtr[rows]) != len(colIdx) {
		return nil, fmt.Errorf("sparse: %d×%d: %d row pointers, %d indices, %d values", rows, cols, len(rowPtr), len(colIdx), len(val))
	}
	for i := range rows {
		if rowPtr[i+1] < rowPtr[i] {
			return nil, fmt.Errorf("sparse: row %d ends before it starts", i)
		}
	}
	for p, c := range colIdx {
		if c < 0 || int(c) >= cols {
			return nil, fmt.Errorf("sparse: entry %d: column %d outside [0, %d)", p, c, cols)
		}
	}
	return &CSR[T]{rows, cols, rowPtr, colIdx, val}, nil
}

// Rows and Cols are the matrix's dimensions, NNZ its entries.
func (a *CSR[T]) Rows() int { return a.rows }
func (a *CSR[T]) Cols() int { return a.cols }
func (a *CSR[T]) NNZ() int  { return len(a.colIdx) }

// minPiece is the fewest entries a thread is given: below it one thread
// does the whole product (a piece costs a wake-up of about a microsecond,
// in which a core does some thousands of entries).
const minPiece = 16 << 10

// Partition returns parts+1 row boundaries splitting a's rows into parts
// ranges of about equal entries (a row is never split): range i is rows
// bounds[i] to bounds[i+1].
func (a *CSR[T]) Partition(parts int) []int {
	bounds := make([]int, parts+1)
	nnz := len(a.colIdx)
	for i := 1; i < parts; i++ {
		target := int32((int64(nnz) * int64(i)) / int64(parts))
		// The first row starting at or after the target.
		bounds[i] = max(bounds[i-1], sort.Search(a.rows, func(r int) bool { return a.rowPtr[r] >= target }))
	}
	bounds[parts] = a.rows
	return bounds
}

// pieces is how many ranges a product of a's entries is split into.
func (a *CSR[T]) pieces(threads int) int {
	return max(1, min(threads, len(a.colIdx)/minPiece))
}

// MulVec sets y = A·x on threads threads, with the kernels of level lvl.
// len(x) must be Cols and len(y) Rows.
func MulVec[T Float](lvl isa.Level, a *CSR[T], x, y []T, threads int) {
	if len(x) != a.cols || len(y) != a.rows {
		panic(fmt.Sprintf("sparse: MulVec of a %d×%d matrix with x of %d and y of %d", a.rows, a.cols, len(x), len(y)))
	}
	k := implFor(lvl)
	a.byRows(a.pieces(threads), func(lo, hi int) { mulVecRows(k, a, x, y, lo, hi) })
}

// byRows runs rows over parts row ranges of about equal entries
// (Partition), in parallel; one part runs on the caller's goroutine.
func (a *CSR[T]) byRows(parts int, rows func(lo, hi int)) {
	if parts <= 1 {
		rows(0, a.rows)
		return
	}
	bounds := a.Partition(parts)
	num.For(parts, parts, 1, 1, func(_, lo, hi int) {
		for part := lo; part < hi; part++ {
			rows(bounds[part], bounds[part+1])
		}
	})
}

// mulVecRows computes rows lo to hi of y.
func mulVecRows[T Float](k impl, a *CSR[T], x, y []T, lo, hi int) {
	if k != implGeneric && hi > lo && len(a.colIdx) > 0 {
		spmvAsm(k, a, x, y, lo, hi)
		return
	}
	spmvGeneric(a, x, y, lo, hi)
}

// spmvGeneric is the pure-Go kernel: a dot product per row, in order.
func spmvGeneric[T Float](a *CSR[T], x, y []T, lo, hi int) {
	for i := lo; i < hi; i++ {
		var s T
		p0, p1 := a.rowPtr[i], a.rowPtr[i+1]
		cols, vals := a.colIdx[p0:p1], a.val[p0:p1]
		for j, c := range cols {
			s += vals[j] * x[c]
		}
		y[i] = s
	}
}

// MulMat sets Y = A·X for X cols×k and Y rows×k (row-major), with the
// kernels of level lvl: each row of Y a sum of A's entries times rows of X.
func MulMat[T Float](lvl isa.Level, a *CSR[T], x []T, k int, y []T, threads int) {
	if len(x) != a.cols*k || len(y) != a.rows*k {
		panic(fmt.Sprintf("sparse: MulMat of a %d×%d matrix, k=%d, with X of %d and Y of %d", a.rows, a.cols, k, len(x), len(y)))
	}
	if k == 0 {
		return
	}
	impl := implFor(lvl)
	rows := func(lo, hi int) {
		if impl != implGeneric && hi > lo && len(a.colIdx) > 0 {
			spmmAsm(impl, a, x, k, y, lo, hi)
			return
		}
		spmmGeneric(a, x, k, y, lo, hi)
	}
	a.byRows(max(1, min(threads, len(a.colIdx)*k/minPiece)), rows)
}

// spmmGeneric is the pure-Go kernel: each entry adds a·X's row into Y's
// row (the rows of X are contiguous, and the loop over k stays in cache).
func spmmGeneric[T Float](a *CSR[T], x []T, k int, y []T, lo, hi int) {
	for i := lo; i < hi; i++ {
		yr := y[i*k : (i+1)*k]
		clear(yr)
		for p := a.rowPtr[i]; p < a.rowPtr[i+1]; p++ {
			v, xr := a.val[p], x[int(a.colIdx[p])*k:][:k]
			for j, xv := range xr {
				yr[j] += v * xv
			}
		}
	}
}

type impl = isa.Impl

const (
	implGeneric = isa.ImplGeneric
	implAVX2    = isa.ImplAVX2
	implAVX512  = isa.ImplAVX512
)

func implFor(lvl isa.Level) impl {
	return isa.ImplFor(lvl, haveAsm)
}

// Kernel names the SpMV and SpMM kernel a level runs: "generic", "AVX2" or
// "AVX512".
func Kernel(lvl isa.Level) string {
	return [...]string{"generic", "AVX2", "AVX512"}[implFor(lvl)]
}
