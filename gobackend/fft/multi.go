package fft

import "github.com/peakbench/peakbench/gobackend/isa"

// Multi is a batch of 1-D or 2-D transforms over row-major data: each
// transform's rows of cols values one after another. A 2-D transform runs
// the rows' transform, then each column's, gathered into a buffer.
type Multi[C Complex] struct {
	batch, rows, cols int
	row, col          *Plan[C]
	gather, scatter   []C
}

// NewMulti returns the plan of batch transforms of rows×cols points (rows
// 1: 1-D), forward or inverse.
func NewMulti[C Complex](lvl isa.Level, batch, rows, cols int, inverse bool) *Multi[C] {
	m := &Multi[C]{batch: batch, rows: rows, cols: cols, row: NewPlan[C](lvl, cols, inverse)}
	if rows > 1 {
		m.col = NewPlan[C](lvl, rows, inverse)
		m.gather, m.scatter = make([]C, rows), make([]C, rows)
	}
	return m
}

// Kernel names the code the row transforms run (Plan.Kernel).
func (m *Multi[C]) Kernel() string { return m.row.Kernel() }

// Transform sets y to the transforms of x (batch·rows·cols values each,
// not overlapping).
func (m *Multi[C]) Transform(y, x []C) {
	n := m.cols
	for r := range m.batch * m.rows {
		m.row.Transform(y[r*n:(r+1)*n], x[r*n:(r+1)*n])
	}
	if m.col == nil {
		return
	}
	pts := m.rows * n
	for b := range m.batch {
		t := y[b*pts : (b+1)*pts]
		for c := range n {
			for r := range m.rows {
				m.gather[r] = t[r*n+c]
			}
			m.col.Transform(m.scatter, m.gather)
			for r, v := range m.scatter {
				t[r*n+c] = v
			}
		}
	}
}
