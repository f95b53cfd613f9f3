package cblas

import (
	"fmt"
	"math"
)

// HasSparse reports whether the library has MKL's inspector-executor
// sparse BLAS (MKL only).
func (l *Library) HasSparse() bool {
	l.check()
	return l.hasSparse()
}

// PrepareSparse prepares y = A·x (k = 0) or Y = A·X (X cols×k, row-major)
// with MKL's sparse BLAS, A rows×cols in CSR (rowPtr: rows+1 offsets from
// 0; colIdx: the columns, copied for every buffer copy). Arguments: 0 the
// values (one per column index), 1 x or X, 2 y or Y (the output).
// optimized gives MKL the hint and mkl_sparse_optimize before the first
// run. Libraries other than MKL give an error wrapping ErrUnsupported.
func (l *Library) PrepareSparse(dt DType, rows, cols, k int, rowPtr, colIdx []int32, optimized bool, opt JobOptions) (*Job, error) {
	l.check()
	if err := l.checkJob("sparse", dt, opt, rows, cols, max(k, 1)); err != nil {
		return nil, err
	}
	if len(rowPtr) != rows+1 || len(colIdx) == 0 || int(rowPtr[rows]) != len(colIdx) || len(colIdx) > math.MaxInt32 {
		return nil, fmt.Errorf("cblas: %s: sparse: %d row pointers and %d column indices for %d rows", l.name, len(rowPtr), len(colIdx), rows)
	}
	return l.job(func() (jobPtr, error) { return l.jobSparse(dt, rows, cols, k, rowPtr, colIdx, optimized, opt) })
}
