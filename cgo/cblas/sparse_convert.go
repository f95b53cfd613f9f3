package cblas

import (
	"fmt"
	"math"

	"github.com/peakbench/peakbench/native"
)

// SparseConversion names a format conversion of PrepareSparseConversion
// (the C layer's, shared with cuSPARSE's: native.SparseConversion).
type SparseConversion = native.SparseConversion

// The conversions.
const (
	CSR2COO = native.CSR2COO // CSR's row pointers → COO's rows
	COO2CSR = native.COO2CSR // row-sorted COO's rows → CSR's row pointers
	CSR2CSC = native.CSR2CSC // CSR → CSC, values and indices
)

// The arguments of a conversion job (native.ConvertInPtr …): the input's
// pointers (COO's rows for COO2CSR), column indices and values; the
// output's values, indices and pointers.
const (
	ConvertInPtr  = native.ConvertInPtr
	ConvertInIdx  = native.ConvertInIdx
	ConvertInVal  = native.ConvertInVal
	ConvertOutVal = native.ConvertOutVal
	ConvertOutIdx = native.ConvertOutIdx
	ConvertOutPtr = native.ConvertOutPtr
)

// HasSparseConversions reports whether the library has MKL's sparse
// format converters (mkl_?csrcoo, mkl_?csrcsc; MKL only).
func (l *Library) HasSparseConversions() bool {
	l.check()
	return l.hasSparseConversions()
}

// PrepareSparseConversion prepares a format conversion of a rows×cols
// matrix of nnz entries with MKL's converters; the caller sets the input
// arguments (ConvertInPtr, ConvertInIdx, ConvertInVal). The job's Output
// is COO's rows (CSR2COO), CSR's row pointers (COO2CSR) or CSC's values
// (CSR2CSC: its rows and column pointers through ArgOutput). CSR2CSC of a
// matrix that is not square, which mkl_?csrcsc does not take, and
// libraries other than MKL give an error wrapping ErrUnsupported.
func (l *Library) PrepareSparseConversion(op SparseConversion, dt DType, rows, cols, nnz int, opt JobOptions) (*Job, error) {
	l.check()
	if err := l.checkJob("sparse conversion", dt, opt, rows, cols); err != nil {
		return nil, err
	}
	if op < CSR2COO || op > CSR2CSC || nnz < 1 || nnz > math.MaxInt32 {
		return nil, fmt.Errorf("cblas: %s: sparse conversion %d of %d entries", l.name, op, nnz)
	}
	return l.job(func() (jobPtr, error) { return l.jobSparseConversion(op, dt, rows, cols, nnz, opt) })
}
