package sparse

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// naiveCSC is the CSC form of a by visiting each column's entries in row
// order, with no counting sort.
func naiveCSC[T Float](a *CSR[T]) (val []T, rowIdx, colPtr []int32) {
	colPtr = []int32{0}
	for c := range a.cols {
		for i := range a.rows {
			for p := a.rowPtr[i]; p < a.rowPtr[i+1]; p++ {
				if int(a.colIdx[p]) == c {
					val, rowIdx = append(val, a.val[p]), append(rowIdx, int32(i))
				}
			}
		}
		colPtr = append(colPtr, int32(len(rowIdx)))
	}
	return val, rowIdx, colPtr
}

// conversionCases are matrices small enough for naiveCSC and large enough
// (past minPiece entries) that 2 and 3 threads split them: empty rows and
// columns, a rectangle, one column, a band.
func conversionCases(t *testing.T) map[string]*CSR[float64] {
	rng := rand.New(rand.NewPCG(5, 9))
	return map[string]*CSR[float64]{
		"one entry":     randomCSR[float64](t, rng, 1, 1, func(int) int { return 1 }),
		"no entries":    randomCSR[float64](t, rng, 5, 4, func(int) int { return 0 }),
		"empty rows":    randomCSR[float64](t, rng, 50, 40, func(i int) int { return (i % 3) * (i % 5) }),
		"rectangle":     randomCSR[float64](t, rng, 300, 120, func(i int) int { return i % 7 }),
		"one column":    randomCSR[float64](t, rng, 80000, 1, func(i int) int { return i % 2 }),
		"uniform split": randomCSR[float64](t, rng, 3000, 2500, func(i int) int { return 20 + i%9 }),
		"band split":    bandCSR[float64](t, 5000, 6),
		"empty tail":    randomCSR[float64](t, rng, 2000, 900, func(i int) int { return max(0, 40-i/20) }),
		// Rows about the assembly's block of 32 entries (shorter, equal,
		// longer by less and more than a vector), with empty ones between.
		"long rows": randomCSR[float64](t, rng, 4000, 300, func(i int) int { return []int{0, 1, 15, 16, 17, 31, 32, 33, 40, 47, 48, 49, 64, 75, 0, 0, 100}[i%17] }),
	}
}

func TestToCOO(t *testing.T) {
	for name, a := range conversionCases(t) {
		want := make([]int32, 0, a.NNZ())
		for i := range a.rows {
			for range a.rowPtr[i+1] - a.rowPtr[i] {
				want = append(want, int32(i))
			}
		}
		for _, lvl := range levels() {
			for _, th := range []int{1, 2, 3} {
				// A guard past the end: the assembly stores past short
				// rows' ends, never past the last entry.
				buf := slices.Repeat([]int32{-7}, a.NNZ()+64)
				got := buf[:a.NNZ():a.NNZ()]
				ToCOO(lvl, a, got, th)
				if !slices.Equal(got, want) {
					t.Errorf("%s, %v, %d threads: rows %v…, want %v…", name, lvl, th, firstDiff(got, want), want[:min(len(want), 8)])
				}
				if slices.ContainsFunc(buf[a.NNZ():], func(v int32) bool { return v != -7 }) {
					t.Errorf("%s, %v, %d threads: wrote past the last entry", name, lvl, th)
				}
			}
		}
	}
}

func TestFromCOO(t *testing.T) {
	for name, a := range conversionCases(t) {
		rowIdx := make([]int32, a.NNZ())
		ToCOO(isa.Generic, a, rowIdx, 1)
		for _, th := range []int{1, 2, 3} {
			got := slices.Repeat([]int32{-7}, a.rows+1)
			FromCOO(a.rows, rowIdx, got, th)
			if !slices.Equal(got, a.rowPtr) {
				t.Errorf("%s, %d threads: row pointers %v…, want %v…", name, th, head(got), head(a.rowPtr))
			}
		}
	}
}

func TestToCSC(t *testing.T) {
	for name, a := range conversionCases(t) {
		wantVal, wantRow, wantPtr := naiveCSC(a)
		for _, lvl := range levels() {
			for _, th := range []int{1, 2, 3} {
				w := NewCSCWork(a, th)
				val, rowIdx, colPtr := slices.Repeat([]float64{-7}, a.NNZ()), slices.Repeat([]int32{-7}, a.NNZ()), slices.Repeat([]int32{-7}, a.cols+1)
				for run := range 2 { // the scratch is reused
					ToCSC(lvl, a, w, val, rowIdx, colPtr)
					what := fmt.Sprintf("%s, %v, %d threads (%d pieces), run %d", name, lvl, th, len(w.bounds)-1, run)
					if !slices.Equal(colPtr, wantPtr) {
						t.Errorf("%s: column pointers %v…, want %v…", what, head(colPtr), head(wantPtr))
					}
					if !slices.Equal(rowIdx, wantRow) || !slices.Equal(val, wantVal) {
						t.Errorf("%s: rows %v…, want %v…", what, head(rowIdx), head(wantRow))
					}
				}
			}
		}
	}
}

// TestConversionSplits checks that the cases above do split: a case that
// stayed on one thread would test nothing of the parallel code.
func TestConversionSplits(t *testing.T) {
	for _, name := range []string{"uniform split", "band split", "one column"} {
		a := conversionCases(t)[name]
		if p := len(NewCSCWork(a, 3).bounds) - 1; p < 2 {
			t.Errorf("%s: %d entries in %d pieces on 3 threads, want 2 or more", name, a.NNZ(), p)
		}
	}
}

func head[E any](s []E) []E { return s[:min(len(s), 8)] }

// firstDiff is got from 4 elements before its first difference from want.
func firstDiff[E comparable](got, want []E) string {
	for i := range got {
		if got[i] != want[i] {
			lo := max(0, i-4)
			return fmt.Sprintf("[%d:] %v", lo, got[lo:min(len(got), lo+8)])
		}
	}
	return "equal"
}
