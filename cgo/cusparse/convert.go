package cusparse

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

// Conversion names a sparse format conversion of PrepareConversion (the
// C layer's, shared with MKL's: native.SparseConversion).
type Conversion = native.SparseConversion

// The conversions.
const (
	CSR2COO = native.CSR2COO // CSR's row pointers → COO's row per entry (cusparseXcsr2coo)
	COO2CSR = native.COO2CSR // row-sorted COO's rows → CSR's row pointers (cusparseXcoo2csr)
	CSR2CSC = native.CSR2CSC // CSR → CSC, values and indices (cusparseCsr2cscEx2)
)

// The arguments of a conversion job, each copy's own (native.ConvertInPtr
// …, MKL's layout too); an argument the conversion does not use holds
// nothing.
const (
	ConvertInPtr  = native.ConvertInPtr
	ConvertInIdx  = native.ConvertInIdx
	ConvertInVal  = native.ConvertInVal
	ConvertOutVal = native.ConvertOutVal
	ConvertOutIdx = native.ConvertOutIdx
	ConvertOutPtr = native.ConvertOutPtr
)

// HasConversion reports whether the loaded cuSPARSE has op's calls (the
// legacy conversions are optional at load, so a library that dropped one
// still runs the products).
func (l *Library) HasConversion(op Conversion) bool {
	return op >= CSR2COO && op <= CSR2CSC && l.conversions[op]
}

// PrepareConversion prepares op on a rows×cols matrix given in CSR (rowPtr:
// rows+1 offsets from 0; colIdx: the columns), zero-based int32 indices,
// values in dt (F32 or F64). The job's input is the form op converts from,
// made here from the CSR and copied to the device for every buffer copy:
// the row pointers (CSR2COO), the row of each entry (COO2CSR), or the row
// pointers and column indices (CSR2CSC, whose values the caller sets as
// ConvertInVal). Its Output is COO's rows (CSR2COO), CSR's row pointers
// (COO2CSR) or CSC's values (CSR2CSC: its rows and column pointers through
// ArgOutput of ConvertOutIdx and ConvertOutPtr). A conversion the library
// lacks is an error wrapping gpurt.ErrUnsupported.
func (l *Library) PrepareConversion(op Conversion, dt gpurt.DType, rows, cols int, rowPtr, colIdx []int32, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if op < CSR2COO || op > CSR2CSC {
		return nil, fmt.Errorf("cusparse: no conversion %d", int(op))
	}
	if opt.Copies < 0 || opt.Copies > maxCopies {
		return nil, fmt.Errorf("cusparse: copies %d outside [1, %d]", opt.Copies, maxCopies)
	}
	if rows < 1 || cols < 1 || rows > math.MaxInt32 || cols > math.MaxInt32 {
		return nil, fmt.Errorf("cusparse: %d×%d: dimensions must lie in [1, %d]", rows, cols, math.MaxInt32)
	}
	if len(rowPtr) != rows+1 || len(colIdx) == 0 || len(colIdx) > math.MaxInt32 || rowPtr[0] != 0 || int(rowPtr[rows]) != len(colIdx) {
		return nil, fmt.Errorf("cusparse: %d row pointers and %d column indices for %d rows", len(rowPtr), len(colIdx), rows)
	}
	for i := range rows {
		if rowPtr[i+1] < rowPtr[i] {
			return nil, fmt.Errorf("cusparse: row pointer %d (%d) below the one before (%d)", i+1, rowPtr[i+1], rowPtr[i])
		}
	}
	ptr, idx := rowPtr, []int32(nil)
	switch op {
	case COO2CSR:
		ptr = cooRows(rowPtr)
	case CSR2CSC:
		for _, c := range colIdx {
			if c < 0 || int(c) >= cols {
				return nil, fmt.Errorf("cusparse: column index %d outside [0, %d)", c, cols)
			}
		}
		idx = colIdx
	}
	return l.MakeJob(func() (unsafe.Pointer, error) {
		return l.convertJob(op, dt, rows, cols, len(colIdx), ptr, idx, opt)
	})
}

// cooRows is the row of each entry of a CSR matrix: row-sorted COO's rows.
func cooRows(rowPtr []int32) []int32 {
	rows := make([]int32, 0, rowPtr[len(rowPtr)-1])
	for i := range len(rowPtr) - 1 {
		for range rowPtr[i+1] - rowPtr[i] {
			rows = append(rows, int32(i))
		}
	}
	return rows
}
