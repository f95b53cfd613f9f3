package sparsemat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Kind names a generator.
type Kind string

// The generators. Each is a pure function of its Spec: the same Spec makes
// the same matrix on every machine.
const (
	// Banded: every entry with |i−j| ≤ BW of a square matrix (a stencil's
	// pattern: x is read in order, each element by 2·BW+1 rows).
	Banded Kind = "banded"
	// Uniform: NNZ entries at uniformly random positions (each row's
	// count binomial, its columns distinct and uniform): x gathered at
	// random, the worst case for the caches.
	Uniform Kind = "uniform"
	// PowerLaw: row lengths by Zipf's law (the row of rank r holds a share
	// ∝ 1/r of NNZ, ranks shuffled over the rows), columns uniform: a
	// graph's adjacency, where splitting rows evenly leaves threads idle.
	PowerLaw Kind = "powerlaw"
)

// Kinds lists the generators.
var Kinds = []Kind{Banded, Uniform, PowerLaw}

// Spec is a generated matrix. Banded uses Rows (= Cols) and BW; Uniform
// and PowerLaw Rows, Cols and NNZ.
type Spec struct {
	Kind       Kind
	Rows, Cols int
	NNZ        int
	BW         int
	Seed       uint64
}

// Validate reports whether the generator can make the matrix.
func (s Spec) Validate() error {
	if !slices.Contains(Kinds, s.Kind) {
		return fmt.Errorf("unknown matrix generator %q (accepted: banded, uniform, powerlaw)", s.Kind)
	}
	if s.Rows < 1 || s.Cols < 1 {
		return fmt.Errorf("%s: rows and columns must be at least 1", s.Kind)
	}
	if s.Rows > math.MaxInt32 || s.Cols > math.MaxInt32 {
		return fmt.Errorf("%s: %d×%d: rows and columns are at most %d (int32 indices)", s.Kind, s.Rows, s.Cols, math.MaxInt32)
	}
	switch s.Kind {
	case Banded:
		if s.Rows != s.Cols {
			return fmt.Errorf("banded: %d×%d: a banded matrix is square", s.Rows, s.Cols)
		}
		if s.BW < 0 {
			return fmt.Errorf("banded: bw=%d: must be at least 0", s.BW)
		}
	default:
		if s.NNZ < 1 || float64(s.NNZ) > float64(s.Rows)*float64(s.Cols) {
			return fmt.Errorf("%s: nnz=%d: must be 1 to rows·cols (%.0f)", s.Kind, s.NNZ, float64(s.Rows)*float64(s.Cols))
		}
	}
	if n := s.CountNNZ(); n > MaxNNZ {
		return fmt.Errorf("%s: %.0f entries, more than the %d int32 indices reach", s.Kind, float64(n), MaxNNZ)
	}
	return nil
}

// CountNNZ is the number of entries Generate makes, without making them.
func (s Spec) CountNNZ() int {
	if s.Kind != Banded {
		return s.NNZ
	}
	n, bw := s.Rows, min(s.BW, s.Rows-1)
	return n*(2*bw+1) - bw*(bw+1) // the full band less the two corner triangles
}

// Generate makes the matrix, values uniform in [−1, 1). s must be valid.
func (s Spec) Generate() *CSR {
	rng := rand.New(rand.NewPCG(s.Seed, uint64(len(s.Kind))))
	var counts []int
	switch s.Kind {
	case Banded:
		counts = make([]int, s.Rows)
		for i := range counts {
			counts[i] = min(i+s.BW, s.Rows-1) - max(i-s.BW, 0) + 1
		}
	case Uniform:
		counts = make([]int, s.Rows)
		for range s.NNZ {
			counts[rng.IntN(s.Rows)]++
		}
		spill(counts, s.Cols)
	case PowerLaw:
		counts = zipfCounts(s.Rows, s.NNZ)
		spill(counts, s.Cols)
		rng.Shuffle(len(counts), func(i, j int) { counts[i], counts[j] = counts[j], counts[i] })
	}
	m := &CSR{Rows: s.Rows, Cols: s.Cols, RowPtr: make([]int32, s.Rows+1)}
	for i, c := range counts {
		m.RowPtr[i+1] = m.RowPtr[i] + int32(c)
	}
	nnz := int(m.RowPtr[s.Rows])
	m.ColIdx, m.Val = make([]int32, nnz), make([]float64, nnz)
	for i, c := range counts {
		row := m.ColIdx[m.RowPtr[i]:m.RowPtr[i+1]]
		if s.Kind == Banded {
			for j := range row {
				row[j] = int32(max(i-s.BW, 0) + j)
			}
			continue
		}
		pickColumns(rng, row[:c], s.Cols)
	}
	for p := range m.Val {
		m.Val[p] = 2*rng.Float64() - 1
	}
	return m
}

// spill moves what a row holds beyond cols to the next rows with room
// (cyclically), so the total stays exact.
func spill(counts []int, cols int) {
	carry := 0
	for pass := 0; pass < 2; pass++ {
		for i := range counts {
			counts[i] += carry
			carry = max(counts[i]-cols, 0)
			counts[i] -= carry
		}
	}
}

// zipfCounts splits nnz over rows in shares ∝ 1/(r+1), the remainder one
// each to the first rows.
func zipfCounts(rows, nnz int) []int {
	var total float64
	for r := range rows {
		total += 1 / float64(r+1)
	}
	counts := make([]int, rows)
	left := nnz
	for r := range rows {
		counts[r] = int(float64(nnz) / float64(r+1) / total)
		left -= counts[r]
	}
	for r := 0; left > 0; r = (r + 1) % rows {
		counts[r]++
		left--
	}
	return counts
}

// pickColumns fills row with distinct columns of [0, cols), uniform,
// ascending: draws with replacement until distinct, or, for a row more
// than half full, the columns left out drawn instead.
func pickColumns(rng *rand.Rand, row []int32, cols int) {
	c := len(row)
	if c == 0 {
		return
	}
	if 2*c > cols {
		skip := make([]int32, cols-c)
		pickColumns(rng, skip, cols)
		j, k := 0, 0
		for col := range int32(cols) {
			if k < len(skip) && skip[k] == col {
				k++
				continue
			}
			row[j] = col
			j++
		}
		return
	}
	have := row[:0]
	for len(have) < c {
		for len(have) < c {
			have = append(have, int32(rng.IntN(cols)))
		}
		slices.Sort(have)
		have = slices.Compact(have)
	}
}
