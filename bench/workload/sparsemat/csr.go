// Package sparsemat holds sparse matrices in compressed sparse row form
// (CSR): the seeded generators peakbench's sparse workloads name in -size
// (banded, uniform, power-law row lengths) and the Matrix Market reader for
// matrices from files (the SuiteSparse collection's format).
package sparsemat

import (
	"fmt"
	"math"
	"slices"
)

// MaxNNZ bounds a matrix's stored entries: indices are int32, as MKL's
// LP64 interface and the gather instructions take them.
const MaxNNZ = math.MaxInt32

// CSR is a rows×cols matrix in compressed sparse row form: row i's entries
// are Val[RowPtr[i]:RowPtr[i+1]] in columns ColIdx[RowPtr[i]:RowPtr[i+1]],
// columns ascending within a row and never repeated.
type CSR struct {
	Rows, Cols int
	RowPtr     []int32 // Rows+1 entries, RowPtr[0] = 0, RowPtr[Rows] = NNZ
	ColIdx     []int32
	Val        []float64
}

// NNZ is the number of stored entries.
func (m *CSR) NNZ() int { return len(m.ColIdx) }

// MaxRowNNZ is the largest number of entries in one row.
func (m *CSR) MaxRowNNZ() int {
	longest := 0
	for i := range m.Rows {
		longest = max(longest, int(m.RowPtr[i+1]-m.RowPtr[i]))
	}
	return longest
}

// Check reports the first violation of CSR's invariants.
func (m *CSR) Check() error {
	if len(m.RowPtr) != m.Rows+1 || m.RowPtr[0] != 0 || int(m.RowPtr[m.Rows]) != len(m.ColIdx) || len(m.Val) != len(m.ColIdx) {
		return fmt.Errorf("csr: %d rows, %d row pointers, %d columns, %d values", m.Rows, len(m.RowPtr), len(m.ColIdx), len(m.Val))
	}
	for i := range m.Rows {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		if hi < lo {
			return fmt.Errorf("csr: row %d ends before it starts", i)
		}
		for p := lo; p < hi; p++ {
			c := m.ColIdx[p]
			if c < 0 || int(c) >= m.Cols || (p > lo && c <= m.ColIdx[p-1]) {
				return fmt.Errorf("csr: row %d: column %d out of order or range", i, c)
			}
		}
	}
	return nil
}

// MulVec returns A·x and, for each row, Σ|a||x| (the magnitude the sum
// worked with), in float64: the reference sparse kernels are checked against.
func (m *CSR) MulVec(x []float64) (y, scale []float64) {
	y, scale = make([]float64, m.Rows), make([]float64, m.Rows)
	for i := range m.Rows {
		var s, a float64
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			v := m.Val[p] * x[m.ColIdx[p]]
			s += v
			a += math.Abs(v)
		}
		y[i], scale[i] = s, a
	}
	return y, scale
}

// MulMat returns A·X for X cols×k (row-major) and each element's Σ|a||x|.
func (m *CSR) MulMat(x []float64, k int) (y, scale []float64) {
	y, scale = make([]float64, m.Rows*k), make([]float64, m.Rows*k)
	for i := range m.Rows {
		yr, sr := y[i*k:(i+1)*k], scale[i*k:(i+1)*k]
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			a, xr := m.Val[p], x[int(m.ColIdx[p])*k:][:k]
			for j, xv := range xr {
				yr[j] += a * xv
				sr[j] += math.Abs(a * xv)
			}
		}
	}
	return y, scale
}

// fromTriples builds a CSR from coordinate entries, summing none: every
// (row, col) must appear once. It sorts by row, then column.
func fromTriples(rows, cols int, ri, ci []int32, v []float64) (*CSR, error) {
	m := &CSR{Rows: rows, Cols: cols, RowPtr: make([]int32, rows+1)}
	for _, r := range ri {
		m.RowPtr[r+1]++
	}
	for i := range rows {
		m.RowPtr[i+1] += m.RowPtr[i]
	}
	next := append([]int32(nil), m.RowPtr[:rows]...)
	m.ColIdx, m.Val = make([]int32, len(ri)), make([]float64, len(ri))
	for e, r := range ri {
		p := next[r]
		next[r]++
		m.ColIdx[p], m.Val[p] = ci[e], v[e]
	}
	for i := range rows {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		sortRow(m.ColIdx[lo:hi], m.Val[lo:hi])
		for p := lo + 1; p < hi; p++ {
			if m.ColIdx[p] == m.ColIdx[p-1] {
				return nil, fmt.Errorf("entry (%d, %d) appears twice", i+1, m.ColIdx[p]+1)
			}
		}
	}
	return m, nil
}

// sortRow sorts one row's columns ascending, carrying the values.
func sortRow(c []int32, v []float64) {
	sorted := true
	for i := 1; i < len(c); i++ {
		if c[i] < c[i-1] {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	idx := make([]int, len(c))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(c[a]) - int(c[b]) })
	cc, vv := append([]int32(nil), c...), append([]float64(nil), v...)
	for i, j := range idx {
		c[i], v[i] = cc[j], vv[j]
	}
}
