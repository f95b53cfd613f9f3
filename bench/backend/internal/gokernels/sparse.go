package gokernels

import (
	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/sparse"
)

// sparseSlots is the buffers of one set of a sparse workload's operands:
// the values, x, y, then the row pointers and column indices, each set's
// own (with a cold cache every set's matrix is cold).
const sparseSlots = 5

// prepareSparse makes the kernel of spmv or spmm: sparse.MulVec at lvl
// (the asm backend's gathers), or sparse.MulMat (pure Go at every level).
func prepareSparse[T backend.Float](lvl isa.Level, w workload.Workload, in workload.Data, cfg backend.Config) backend.Kernel {
	m := w.SparseMatrix()
	th := max(cfg.Threads, 1)
	k := w.Shape.Sparse.K
	mem := new(hostmem.Arena)
	type set struct {
		a    *sparse.CSR[T]
		x, y []T
	}
	sets := make([]set, max(cfg.Copies, 1))
	for c := range sets {
		slot := c * sparseSlots
		val := backend.Place[T](mem, in.Args[0], slot)
		x := backend.Place[T](mem, in.Args[1], slot+1)
		y := backend.PlaceZero[T](mem, w.OutputLen(), slot+2)
		rowPtr := hostmem.Slice[int32](mem, len(m.RowPtr), (slot+3)*576)
		colIdx := hostmem.Slice[int32](mem, len(m.ColIdx), (slot+4)*576)
		copy(rowPtr, m.RowPtr)
		copy(colIdx, m.ColIdx)
		a, err := sparse.NewCSR(m.Rows, m.Cols, rowPtr, colIdx, val)
		if err != nil {
			panic("gokernels: " + err.Error()) // workload.SparseMatrix is checked CSR
		}
		sets[c] = set{a, x, y}
	}
	step := func(c, n int) {
		s := &sets[c]
		for range n {
			if w.Op == workload.SpMM {
				sparse.MulMat(s.a, s.x, k, s.y, th)
			} else {
				sparse.MulVec(lvl, s.a, s.x, s.y, th)
			}
		}
	}
	return backend.NewHostBatchKernel(mem, len(sets), step, func(c int) []float64 { return backend.Widen(sets[c].y) })
}
