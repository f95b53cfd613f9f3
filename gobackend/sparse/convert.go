package sparse

import (
	"fmt"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// The format conversions: CSR to COO (the row of each entry), COO sorted by
// row to CSR (the row pointers) and CSR to CSC (a counting sort by column).
// Row-sorted COO shares CSR's values and column indices, so the first two
// convert the row array alone, as cusparseXcsr2coo and Xcoo2csr do. They
// are stores of indices and scattered copies, no arithmetic: at the
// assembly levels (convert_amd64.go) CSR to COO stores each row's index
// with vector stores, and CSR to CSC counts and scatters in loops without
// Go's bounds checks, the same work in a third to a half of the
// instructions; FromCOO is Go at every level.

// ToCOO writes the row of each of a's entries to rowIdx (NNZ long), the
// rows split between threads by entries as SpMV's are, with the kernels of
// level lvl.
func ToCOO[T Float](lvl isa.Level, a *CSR[T], rowIdx []int32, threads int) {
	if len(rowIdx) != len(a.colIdx) {
		panic(fmt.Sprintf("sparse: ToCOO of %d entries into %d rows", len(a.colIdx), len(rowIdx)))
	}
	k := implFor(lvl)
	a.byRows(a.pieces(threads), func(lo, hi int) { cooRows(k, a.rowPtr, rowIdx, lo, hi) })
}

// cooRows writes the row indices of rows lo to hi. The assembly stores a
// block of cooBlock entries from each row's start, past a short row's end
// into the next rows' entries, which they overwrite: it runs the rows
// whose block ends within the range's entries (a thread never writes
// another's), and Go the last few.
func cooRows(k impl, rowPtr, rowIdx []int32, lo, hi int) {
	if k != implGeneric {
		end := int(rowPtr[hi]) // in int: an int32 sum could wrap
		safe := hi
		for safe > lo && int(rowPtr[safe-1])+cooBlock > end {
			safe--
		}
		if safe > lo {
			cooRowsAsm(k, rowPtr, rowIdx, lo, safe)
		}
		lo = safe
	}
	for i := lo; i < hi; i++ {
		r := rowIdx[rowPtr[i]:rowPtr[i+1]]
		for j := range r {
			r[j] = int32(i)
		}
	}
}

// cooBlock is the entries the assembly stores from each row's start
// (../_asm/sparse_convert.go).
const cooBlock = 32

// FromCOO writes the row pointers (rows+1) of a matrix whose entries'
// rows, rowIdx, ascend (COO sorted by row; every row in [0, rows)):
// rowPtr[r] is the first entry in row r or later. Threads take equal runs
// of entries; each sets the pointers of the rows its entries start, so
// none writes another's.
func FromCOO(rows int, rowIdx, rowPtr []int32, threads int) {
	if len(rowPtr) != rows+1 {
		panic(fmt.Sprintf("sparse: FromCOO of %d rows into %d row pointers", rows, len(rowPtr)))
	}
	nnz := len(rowIdx)
	// run sets the pointers of the rows entries lo..hi-1 start, first+1
	// to last, without a branch an entry: each entry's row is pointed at
	// the entry, from the last entry down, so that a row ends pointing at
	// its first; then, from the last row down, a row with no entry takes
	// the pointer of the row after it. Scanning up with a test an entry
	// for a new row, random row lengths (the suite's 8 to 24 entries a
	// row) mispredicted about once a row.
	run := func(lo, hi int) {
		first := int32(-1) // the row before this piece's: the entry before it is in that row or an earlier one
		if lo > 0 {
			first = rowIdx[lo-1]
		}
		last := first // the row of the piece's last entry (no entries at all: none)
		if hi > lo {
			last = rowIdx[hi-1]
		}
		start := lo // the first entry of a row after first (those before are the piece before's)
		for start < hi && rowIdx[start] == first {
			start++
		}
		for q := first + 1; q <= last; q++ {
			rowPtr[q] = -1
		}
		for i := hi - 1; i >= start; i-- {
			rowPtr[rowIdx[i]] = int32(i)
		}
		next := int32(0)
		for q := last; q > first; q-- {
			v := rowPtr[q]
			if v < 0 {
				v = next
			}
			rowPtr[q], next = v, v
		}
		if hi == nnz { // the rows after the last entry's, empty
			for q := int(last) + 1; q <= rows; q++ {
				rowPtr[q] = int32(nnz)
			}
		}
	}
	parts := max(1, min(threads, nnz/minPiece))
	if parts == 1 {
		run(0, nnz)
		return
	}
	num.For(parts, parts, 1, 1, func(_, lo, hi int) {
		for part := lo; part < hi; part++ {
			run(nnz*part/parts, nnz*(part+1)/parts)
		}
	})
}

// CSCWork is ToCSC's scratch for one matrix and thread count: each
// thread's count, then cursor, per column. Made once, off the clock.
type CSCWork struct {
	bounds []int     // the threads' row ranges (CSR.Partition)
	cursor [][]int32 // per thread, per column
}

// NewCSCWork is the scratch of ToCSC on a with threads threads: one
// thread (and no scratch) below minPiece entries.
func NewCSCWork[T Float](a *CSR[T], threads int) *CSCWork {
	parts := a.pieces(threads)
	w := &CSCWork{bounds: a.Partition(parts)}
	if parts > 1 {
		w.cursor = make([][]int32, parts)
		for t := range w.cursor {
			w.cursor[t] = make([]int32, a.cols)
		}
	}
	return w
}

// ToCSC writes a in compressed sparse column form: val and rowIdx (NNZ
// long) column by column, rows ascending within each (a's rows are
// visited in order), and colPtr (Cols+1), with the kernels of level lvl.
// One thread: counts into colPtr shifted by one place, turns the counts
// into each column's start shifted by one, and scatters with those as
// cursors, which leave each column's end, the next one's start, behind.
// Several: each counts its rows' entries per column, a pass over the
// columns turns the counts into each thread's first slot there (threads
// in row order), and each scatters its rows.
func ToCSC[T Float](lvl isa.Level, a *CSR[T], w *CSCWork, val []T, rowIdx, colPtr []int32) {
	if len(val) != len(a.colIdx) || len(rowIdx) != len(a.colIdx) || len(colPtr) != a.cols+1 {
		panic(fmt.Sprintf("sparse: ToCSC of a %d×%d matrix of %d entries into %d values, %d rows, %d column pointers", a.rows, a.cols, len(a.colIdx), len(val), len(rowIdx), len(colPtr)))
	}
	k := implFor(lvl)
	if w.cursor == nil {
		toCSCSerial(k, a, val, rowIdx, colPtr)
		return
	}
	parts := len(w.cursor)
	num.For(parts, parts, 1, 1, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			count := w.cursor[t]
			clear(count)
			countColumns(k, a.colIdx[a.rowPtr[w.bounds[t]]:a.rowPtr[w.bounds[t+1]]], count)
		}
	})
	next := int32(0)
	for c := range a.cols {
		colPtr[c] = next
		for _, cur := range w.cursor {
			n := cur[c]
			cur[c] = next
			next += n
		}
	}
	colPtr[a.cols] = next
	num.For(parts, parts, 1, 1, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			scatterRows(k, a, w.cursor[t], val, rowIdx, w.bounds[t], w.bounds[t+1])
		}
	})
}

// toCSCSerial is ToCSC on one thread.
func toCSCSerial[T Float](k impl, a *CSR[T], val []T, rowIdx, colPtr []int32) {
	clear(colPtr)
	countColumns(k, a.colIdx, colPtr[1:]) // colPtr[c+1]: column c's count
	start := int32(0)
	for c := 1; c <= a.cols; c++ { // colPtr[c+1]: column c's start
		n := colPtr[c]
		colPtr[c] = start
		start += n
	}
	// colPtr[c+1] is column c's start: the scatter's cursor, which ends at
	// its end, column c+1's start.
	scatterRows(k, a, colPtr[1:], val, rowIdx, 0, a.rows)
}

// countColumns adds 1 to count[c] for each column index c of colIdx.
func countColumns(k impl, colIdx, count []int32) {
	if k != implGeneric && len(colIdx) > 0 {
		countAsm(colIdx, count)
		return
	}
	for _, c := range colIdx {
		count[c]++
	}
}

// scatterRows copies rows lo to hi of a to their slots, cursor[c] being
// column c's next.
func scatterRows[T Float](k impl, a *CSR[T], cursor []int32, val []T, rowIdx []int32, lo, hi int) {
	if k != implGeneric {
		if hi > lo && len(a.colIdx) > 0 {
			scatterAsm(a, cursor, val, rowIdx, lo, hi)
		}
		return
	}
	for i := lo; i < hi; i++ {
		for p := a.rowPtr[i]; p < a.rowPtr[i+1]; p++ {
			c := a.colIdx[p]
			q := cursor[c]
			cursor[c] = q + 1
			val[q], rowIdx[q] = a.val[p], int32(i)
		}
	}
}
