package gemm

import (
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
)

func TestGridFor(t *testing.T) {
	kern := &microKernel[float64]{mr: 14, nr: 16}
	for _, tc := range []struct {
		m, n, threads int
		tr, tc        int
	}{
		{1024, 1024, 1, 1, 1},
		{512, 512, 2, 1, 2},    // a near tie: columns
		{1024, 1024, 2, 1, 2},  // 2×1 packs 0.4% less: still columns
		{4096, 64, 2, 2, 1},    // tall: rows, B is small
		{1024, 1024, 4, 2, 2},  // packs twice the shared nest's: the grid
		{1024, 1024, 16, 1, 1}, // 4×4 packs four times as much: shared
		{14, 4096, 2, 1, 2},    // one row tile: columns only
		{14, 16, 2, 1, 1},      // one tile: nothing to split
		{1024, 1024, 7, 1, 1},  // 1×7 packs four times as much
		{1024, 1024, 3, 1, 1},  // 1×3 packs 2.02 times as much
		{512, 3072, 3, 1, 3},   // 1×3 packs 1.3 times as much
	} {
		if r, c := gridFor(kern, tc.m, tc.n, tc.threads); r != tc.tr || c != tc.tc {
			t.Errorf("gridFor(%d×%d, %d threads) = %d×%d, want %d×%d", tc.m, tc.n, tc.threads, r, c, tc.tr, tc.tc)
		}
	}
}

func TestDirectGrid(t *testing.T) {
	for _, tc := range []struct {
		rowTiles, colTiles, threads int
		tr, tc                      int
	}{
		{19, 8, 1, 1, 1},
		{19, 8, 2, 1, 2},  // rows would split 10 and 9
		{20, 7, 2, 2, 1},  // columns would split 4 and 3
		{1, 1, 2, 1, 1},   // one tile
		{19, 8, 4, 1, 4},  // 19×2 against 10×4
		{3, 1, 7, 3, 1},   // more threads than tiles
		{37, 16, 2, 1, 2}, // 37×8 against 19×16
	} {
		if r, c := directGrid(tc.rowTiles, tc.colTiles, tc.threads); r != tc.tr || c != tc.tc {
			t.Errorf("directGrid(%d, %d, %d) = %d×%d, want %d×%d", tc.rowTiles, tc.colTiles, tc.threads, r, c, tc.tr, tc.tc)
		}
	}
}

// TestGridThreads checks the 2-D grids (4 and 6 threads), the grid and the
// shared nest, on both paths, against one thread, element for element.
func TestGridThreads(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	const m, n, k = 100, 150, 70
	a := numtest.New[float64](m*k, rnd).Data
	b := numtest.New[float64](k*n, rnd).Data
	for _, lvl := range isa.Levels() {
		withBlocks(32, 28, 64, 1, func() {
			bothPaths(func() {
				ref := make([]float64, m*n)
				Gemm(lvl, false, false, m, n, k, 1.5, a, k, b, n, 0, ref, n, 1)
				for _, off := range []bool{false, true} {
					gridOff = off
					for _, th := range []int{2, 4, 6} {
						c := make([]float64, m*n)
						Gemm(lvl, false, false, m, n, k, 1.5, a, k, b, n, 0, c, n, th)
						if i := numtest.Differ(c, ref); i >= 0 {
							t.Errorf("%v gridOff=%v threads=%d: c[%d] = %v, with 1 thread %v", lvl, off, th, i, c[i], ref[i])
						}
					}
				}
				gridOff = false
			})
		})
	}
}
