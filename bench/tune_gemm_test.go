package main

import (
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

func TestDirectLimit(t *testing.T) {
	steps := func(speedups ...float64) []tune.Step { return ladderSteps(1<<10, speedups...) }
	for _, c := range []struct {
		name  string
		steps []tune.Step
		want  int
	}{
		{"packing never wins", steps(0.6, 0.8, 0.9, 1.02), 1 << 13},
		{"packing wins from the third size", steps(0.6, 0.8, 1.2, 1.6), 1 << 11},
		{"a slower size above resets", steps(0.6, 1.2, 0.9, 1.6), 1 << 12},
		{"packing wins everywhere", steps(1.1, 1.2, 1.3), 0},
	} {
		if got := directLimit(c.steps); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestMadds(t *testing.T) {
	if got := madds(96 * 96 * 96); got != "96³" {
		t.Errorf("madds(96³) = %q", got)
	}
	if got := madds(1000001); got != "1000001" {
		t.Errorf("madds(1000001) = %q", got)
	}
}

func TestShapeChoice(t *testing.T) {
	steps := func(speedups ...float64) []tune.Step { return ladderSteps(512, speedups...) }
	for _, c := range []struct {
		name  string
		steps []tune.Step
		want  int
	}{
		{"the wide shape faster at every size", steps(1.06, 1.10), tune.ShapeWide},
		{"faster on the whole, level at one size", steps(1.0, 1.12), tune.ShapeWide},
		{"faster on the whole, slower at one size", steps(0.98, 1.2), tune.ShapeTall},
		{"within the margin", steps(1.02, 1.04), tune.ShapeTall},
		{"slower", steps(0.9, 0.95), tune.ShapeTall},
	} {
		if got := shapeChoice(c.steps); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// TestGemmShapeSearch runs the shape search on small products: both
// shapes timed at 1 and 2 threads at each size, one of them chosen, and
// the file written loads with it.
func TestGemmShapeSearch(t *testing.T) {
	if isa.Best < isa.AVX512 {
		t.Skip("one micro-kernel shape below AVX512: nothing to search")
	}
	defer func(s []int) { gemmShapeSizes = s }(gemmShapeSizes)
	gemmShapeSizes = []int{96, 160}
	f, stderr := runSearch(t, 4*time.Second, func() tuneSearch { return gemmShapeSearch[float64]("gemm.shape.f64") })
	st := f.Measured.Ladders["gemm.shape.f64"]
	if len(st) != 2 || st[0].Bytes != 96 || st[1].NS["gemm@1"][1] <= 0 || st[1].NS["gemm@2"][0] <= 0 {
		t.Errorf("gemm.shape.f64 ladder %+v", st)
	}
	if v := f.Params.GEMM.Shape.F64; v != shapeChoice(st) {
		t.Errorf("gemm.shape.f64 = %d, the steps give %d", v, shapeChoice(st))
	}
	t.Log(stderr)
}

func TestDepthChoice(t *testing.T) {
	step := func(kc int, speedup float64, ns ...[2]float64) tune.Step {
		st := tune.Step{Bytes: kc, Speedup: speedup, NS: map[string][2]float64{}}
		for i, v := range ns {
			st.NS[string(rune('a'+i))] = v
		}
		return st
	}
	faster, slower := [2]float64{10, 9}, [2]float64{10, 10.5}
	for _, c := range []struct {
		name  string
		steps []tune.Step
		want  int
	}{
		{"none past the margin", []tune.Step{step(256, 1.02, faster), step(384, 0.97, slower)}, 0},
		{"the fastest of two past it", []tune.Step{step(256, 1.06, faster), step(384, 1.11, faster, faster)}, 384},
		{"the fastest is slower at one size", []tune.Step{step(256, 1.06, faster), step(384, 1.2, faster, slower)}, 256},
		{"every one slower somewhere", []tune.Step{step(256, 1.3, slower, faster)}, 0},
	} {
		if got := depthChoice(c.steps); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// TestGemmDepthSearch runs the depth search on small products: each depth
// but the kernel's own timed against it at 1 and 2 threads at each size,
// a choice the steps give, and the file written loads with it.
func TestGemmDepthSearch(t *testing.T) {
	defer func(s, d []int) { gemmDepthSizes, gemmDepths = s, d }(gemmDepthSizes, gemmDepths)
	gemmDepthSizes, gemmDepths = []int{96, 160}, []int{48, 96}
	f, stderr := runSearch(t, 4*time.Second, func() tuneSearch { return gemmDepthSearch[float32]("gemm.kc.f32") })
	st := f.Measured.Ladders["gemm.kc.f32"]
	if len(st) != 2 || st[0].Bytes != 48 || st[1].Bytes != 96 || st[0].NS["gemm96@1"][1] <= 0 || st[1].NS["gemm160@2"][0] <= 0 {
		t.Errorf("gemm.kc.f32 ladder %+v", st)
	}
	if v := f.Params.GEMM.KC.F32; v != depthChoice(st) {
		t.Errorf("gemm.kc.f32 = %d, the steps give %d", v, depthChoice(st))
	}
	t.Log(stderr)
}

// TestGemmColsOuterSearch runs the columns-outer search on narrow products:
// unpacked against packed at 1 and 2 threads at each size of A up to half
// of L2, the value the steps give, and the file written loads with it.
func TestGemmColsOuterSearch(t *testing.T) {
	ladder := colsOuterLadder()
	if isa.Best == isa.Generic || len(ladder) == 0 {
		t.Skip("no unpacked kernel, or no L2 known: the sweep never runs")
	}
	defer func(n int) { gemmColsOuterN = n }(gemmColsOuterN)
	gemmColsOuterN = 200
	f, stderr := runSearch(t, 4*time.Second, func() tuneSearch { return gemmColsOuterSearch[float32]("gemm.cols_outer.f32") })
	st := f.Measured.Ladders["gemm.cols_outer.f32"]
	if len(st) != len(ladder) || st[0].Bytes != 32<<10 || st[0].NS["gemm@1"][1] <= 0 || st[len(st)-1].NS["gemm@2"][0] <= 0 {
		t.Errorf("gemm.cols_outer.f32 ladder %+v, want one step per size of %v", st, ladder)
	}
	if v := f.Params.GEMM.ColsOuter.F32; v != crossoverLast(st) {
		t.Errorf("gemm.cols_outer.f32 = %d, the steps give %d", v, crossoverLast(st))
	}
	if !strings.Contains(stderr, "packed over unpacked columns outer") {
		t.Errorf("no ladder line for gemm.cols_outer.f32:\n%s", stderr)
	}
	t.Log(stderr)
}
