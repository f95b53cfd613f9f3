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
		s.Add(workload.DTypes, workload.SparseOps...)
	}
}

// prepareSparse prepares spmv (mkl_sparse_?_mv) or spmm (mkl_sparse_?_mm)
// on the workload's matrix: its pattern from workload.SparseMatrix, its
// values and x from in.
func (b *Backend) prepareSparse(w workload.Workload, in workload.Data, dt cblas.DType, opt cblas.JobOptions, alg string) (backend.Kernel, error) {
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
