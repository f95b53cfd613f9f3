package cblas

import (
	"fmt"
	"slices"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cblas"
)

// The algorithms of MKL's sparse BLAS: the handle as created, or analysed
// first by mkl_sparse_optimize after the mv (mm) hint, off the clock.
const (
	SparsePlain     = "plain"
	SparseOptimized = "optimized"
)

var sparseAlgorithms = []string{SparsePlain, SparseOptimized}

// declareSparse adds spmv and spmm in f32 and f64 where the library has
// MKL's inspector-executor sparse BLAS.
func (b *Backend) declareSparse(s backend.Support) {
	if b.lib.HasSparse() {
		s.Add(workload.DTypes, workload.SpMV, workload.SpMM)
	}
	if b.lib.HasSparseConversions() {
		s.Add(workload.DTypes, workload.SparseConversions...)
	}
}

// prepareSparse prepares spmv (mkl_sparse_?_mv) or spmm (mkl_sparse_?_mm)
// on the workload's matrix: its pattern from workload.SparseMatrix, its
// values and x from in.
func (b *Backend) prepareSparse(w workload.Workload, in workload.Data, dt cblas.DType, opt cblas.JobOptions, alg string) (backend.Kernel, error) {
	if w.Op.SparseConversion() {
		if alg != "" {
			return nil, fmt.Errorf("%s: %s: unknown algorithm %q (one way only)", b.name, w.Op, alg)
		}
		return b.prepareConversion(w, in, dt, opt)
	}
	if alg == "" {
		alg = SparseOptimized
	}
	if !slices.Contains(sparseAlgorithms, alg) {
		return nil, fmt.Errorf("%s: %s: unknown algorithm %q (accepted: %s, %s)", b.name, w.Op, alg, SparsePlain, SparseOptimized)
	}
	m := w.SparseMatrix()
	k := 0
	if w.Op == workload.SpMM {
		k = w.Shape.Sparse.K
	}
	job, err := b.lib.PrepareSparse(dt, m.Rows, m.Cols, k, m.RowPtr, m.ColIdx, alg == SparseOptimized, opt)
	if err != nil {
		return nil, b.wrap(w, err)
	}
	for i := range 2 {
		if err := job.SetInput(i, in.Args[i]); err != nil {
			job.Close()
			return nil, b.wrap(w, err)
		}
	}
	return sparseKernel{kernel{job}, alg}, nil
}

// sparseKernel names its algorithm (backend.KernelAlgorithm).
type sparseKernel struct {
	kernel
	alg string
}

func (k sparseKernel) Algorithm() string { return k.alg }

// conversions maps the workload's conversions to the C layer's.
var conversions = map[workload.Op]cblas.SparseConversion{
	workload.CSR2COO: cblas.CSR2COO, workload.COO2CSR: cblas.COO2CSR, workload.CSR2CSC: cblas.CSR2CSC,
}

// prepareConversion prepares csr2coo, coo2csr or csr2csc with MKL's
// converters (mkl_?csrcoo, mkl_?csrcsc): the input's arrays from
// workload.SparseMatrix (COO's rows expanded here, off the clock), the
// values from in.
func (b *Backend) prepareConversion(w workload.Workload, in workload.Data, dt cblas.DType, opt cblas.JobOptions) (backend.Kernel, error) {
	m := w.SparseMatrix()
	job, err := b.lib.PrepareSparseConversion(conversions[w.Op], dt, m.Rows, m.Cols, m.NNZ(), opt)
	if err != nil {
		return nil, b.wrap(w, err)
	}
	ptr := m.RowPtr
	if w.Op == workload.COO2CSR {
		ptr = make([]int32, 0, m.NNZ())
		for i := range m.Rows {
			for range m.RowPtr[i+1] - m.RowPtr[i] {
				ptr = append(ptr, int32(i))
			}
		}
	}
	for arg, v := range map[int][]float64{cblas.ConvertInPtr: floats(ptr), cblas.ConvertInIdx: floats(m.ColIdx), cblas.ConvertInVal: in.Args[0]} {
		if err := job.SetInput(arg, v); err != nil {
			job.Close()
			return nil, b.wrap(w, err)
		}
	}
	return conversionKernel{kernel{job}, w.Op}, nil
}

// floats is v in float64, as job inputs are set (int32 is exact in it).
func floats(v []int32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// conversionKernel's Output is the workload's layout: csr2csc's values,
// rows and column pointers, three arguments of the job.
type conversionKernel struct {
	kernel
	op workload.Op
}

func (k conversionKernel) Output() ([]float64, error) {
	return backend.ConversionOutput(k.job, k.op, cblas.ConvertOutVal, cblas.ConvertOutIdx, cblas.ConvertOutPtr)
}
