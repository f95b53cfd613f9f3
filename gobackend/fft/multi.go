package fft

import "github.com/peakbench/peakbench/gobackend/isa"

// Multi is a batch of 1-D or 2-D transforms over row-major data: each
// transform's rows of cols values one after another. A 2-D transform runs
// the rows' transform, then each column's, gathered into a buffer.
type Multi[C Complex] struct {
	batch, rows, cols int
	row               *Plan[C]
	cols2D            *columns[C]
}

// NewMulti returns the plan of batch transforms of rows×cols points (rows
// 1: 1-D), forward or inverse, each transform run on up to threads
// goroutines (NewPlan).
func NewMulti[C Complex](lvl isa.Level, batch, rows, cols int, inverse bool, threads int) *Multi[C] {
	return &Multi[C]{batch: batch, rows: rows, cols: cols, row: NewPlan[C](lvl, cols, inverse, threads),
		cols2D: newColumns[C](lvl, rows, inverse, threads)}
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
	m.cols2D.transform(y, m.batch, n)
}

// RealMulti is a batch of 1-D or 2-D forward real transforms over
// row-major data: each row of cols reals becomes cols/2+1 complex values
// (RealPlan), and a 2-D transform then runs each of those columns'
// complex transform: the first cols/2+1 columns of the full 2-D
// transform, the rest being their conjugates.
type RealMulti[R Real, C Complex] struct {
	batch, rows, cols int
	row               *RealPlan[R, C]
	cols2D            *columns[C]
}

// NewRealMulti returns the plan of batch real transforms of rows×cols
// points (rows 1: 1-D), each transform run on up to threads goroutines.
func NewRealMulti[R Real, C Complex](lvl isa.Level, batch, rows, cols, threads int) *RealMulti[R, C] {
	return &RealMulti[R, C]{batch: batch, rows: rows, cols: cols, row: NewRealPlan[R, C](lvl, cols, threads),
		cols2D: newColumns[C](lvl, rows, false, threads)}
}

// Kernel names the code the row transforms run (RealPlan.Kernel).
func (m *RealMulti[R, C]) Kernel() string { return m.row.Kernel() }

// Transform sets y (batch·rows·(cols/2+1) values) to the transforms of x
// (batch·rows·cols values).
func (m *RealMulti[R, C]) Transform(y []C, x []R) {
	n, half := m.cols, m.cols/2+1
	for r := range m.batch * m.rows {
		m.row.Transform(y[r*half:(r+1)*half], x[r*n:(r+1)*n])
	}
	m.cols2D.transform(y, m.batch, half)
}

// columns is the second pass of a 2-D transform: the transform of each
// column of rows values, gathered into a buffer and scattered back. It is
// nil for 1-D transforms (rows 1).
type columns[C Complex] struct {
	rows            int
	plan            *Plan[C]
	gather, scatter []C
}

func newColumns[C Complex](lvl isa.Level, rows int, inverse bool, threads int) *columns[C] {
	if rows <= 1 {
		return nil
	}
	return &columns[C]{rows: rows, plan: NewPlan[C](lvl, rows, inverse, threads), gather: make([]C, rows), scatter: make([]C, rows)}
}

// transform runs the columns of batch row-major arrays of rows×width
// values in y, in place.
func (c *columns[C]) transform(y []C, batch, width int) {
	if c == nil {
		return
	}
	pts := c.rows * width
	for b := range batch {
		t := y[b*pts : (b+1)*pts]
		for col := range width {
			for r := range c.rows {
				c.gather[r] = t[r*width+col]
			}
			c.plan.Transform(c.scatter, c.gather)
			for r, v := range c.scatter {
				t[r*width+col] = v
			}
		}
	}
}
