package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// The GEMM's searches (tune.GEMM), on square products n×n×n, row-major,
// no transposes, as the benchmark's gemm runs them:
//   - gemm.direct.*: at 1 thread, packed (the parameter at 0) against
//     unpacked (at its largest) over gemmDirectSizes; the value stored is
//     the bytes of A and B of the largest size below the smallest from which
//     packing is winMargin faster and no larger size is slower with it (0:
//     packing wins from the smallest; the top's bytes: it never does);
//   - gemm.parallel.*: 1 thread against N over gemmParallelSizes, with the
//     direct crossover just found in force; a ladder step's Bytes is its
//     multiply-adds (n³), and the value stored half of the smallest from
//     which N threads are winMargin faster and no larger size is slower (a
//     product of fewer than twice the value runs on one thread), or the
//     ladder's top when N threads never win;
//   - gemm.shape.* (at AVX512 only, where there is a second shape): the
//     loop nest with the tall micro-kernel against the wide one
//     (tune.ShapeTall, tune.ShapeWide), every product packed, at 1 thread
//     and at N over gemmShapeSizes; a step's Bytes is n, its speedup the
//     geometric mean over the two thread counts. The wide shape is chosen
//     when its geometric mean over the sizes is winMargin faster and it
//     is slower at none;
//   - gemm.kc.*: the loop nest at the micro-kernel's own depth (the
//     parameter at 0) against each depth of gemmDepths it does not have
//     (the shape just chosen in force, every product packed), at 1 thread
//     and at N over gemmDepthSizes; a step's Bytes is the depth, its
//     speedup the geometric mean over the sizes and thread counts. The
//     fastest depth is chosen where it is winMargin faster and slower at
//     no size and thread count; else 0, the kernel's own;
//   - gemm.cols_outer.*: products of a 1×1 convolution's form, m×n×k with
//     n = gemmColsOuterN positions and k = gemmColsOuterK channels, m
//     filters giving A of 32 KiB, 64 KiB, … up to half of L2 (the most the
//     sweep takes), read unpacked columns outer (the parameter at its
//     largest) against packed (0), gemm.direct at 1 byte in both (every
//     product above it, and not 0, which packs all), at 1 thread and at N;
//     a step's Bytes is A's, its speedup packed over unpacked, the
//     geometric mean over the thread counts. The value stored is A's bytes
//     of the largest size below the smallest from which packing is
//     winMargin faster and no larger size is slower with it (0: packing
//     wins from the smallest; tune.MaxPieceBytes: it never does).
var (
	gemmDirectSizes   = []int{32, 48, 64, 96, 128, 192, 256, 384, 512}
	gemmParallelSizes = []int{64, 96, 128, 192, 256, 384, 512, 768}
	gemmShapeSizes    = []int{512, 1024}
	gemmDepthSizes    = []int{512, 768}
	gemmDepths        = []int{256, 384, 512}
	gemmColsOuterN    = 3136 // 56×56 positions, ResNet-50's first 1×1 convolutions
	gemmColsOuterK    = 256
)

// customSearch is a search with a timing of its own, where searchOne's
// two kinds (thread and store crossovers of vector kernels) do not fit: it
// replaces searchOne's timing and describeSteps' line for its parameter.
type customSearch struct {
	search   func(ctx context.Context, base tune.Params, threads int, maxTime time.Duration) ([]tune.Step, int, error)
	describe func(steps []tune.Step, v, threads int) string
	// others are parameters the search sets besides its own, from the
	// same steps; also gives their values, in order.
	others []string
	also   func(steps []tune.Step) []int
}

// customSearches are the custom searches by parameter, set by
// gemmSearches with the searches it returns (over the same buffers).
var customSearches = map[string]customSearch{}

func gemmSearches() []tuneSearch {
	s := []tuneSearch{
		gemmDirectSearch[float32]("gemm.direct.f32"),
		gemmDirectSearch[float64]("gemm.direct.f64"),
		gemmParallelSearch[float32]("gemm.parallel.f32"),
		gemmParallelSearch[float64]("gemm.parallel.f64"),
	}
	if isa.Best >= isa.AVX512 { // below, one shape: nothing to choose
		s = append(s, gemmShapeSearch[float32]("gemm.shape.f32"), gemmShapeSearch[float64]("gemm.shape.f64"))
	}
	s = append(s, gemmDepthSearch[float32]("gemm.kc.f32"), gemmDepthSearch[float64]("gemm.kc.f64"))
	if isa.Best > isa.Generic && len(colsOuterLadder()) > 0 { // generic: no unpacked kernel
		s = append(s, gemmColsOuterSearch[float32]("gemm.cols_outer.f32"), gemmColsOuterSearch[float64]("gemm.cols_outer.f64"))
	}
	return s
}

// gemmTuneOp is a square GEMM whose size the run's first argument gives,
// through size (bytes or multiply-adds to n), on buffers for the largest n
// made at the first run.
func gemmTuneOp[T gemm.Float](top int, size func(int) int) tuneOp {
	var a, b, c []T
	return tuneOp{"gemm", func(v, th int) {
		if a == nil {
			v := vectors[T](top*top*int(elemSize[T]()), 3)
			a, b, c = v[0], v[1], v[2]
		}
		n := size(v)
		gemm.Gemm(isa.Best, false, false, n, n, n, 1, a, n, b, n, 0, c, n, th)
	}}
}

func gemmDirectSearch[T gemm.Float](field string) tuneSearch {
	size := int(elemSize[T]())
	var ladder []int
	for _, n := range gemmDirectSizes {
		ladder = append(ladder, 2*n*n*size)
	}
	op := gemmTuneOp[T](gemmDirectSizes[len(gemmDirectSizes)-1], func(bytes int) int {
		return int(math.Round(math.Sqrt(float64(bytes / (2 * size)))))
	})
	var c customSearch
	c.search = limitSearch(field, op, ladder, tune.MaxPieceBytes)
	c.describe = func(steps []tune.Step, v, _ int) string {
		return fmt.Sprintf("packed over unpacked (1 thread): %s→ unpacked up to %s of A and B", ladderText(steps, units.Bytes), units.Bytes(v))
	}
	customSearches[field] = c
	return tuneSearch{field: field, ops: []tuneOp{op}, ladder: ladder}
}

func gemmParallelSearch[T gemm.Float](field string) tuneSearch {
	var ladder []int
	for _, n := range gemmParallelSizes {
		ladder = append(ladder, n*n*n)
	}
	op := gemmTuneOp[T](gemmParallelSizes[len(gemmParallelSizes)-1], func(work int) int {
		return int(math.Round(math.Cbrt(float64(work))))
	})
	var c customSearch
	c.search = func(ctx context.Context, base tune.Params, threads int, maxTime time.Duration) ([]tune.Step, int, error) {
		steps, err := timePairs(ctx, op, ladder, func(work int) [2]tuneTarget {
			p := base
			setField(&p, field, work/threads) // every thread gets a share
			return [2]tuneTarget{{op: op, threads: 1, params: p}, {op: op, threads: threads, params: p}}
		}, maxTime)
		if steps == nil {
			return nil, 0, err
		}
		return steps, crossoverPiece(steps), nil
	}
	c.describe = func(steps []tune.Step, v, threads int) string {
		return fmt.Sprintf("%d threads over 1: %s→ split from %s multiply-adds", threads, ladderText(steps, madds), madds(2*v))
	}
	customSearches[field] = c
	return tuneSearch{field: field, ops: []tuneOp{op}, ladder: ladder}
}

// cubeOp is gemmTuneOp on n×n×n for each n of sizes (the run's first
// argument).
func cubeOp[T gemm.Float](sizes []int) tuneOp {
	return gemmTuneOp[T](slices.Max(sizes), func(n int) int { return n })
}

// setDirect sets p's gemm.direct for the dtype of field (gemm.NAME.f32 or
// .f64) to v.
func setDirect(p *tune.Params, field string, v int) {
	setField(p, "gemm.direct"+field[strings.LastIndex(field, "."):], v)
}

// packAll sets p's gemm.direct for the dtype of field to 0: every product
// through the packed loop nest.
func packAll(p *tune.Params, field string) { setDirect(p, field, 0) }

func gemmShapeSearch[T gemm.Float](field string) tuneSearch {
	op := cubeOp[T](gemmShapeSizes)
	var c customSearch
	c.search = func(ctx context.Context, base tune.Params, threads int, maxTime time.Duration) ([]tune.Step, int, error) {
		packAll(&base, field)
		tall, wide := base, base
		setField(&tall, field, tune.ShapeTall)
		setField(&wide, field, tune.ShapeWide)
		steps, err := timeLadder(ctx, gemmShapeSizes, threadPairs(op, gemmShapeSizes, threads, tall, wide), maxTime)
		if steps == nil {
			return nil, 0, err
		}
		return steps, shapeChoice(steps), nil
	}
	c.describe = func(steps []tune.Step, v, threads int) string {
		cube := func(n int) string { return fmt.Sprintf("%d³", n) }
		return fmt.Sprintf("%s over %s (packed, 1 and %d threads): %s→ %s", tune.ShapeName(tune.ShapeWide), tune.ShapeName(tune.ShapeTall), threads, ladderText(steps, cube), tune.ShapeName(v))
	}
	customSearches[field] = c
	return tuneSearch{field: field, ops: []tuneOp{op}, ladder: gemmShapeSizes}
}

// threadPairs are op under one against op under two at each ladder value,
// at 1 thread and at threads (the pairs named "OP@THREADS"), for timeLadder.
func threadPairs(op tuneOp, ladder []int, threads int, one, two tune.Params) [][]timedPair {
	pairs := make([][]timedPair, len(ladder))
	for i, v := range ladder {
		for _, th := range []int{1, threads} {
			pairs[i] = append(pairs[i], timedPair{fmt.Sprintf("%s@%d", op.name, th),
				tuneTarget{op: op, bytes: v, threads: th, params: one},
				tuneTarget{op: op, bytes: v, threads: th, params: two}})
		}
	}
	return pairs
}

// shapeChoice is gemm.shape from the steps of the wide shape over the
// tall: the wide where its geometric mean over the sizes is winMargin
// faster and no size is slower with it, else the tall.
func shapeChoice(steps []tune.Step) int {
	logSum := 0.0
	for _, st := range steps {
		if st.Speedup < 1 {
			return tune.ShapeTall
		}
		logSum += math.Log(st.Speedup)
	}
	if math.Exp(logSum/float64(len(steps))) >= winMargin {
		return tune.ShapeWide
	}
	return tune.ShapeTall
}

func gemmDepthSearch[T gemm.Float](field string) tuneSearch {
	op := cubeOp[T](gemmDepthSizes)
	var c customSearch
	c.search = func(ctx context.Context, base tune.Params, threads int, maxTime time.Duration) ([]tune.Step, int, error) {
		packAll(&base, field)
		setField(&base, field, 0)
		tune.Apply(base, "-tune search")
		own := gemm.PackedDepth[T](isa.Best)
		var depths []int
		var pairs [][]timedPair
		for _, d := range gemmDepths {
			if d == own {
				continue
			}
			other := base
			setField(&other, field, d)
			var ps []timedPair
			for _, n := range gemmDepthSizes {
				for _, th := range []int{1, threads} {
					ps = append(ps, timedPair{fmt.Sprintf("%s%d@%d", op.name, n, th),
						tuneTarget{op: op, bytes: n, threads: th, params: base},
						tuneTarget{op: op, bytes: n, threads: th, params: other}})
				}
			}
			depths, pairs = append(depths, d), append(pairs, ps)
		}
		steps, err := timeLadder(ctx, depths, pairs, maxTime)
		if steps == nil {
			return nil, 0, err
		}
		return steps, depthChoice(steps), nil
	}
	c.describe = func(steps []tune.Step, v, threads int) string {
		to := "the kernel's own"
		if v > 0 {
			to = fmt.Sprintf("kc = %d", v)
		}
		var sizes []string
		for _, n := range gemmDepthSizes {
			sizes = append(sizes, fmt.Sprintf("%d³", n))
		}
		return fmt.Sprintf("each depth over the kernel's own (packed, %s, 1 and %d threads): %s→ %s", strings.Join(sizes, " and "), threads,
			ladderText(steps, func(d int) string { return fmt.Sprintf("kc %d", d) }), to)
	}
	customSearches[field] = c
	return tuneSearch{field: field, ops: []tuneOp{op}, ladder: gemmDepths}
}

// colsOuterLadder is gemm.cols_outer's ladder: A's bytes from 32 KiB (at
// least 16 rows of gemmColsOuterK), doubling, up to half of L2 (none where
// L2 is not known: the sweep never runs there).
func colsOuterLadder() []int {
	var ladder []int
	for b := 32 << 10; b <= isa.Caches().L2/2; b *= 2 {
		ladder = append(ladder, b)
	}
	return ladder
}

func gemmColsOuterSearch[T gemm.Float](field string) tuneSearch {
	size := int(elemSize[T]())
	ladder := colsOuterLadder()
	k, n := gemmColsOuterK, gemmColsOuterN
	var a, b, c []T
	op := tuneOp{"gemm", func(aBytes, th int) {
		if a == nil {
			m := slices.Max(ladder) / (k * size)
			a, b, c = vectors[T](m*k*size, 1)[0], vectors[T](k*n*size, 1)[0], make([]T, m*n)
		}
		m := aBytes / (k * size)
		gemm.Gemm(isa.Best, false, false, m, n, k, 1, a, k, b, n, 0, c, n, th)
	}}
	var cs customSearch
	cs.search = func(ctx context.Context, base tune.Params, threads int, maxTime time.Duration) ([]tune.Step, int, error) {
		setDirect(&base, field, 1)
		unpacked, packed := base, base
		setField(&unpacked, field, tune.MaxPieceBytes)
		setField(&packed, field, 0)
		steps, err := timeLadder(ctx, ladder, threadPairs(op, ladder, threads, unpacked, packed), maxTime)
		if steps == nil {
			return nil, 0, err
		}
		return steps, crossoverLast(steps), nil
	}
	cs.describe = func(steps []tune.Step, v, threads int) string {
		to := "packed from the smallest"
		switch {
		case v >= tune.MaxPieceBytes:
			to = "unpacked wherever A and a panel fit L2"
		case v > 0:
			to = "unpacked up to " + units.Bytes(v) + " of A"
		}
		return fmt.Sprintf("packed over unpacked columns outer (m×%d×%d by A's bytes, 1 and %d threads): %s→ %s", n, k, threads, ladderText(steps, units.Bytes), to)
	}
	customSearches[field] = cs
	return tuneSearch{field: field, ops: []tuneOp{op}, ladder: ladder}
}

// depthChoice is gemm.kc from the steps of each depth over the kernel's
// own: the fastest depth where it is winMargin faster on the whole and
// slower at none of its sizes and thread counts (its steps' NS pairs),
// else 0.
func depthChoice(steps []tune.Step) int {
	best := -1
	for i, st := range steps {
		if st.Speedup >= winMargin && (best < 0 || st.Speedup > steps[best].Speedup) && neverSlower(st) {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	return steps[best].Bytes
}

// neverSlower reports whether the second way of every pair of st took no
// longer than the first.
func neverSlower(st tune.Step) bool {
	for _, ns := range st.NS {
		if ns[1] > ns[0] {
			return false
		}
	}
	return true
}

// limitSearch is the search of a size up to which one way runs and above
// which another does (gemm.direct, fft.pair): op on one thread at each size
// of ladder with field at all (the first way at every size) against 0 (the
// second at every size), all interleaved; the value is directLimit's.
func limitSearch(field string, op tuneOp, ladder []int, all int) func(context.Context, tune.Params, int, time.Duration) ([]tune.Step, int, error) {
	return func(ctx context.Context, base tune.Params, _ int, maxTime time.Duration) ([]tune.Step, int, error) {
		first, second := base, base
		setField(&first, field, all)
		setField(&second, field, 0)
		steps, err := timePairs(ctx, op, ladder, func(int) [2]tuneTarget {
			return [2]tuneTarget{{op: op, threads: 1, params: first}, {op: op, threads: 1, params: second}}
		}, maxTime)
		if steps == nil {
			return nil, 0, err
		}
		return steps, directLimit(steps), nil
	}
}

// directLimit is gemm.direct (and fft.pair) from the steps of packed over
// unpacked (fused over pairs): the bytes of the largest size below the
// smallest from which packing is winMargin faster and no larger size is
// slower with it; 0 when that is the smallest size; the top's bytes when
// packing never wins.
func directLimit(steps []tune.Step) int {
	from := crossover(steps)
	if from == 0 {
		return 0
	}
	return steps[from-1].Bytes
}

// timePairs times, at each ladder value, the pair of targets pair gives
// (the baseline first), all interleaved (timeLadder); nil when cut short
// before minDecisionSamples.
func timePairs(ctx context.Context, op tuneOp, ladder []int, pair func(v int) [2]tuneTarget, maxTime time.Duration) ([]tune.Step, error) {
	pairs := make([][]timedPair, len(ladder))
	for i, v := range ladder {
		p := pair(v)
		p[0].bytes, p[1].bytes = v, v
		pairs[i] = []timedPair{{op.name, p[0], p[1]}}
	}
	return timeLadder(ctx, ladder, pairs, maxTime)
}

func ladderText(steps []tune.Step, unit func(int) string) string {
	var b strings.Builder
	for _, st := range steps {
		fmt.Fprintf(&b, "%s %.2f× ", unit(st.Bytes), st.Speedup)
	}
	return b.String()
}

// madds writes a count of multiply-adds as n³ when it is a cube.
func madds(v int) string {
	if n := int(math.Round(math.Cbrt(float64(v)))); n*n*n == v {
		return fmt.Sprintf("%d³", n)
	}
	return fmt.Sprint(v)
}
