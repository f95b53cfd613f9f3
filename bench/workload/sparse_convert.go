package workload

import "fmt"

// The sparse format conversions, named as cuSPARSE names them, on the same
// matrices as spmv. COO here is sorted by row, so it shares CSR's values
// and column indices: csr2coo and coo2csr convert the row index array
// alone (cusparseXcsr2coo, Xcoo2csr), while csr2csc moves every value and
// index (cusparseCsr2cscEx2).
const (
	CSR2COO Op = "csr2coo" // CSR's row pointers → COO's row index per entry
	COO2CSR Op = "coo2csr" // COO's row-sorted row indices → CSR's row pointers
	CSR2CSC Op = "csr2csc" // CSR (values, columns, row pointers) → CSC (values, rows, column pointers)
)

// SparseConversions lists the conversions in the order reports show them.
var SparseConversions = []Op{CSR2COO, COO2CSR, CSR2CSC}

// SparseConversion reports whether op converts a sparse matrix between
// formats: no arithmetic, a memory-bound op whose output is exact.
func (op Op) SparseConversion() bool { return op == CSR2COO || op == COO2CSR || op == CSR2CSC }

// The conversions' output, which Output returns in float64 (indices are
// exact in it):
//
//	csr2coo  the row of each entry                         nnz
//	coo2csr  the row pointers                              rows+1
//	csr2csc  the values column by column, each one's row,  nnz + nnz + cols+1
//	         the column pointers; rows ascending within a column, as every
//	         library's counting sort leaves them
//
// Input: Data.Args[0] holds the values rounded to the dtype (csr2csc's
// only use of them); the pattern is SparseMatrix's, as for spmv.

// conversionOutputLen is OutputLen of a conversion.
func (w Workload) conversionOutputLen() int {
	s := w.Shape.Sparse
	switch w.Op {
	case CSR2COO:
		return s.NNZ
	case COO2CSR:
		return s.Rows + 1
	}
	return 2*s.NNZ + s.Cols + 1
}

// conversionIO is the bytes a conversion must read and write, each array
// once: indices and pointers are int32, values the dtype.
func (w Workload) conversionIO() (read, written float64) {
	s, size := w.Shape.Sparse, float64(w.DType.Size())
	nnz, rowPtr, colPtr := float64(s.NNZ), 4*float64(s.Rows+1), 4*float64(s.Cols+1)
	switch w.Op {
	case CSR2COO:
		return rowPtr, 4 * nnz
	case COO2CSR:
		return 4 * nnz, rowPtr
	}
	return (size+4)*nnz + rowPtr, (size+4)*nnz + colPtr
}

// conversionBytes is Bytes (and Footprint, EffectiveBytes) of a
// conversion: everything read and written once.
func (w Workload) conversionBytes() float64 {
	r, wr := w.conversionIO()
	return r + wr
}

// conversionElements counts the operands' elements, indices included.
func (w Workload) conversionElements() float64 {
	s := w.Shape.Sparse
	nnz := float64(s.NNZ)
	switch w.Op {
	case CSR2COO, COO2CSR:
		return nnz + float64(s.Rows+1)
	}
	return 4*nnz + float64(s.Rows+1) + float64(s.Cols+1)
}

// newConversionData is the values rounded to the dtype.
func (w Workload) newConversionData() Data {
	m := w.SparseMatrix()
	vals := make([]float64, len(m.Val))
	for i, v := range m.Val {
		vals[i] = w.DType.Round(v)
	}
	return Data{Alpha: 1, Args: [][]float64{vals}}
}

// ConversionReference is the conversion of d's matrix, laid out as
// Output returns it.
func (w Workload) ConversionReference(d Data) []float64 {
	m := w.SparseMatrix()
	out := make([]float64, 0, w.conversionOutputLen())
	switch w.Op {
	case CSR2COO:
		for i := range m.Rows {
			for range m.RowPtr[i+1] - m.RowPtr[i] {
				out = append(out, float64(i))
			}
		}
	case COO2CSR:
		for _, p := range m.RowPtr {
			out = append(out, float64(p))
		}
	case CSR2CSC:
		val, row, colPtr := transposeCSR(m.Rows, m.Cols, m.RowPtr, m.ColIdx, d.Args[0])
		out = append(append(append(out, val...), row...), colPtr...)
	}
	return out
}

// transposeCSR is the CSC form of a CSR matrix by a counting sort: rows
// ascend within each column.
func transposeCSR(rows, cols int, rowPtr, colIdx []int32, v []float64) (val, row, colPtr []float64) {
	next := make([]int, cols+1)
	for _, c := range colIdx {
		next[c+1]++
	}
	for c := range cols {
		next[c+1] += next[c]
	}
	colPtr = make([]float64, cols+1)
	for c, p := range next {
		colPtr[c] = float64(p)
	}
	val, row = make([]float64, len(colIdx)), make([]float64, len(colIdx))
	for i := range rows {
		for p := rowPtr[i]; p < rowPtr[i+1]; p++ {
			q := next[colIdx[p]]
			next[colIdx[p]]++
			val[q], row[q] = v[p], float64(i)
		}
	}
	return val, row, colPtr
}

// verifyConversion checks a conversion exactly, element by element, the
// order of the entries within each column included; a mismatch is named
// by the array it falls in.
func (w Workload) verifyConversion(d Data, out []float64) Check {
	ref := w.ConversionReference(d)
	c := Check{OK: true, Method: "exact"}
	for i, o := range out {
		if o == ref[i] {
			continue
		}
		c.OK, c.MaxRelErr = false, 1
		c.Detail = fmt.Sprintf("%s is %g, want %g", w.conversionElement(i), o, ref[i])
		return c
	}
	return c
}

// conversionElement names element i of a conversion's output.
func (w Workload) conversionElement(i int) string {
	nnz := w.Shape.Sparse.NNZ
	switch {
	case w.Op == CSR2COO:
		return fmt.Sprintf("row index %d", i)
	case w.Op == COO2CSR:
		return fmt.Sprintf("row pointer %d", i)
	case i < nnz:
		return fmt.Sprintf("CSC value %d", i)
	case i < 2*nnz:
		return fmt.Sprintf("CSC row index %d", i-nnz)
	}
	return fmt.Sprintf("column pointer %d", i-2*nnz)
}

// conversionHostBytes is HostBytes of a conversion: the float64 values,
// the matrix kept, each kernel's operands per set and its output copied
// back in float64, the reference.
func (w Workload) conversionHostBytes(kernels, sets int, reference bool) float64 {
	s := w.Shape.Sparse
	nnz := float64(s.NNZ)
	out := float64(w.conversionOutputLen())
	b := 8*nnz + 8*nnz + 4*nnz + 4*float64(s.Rows+1)
	b += float64(max(kernels, 0)) * (w.conversionBytes()*float64(max(sets, 1)) + 8*out)
	b += 8 * out
	if reference {
		b += w.Bytes()
	}
	return b
}
