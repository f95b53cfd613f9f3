package sparse

import (
	"fmt"
	"slices"
	"sort"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// SELL is a matrix in sliced ELLPACK form, made from a CSR once (an
// inspector's work, off the clock, as MKL's mkl_sparse_optimize): rows in
// slices of C, a vector's lanes, each slice's entries stored column by
// column (entry j of its C rows side by side), padded to its longest row.
// One vector then holds entry j of C rows: contiguous loads of values and
// indices, one gather of x, and no sum across lanes at each row's end,
// which a row of a few entries (a stencil's 5) pays for each row in CSR.
// Padding costs loads: a slice of one long row and short ones stores C
// times the long one. The rows past the last full slice stay in CSR.
type SELL[T Float] struct {
	a      *CSR[T] // the rows past the last whole slice run from it
	c      int     // rows per slice
	start  []int32 // slice s's entries begin at start[s]; start[len] is the total
	width  []int32 // entries per row of slice s, padded
	rowLen []int32 // each row's entries (the lanes past them are padding)
	colIdx []int32 // padding: column 0 (never gathered: the lanes are masked)
	val    []T     // padding: 0
	// run holds, for each vector (slice s's entry j at start[s]/c + j),
	// the column of lane 0 when every row of the slice that has entry j
	// has it in the column lane r + that (a band's, a stencil's diagonal),
	// else −1. The kernel then loads x there and reads none of the
	// vector's indices: a quarter less traffic in f64, a third in f32.
	run []int32
	// affine holds, for each slice whose rows are all full (no padding)
	// and whose every vector has a run: run's first entry when the run
	// goes on by one column an entry (a band inside its edges: the kernel
	// reads the values alone), else sellRuns (a stencil's diagonals: no
	// mask); −1 for every other slice.
	affine []int32
}

// SELLLanes is C for T at lvl: 16 (float32) or 8 (float64), a 512-bit
// vector's lanes, at every level (the kernel below AVX-512 is pure Go).
func SELLLanes[T Float]() int { return 64 / num.Size[T]() }

// NewSELL converts a, which it keeps for the rows past the last slice.
func NewSELL[T Float](a *CSR[T]) (*SELL[T], error) {
	c := SELLLanes[T]()
	slices := a.rows / c
	s := &SELL[T]{a: a, c: c, start: make([]int32, slices+1), width: make([]int32, slices), rowLen: make([]int32, slices*c)}
	total := 0
	for sl := range slices {
		w := int32(0)
		for r := range c {
			i := sl*c + r
			s.rowLen[i] = a.rowPtr[i+1] - a.rowPtr[i]
			w = max(w, s.rowLen[i])
		}
		s.width[sl] = w
		total += int(w) * c
		if total > MaxEntries {
			return nil, fmt.Errorf("sparse: SELL of %d×%d: padded past %d entries", a.rows, a.cols, MaxEntries)
		}
		s.start[sl+1] = int32(total)
	}
	if real := int(a.rowPtr[slices*c]); total > MaxPaddingFactor*real+c*slices {
		return nil, fmt.Errorf("sparse: SELL of %d×%d would store %d entries for %d: rows of a slice differ too much in length (a power law's)", a.rows, a.cols, total, real)
	}
	s.colIdx, s.val, s.run, s.affine = make([]int32, total), make([]T, total), make([]int32, total/c), make([]int32, slices)
	for sl := range slices {
		base := int(s.start[sl])
		for r := range c {
			i := sl*c + r
			p0 := int(a.rowPtr[i])
			for j := range int(s.rowLen[i]) {
				s.colIdx[base+j*c+r], s.val[base+j*c+r] = a.colIdx[p0+j], a.val[p0+j]
			}
		}
		for j := range int(s.width[sl]) {
			s.run[base/c+j] = s.runOf(sl, j)
		}
		s.affine[sl] = s.affineOf(sl)
	}
	return s, nil
}

// affineOf is affine's entry for slice sl.
func (s *SELL[T]) affineOf(sl int) int32 {
	w := s.width[sl]
	for r := range s.c {
		if s.rowLen[sl*s.c+r] != w {
			return -1
		}
	}
	run := s.run[int(s.start[sl])/s.c:][:w]
	if w == 0 || slices.ContainsFunc(run, func(f int32) bool { return f < 0 }) {
		return -1
	}
	for j, f := range run {
		if f != run[0]+int32(j) {
			return sellRuns
		}
	}
	return run[0]
}

// sellRuns marks, in affine, a whole slice whose vectors each lie on a
// diagonal of their own (gobackend/_asm's constant of the same name).
const sellRuns = -2

// runOf is run's entry for slice sl's entry j.
func (s *SELL[T]) runOf(sl, j int) int32 {
	first := int32(-1)
	base := int(s.start[sl]) + j*s.c
	for r := range s.c {
		if j >= int(s.rowLen[sl*s.c+r]) {
			continue // padding: masked
		}
		f := s.colIdx[base+r] - int32(r)
		switch {
		case f < 0, first >= 0 && f != first:
			return -1
		}
		first = f
	}
	return first
}

// MaxPaddingFactor bounds what NewSELL stores: at most this many times the
// real entries (plus a vector per slice). Past it the padding's loads cost
// more than CSR's sums across lanes, and a power law's rows of 10⁵ entries
// beside rows of 10 would take gigabytes.
const MaxPaddingFactor = 4

// MaxEntries is the most entries, padding included, a SELL holds (int32
// offsets).
const MaxEntries = 1<<31 - 1

// Padding is the share of a SELL's stored entries that are padding.
func (s *SELL[T]) Padding() float64 {
	stored := int(s.start[len(s.width)])
	if stored == 0 {
		return 0
	}
	real := int(s.a.rowPtr[len(s.width)*s.c])
	return 1 - float64(real)/float64(stored)
}

// MulVecSELL sets y = A·x on threads threads, at level lvl: the AVX-512
// kernel, or pure Go below it.
func MulVecSELL[T Float](lvl isa.Level, s *SELL[T], x, y []T, threads int) {
	a := s.a
	if len(x) != a.cols || len(y) != a.rows {
		panic(fmt.Sprintf("sparse: MulVecSELL of a %d×%d matrix with x of %d and y of %d", a.rows, a.cols, len(x), len(y)))
	}
	k := implFor(lvl)
	slices := len(s.width)
	stored := int(s.start[slices])
	parts := max(1, min(threads, stored/minPiece, slices))
	run := func(lo, hi int) {
		if k == implAVX512 && hi > lo {
			sellAsm(s, x, y, lo, hi)
			return
		}
		sellGeneric(s, x, y, lo, hi)
	}
	if parts == 1 {
		run(0, slices)
	} else {
		// Slices of about equal stored entries per part.
		bounds := make([]int, parts+1)
		for i := 1; i < parts; i++ {
			target := int32(int64(stored) * int64(i) / int64(parts))
			bounds[i] = max(bounds[i-1], sort.Search(slices, func(sl int) bool { return s.start[sl] >= target }))
		}
		bounds[parts] = slices
		num.For(parts, parts, 1, 1, func(_, lo, hi int) {
			for part := lo; part < hi; part++ {
				run(bounds[part], bounds[part+1])
			}
		})
	}
	mulVecRows(k, a, x, y, slices*s.c, a.rows) // the rows past the last slice
}

// sellGeneric is the pure-Go SELL kernel: each row's entries in order, as
// the CSR kernel sums them.
func sellGeneric[T Float](s *SELL[T], x, y []T, lo, hi int) {
	_, _ = s.run, s.affine // they only spare the assembly's index loads
	for sl := lo; sl < hi; sl++ {
		base := int(s.start[sl])
		for r := range s.c {
			i := sl*s.c + r
			var sum T
			for j := range int(s.rowLen[i]) {
				p := base + j*s.c + r
				sum += s.val[p] * x[s.colIdx[p]]
			}
			y[i] = sum
		}
	}
}
