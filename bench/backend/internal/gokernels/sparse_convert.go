package gokernels

import (
	"fmt"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/sparse"
)

// convertSlots is the buffers of one set of a conversion's operands: the
// CSR (values, column indices, row pointers), then the output (CSC's
// values, row indices, column pointers; COO's row indices; CSR's row
// pointers), each set's own.
const convertSlots = 6

// prepareConversion makes the kernel of csr2coo, coo2csr or csr2csc at
// lvl: sparse.ToCOO, FromCOO or ToCSC (gobackend/sparse/convert.go).
// ToCSC's scratch is made here, off the clock, one per set.
func prepareConversion[T backend.Float](lvl isa.Level, w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if cfg.Algorithm != "" {
		return nil, fmt.Errorf("%s: unknown algorithm %q (one way only)", w.Op, cfg.Algorithm)
	}
	m := w.SparseMatrix()
	th := max(cfg.Threads, 1)
	mem := new(hostmem.Arena)
	type set struct {
		a            *sparse.CSR[T]
		work         *sparse.CSCWork
		val          []T
		rowIdx, ptrs []int32 // the output's row indices, pointers (COO's input rows for coo2csr)
	}
	ints := func(n, slot int) []int32 { return hostmem.Slice[int32](mem, n, backend.SlotOffset(slot)) }
	sets := make([]set, max(cfg.Copies, 1))
	for c := range sets {
		slot := c * convertSlots
		val := backend.Place[T](mem, in.Args[0], slot)
		colIdx, rowPtr := ints(len(m.ColIdx), slot+1), ints(len(m.RowPtr), slot+2)
		copy(colIdx, m.ColIdx)
		copy(rowPtr, m.RowPtr)
		a, err := sparse.NewCSR(m.Rows, m.Cols, rowPtr, colIdx, val)
		if err != nil {
			panic("gokernels: " + err.Error()) // workload.SparseMatrix is checked CSR
		}
		s := set{a: a, rowIdx: ints(len(m.ColIdx), slot+4)}
		switch w.Op {
		case workload.COO2CSR:
			sparse.ToCOO(isa.Generic, a, s.rowIdx, 1) // the input
			s.ptrs = ints(m.Rows+1, slot+5)
		case workload.CSR2CSC:
			s.val = backend.PlaceZero[T](mem, len(m.Val), slot+3)
			s.ptrs = ints(m.Cols+1, slot+5)
			s.work = sparse.NewCSCWork(a, th)
		}
		sets[c] = s
	}
	step := func(c, n int) {
		s := &sets[c]
		for range n {
			switch w.Op {
			case workload.CSR2COO:
				sparse.ToCOO(lvl, s.a, s.rowIdx, th)
			case workload.COO2CSR:
				sparse.FromCOO(m.Rows, s.rowIdx, s.ptrs, th)
			default:
				sparse.ToCSC(lvl, s.a, s.work, s.val, s.rowIdx, s.ptrs)
			}
		}
	}
	output := func(c int) []float64 {
		s := &sets[c]
		switch w.Op {
		case workload.CSR2COO:
			return widenInts(s.rowIdx)
		case workload.COO2CSR:
			return widenInts(s.ptrs)
		}
		return append(append(backend.Widen(s.val), widenInts(s.rowIdx)...), widenInts(s.ptrs)...)
	}
	return backend.NewHostBatchKernel(mem, len(sets), step, output), nil
}

// widenInts is v in float64, where every int32 is exact.
func widenInts(v []int32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
