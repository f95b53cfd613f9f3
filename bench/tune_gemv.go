package main

import (
	"context"
	"fmt"
	"time"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// The GEMV's searches (tune.GEMV): gemv.by_row.* times y = A·x at 1
// thread, eight rows at a time (the parameter at its largest) against one
// row at a time (at 0), on A of gemvTuneCols columns (rows of 4 KiB in f32,
// 8 KiB in f64, inside the by-row path's row bounds) and as many rows as
// give each ladder size, 256 KiB to 8 MiB: from inside a core's L2 to well
// inside a last-level cache. The value stored is the bytes of A of the
// largest size below the smallest from which one row at a time is
// winMargin faster and no larger size is slower with it (0: from the
// smallest; tune.MaxPieceBytes, never: it never is).
const gemvTuneCols = 1024

var gemvTuneLadder = ladder(256<<10, 8<<20)

func gemvSearches() []tuneSearch {
	s := []tuneSearch{
		gemvByRowSearch[float32]("gemv.by_row.f32"),
		gemvByRowSearch[float64]("gemv.by_row.f64"),
	}
	if isa.Best >= isa.AVX512 { // below, both ways run the AVX2 kernels
		s = append(s, gemvZMMSearch())
	}
	return append(s,
		tuneSearch{"gemv.parallel.f32", gemvSplitOps[float32](), gemvSplitLadder, kindThreads},
		tuneSearch{"gemv.parallel.f64", gemvSplitOps[float64](), gemvSplitLadder, kindThreads})
}

// gemv.parallel.* is a thread crossover as parallel.*'s, in bytes of A:
// y = A·x and y = Aᵀ·x at 1 thread and at N, on A of gemvSplitCols columns
// (rows of 1 KiB in f32, 2 KiB in f64) and as many rows as give each size,
// 32 KiB (16 rows of f64, two pieces of eight) to 4 MiB.
const gemvSplitCols = 256

var gemvSplitLadder = ladder(32<<10, 4<<20)

// gemvSplitOps are A·x and Aᵀ·x on the first bytes of A of buffers made at
// their first run, for the ladder's top.
func gemvSplitOps[T gemm.Float]() []tuneOp {
	var a, x, y []T
	size := int(elemSize[T]())
	op := func(name string, trans bool) tuneOp {
		return tuneOp{name, func(bytes, th int) {
			if a == nil {
				top := gemvSplitLadder[len(gemvSplitLadder)-1]
				rows := top / (gemvSplitCols * size)
				a, x, y = vectors[T](top, 1)[0], vectors[T](rows*size, 1)[0], make([]T, rows)
			}
			m := bytes / (gemvSplitCols * size)
			gemm.Gemv(isa.Best, trans, m, gemvSplitCols, 1, a, gemvSplitCols, x, 1, 0, y, 1, th)
		}}
	}
	return []tuneOp{op("gemv", false), op("gemv-t", true)}
}

// gemvZMMSearch is gemv.zmm's: zmm.memory's (AVX2 over AVX-512, at 1 thread
// and at N) on A·x of gemvTuneCols columns, f32 and f64, over the wide
// ladder in bytes of A (2 MiB, inside a last-level cache, to 128 MiB, from
// DRAM). Its buffers are made at the first run.
func gemvZMMSearch() tuneSearch {
	ops := []tuneOp{gemvWideOp[float32](), gemvWideOp[float64]()}
	return tuneSearch{"gemv.zmm", ops, ladder(wideBottom, wideTop), kindZMM}
}

// gemvWideOp is A·x on the first bytes of A of a buffer of wideTop bytes,
// made at its first run.
func gemvWideOp[T gemm.Float]() tuneOp {
	var a, x, y []T
	size := int(elemSize[T]())
	return tuneOp{fmt.Sprintf("gemv.f%d", 8*size), func(bytes, th int) {
		if a == nil {
			a = vectors[T](wideTop, 1)[0]
			x, y = vectors[T](gemvTuneCols*size, 1)[0], make([]T, wideTop/(gemvTuneCols*size))
		}
		m := bytes / (gemvTuneCols * size)
		gemm.Gemv(isa.Best, false, m, gemvTuneCols, 1, a, gemvTuneCols, x, 1, 0, y, 1, th)
	}}
}

// gemvTuneOp is A·x on the first bytes of A of its buffer (made at the
// first run, for the ladder's top).
func gemvTuneOp[T gemm.Float]() tuneOp {
	var a, x, y []T
	return tuneOp{"gemv", func(bytes, th int) {
		if a == nil {
			top := gemvTuneLadder[len(gemvTuneLadder)-1]
			v := vectors[T](top, 1)
			a = v[0]
			x, y = vectors[T](gemvTuneCols*int(elemSize[T]()), 2)[0], make([]T, top/(gemvTuneCols*int(elemSize[T]())))
		}
		m := bytes / (gemvTuneCols * int(elemSize[T]()))
		gemm.Gemv(isa.Best, false, m, gemvTuneCols, 1, a, gemvTuneCols, x, 1, 0, y, 1, th)
	}}
}

func gemvByRowSearch[T gemm.Float](field string) tuneSearch {
	op := gemvTuneOp[T]()
	var c customSearch
	c.search = func(ctx context.Context, base tune.Params, _ int, maxTime time.Duration) ([]tune.Step, int, error) {
		rows8, byRow := base, base
		setField(&rows8, field, tune.MaxPieceBytes)
		setField(&byRow, field, 0)
		steps, err := timePairs(ctx, op, gemvTuneLadder, func(int) [2]tuneTarget {
			return [2]tuneTarget{{op: op, threads: 1, params: rows8}, {op: op, threads: 1, params: byRow}}
		}, maxTime)
		if steps == nil {
			return nil, 0, err
		}
		return steps, crossoverLast(steps), nil // the bytes of A from which one row a time wins
	}
	c.describe = func(steps []tune.Step, v, _ int) string {
		to := "one row at a time above " + units.Bytes(v) + " of A"
		if v >= tune.MaxPieceBytes {
			to = "eight rows at a time at every size"
		}
		return fmt.Sprintf("one row over eight at a time (1 thread): %s→ %s", ladderText(steps, units.Bytes), to)
	}
	customSearches[field] = c
	return tuneSearch{field: field, ops: []tuneOp{op}, ladder: gemvTuneLadder}
}
