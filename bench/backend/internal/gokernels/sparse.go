package gokernels

import (
	"fmt"
	"slices"

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

// The SpMV algorithms of the go and asm backends, each a result: the CSR
// kernel, and sliced ELLPACK (sparse.SELL), converted from the CSR in
// Prepare, off the clock, as MKL's mkl_sparse_optimize is.
const (
	CSR  = "csr"
	SELL = "sell"
)

// SpMVAlgorithms lists them.
var SpMVAlgorithms = []string{CSR, SELL}

// PrepareSparse makes the kernel of spmv or spmm at lvl, or of a format
// conversion (sparse_convert.go), in f32 or f64.
func PrepareSparse(lvl isa.Level, w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if w.Op.SparseConversion() {
		if w.DType == workload.F32 {
			return prepareConversion[float32](lvl, w, in, cfg)
		}
		return prepareConversion[float64](lvl, w, in, cfg)
	}
	if w.DType == workload.F32 {
		return prepareSparse[float32](lvl, w, in, cfg)
	}
	return prepareSparse[float64](lvl, w, in, cfg)
}

// prepareSparse makes the kernel of spmv or spmm: sparse.MulVec or
// MulVecSELL or sparse.MulMat at lvl (the asm backend's assembly, the go
// backend's pure Go).
func prepareSparse[T backend.Float](lvl isa.Level, w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	alg := cfg.Algorithm
	if w.Op == workload.SpMV {
		if alg == "" {
			alg = CSR
		}
		if !slices.Contains(SpMVAlgorithms, alg) {
			return nil, fmt.Errorf("%s: unknown algorithm %q (accepted: %s, %s)", w.Op, alg, CSR, SELL)
		}
	} else if alg != "" {
		return nil, fmt.Errorf("%s: unknown algorithm %q (one way only)", w.Op, alg)
	}
	m := w.SparseMatrix()
	th := max(cfg.Threads, 1)
	k := w.Shape.Sparse.K
	mem := new(hostmem.Arena)
	type set struct {
		a    *sparse.CSR[T]
		sell *sparse.SELL[T]
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
		sets[c] = set{a: a, x: x, y: y}
		if alg == SELL {
			if sets[c].sell, err = sparse.NewSELL(a); err != nil {
				return nil, backend.UnsupportedShape(fmt.Errorf("%s: %v: %w", w.Op, err, backend.ErrUnsupported))
			}
		}
	}
	step := func(c, n int) {
		s := &sets[c]
		for range n {
			switch {
			case w.Op == workload.SpMM:
				sparse.MulMat(lvl, s.a, s.x, k, s.y, th)
			case s.sell != nil:
				sparse.MulVecSELL(lvl, s.sell, s.x, s.y, th)
			default:
				sparse.MulVec(lvl, s.a, s.x, s.y, th)
			}
		}
	}
	k0 := backend.NewHostBatchKernel(mem, len(sets), step, func(c int) []float64 { return backend.Widen(sets[c].y) })
	if alg == "" {
		return k0, nil
	}
	return layerKernel{k0, alg}, nil
}
