package workload

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sync"

	"github.com/peakbench/peakbench/bench/workload/sparsemat"
)

// The sparse operations: A is a sparse matrix in CSR form (values, int32
// column indices, int32 row pointers), x and X dense.
const (
	SpMV Op = "spmv" // y = A·x; A rows×cols
	SpMM Op = "spmm" // Y = A·X; X cols×k and Y rows×k, row-major
)

// SparseOps lists the sparse operations in the order reports show them:
// the products, then the format conversions (sparse_convert.go).
var SparseOps = append([]Op{SpMV, SpMM}, SparseConversions...)

// KindSparse is the kind of the sparse ops: a matrix (SparseShape).
const KindSparse Kind = 300

// Sparse reports whether op works on a sparse matrix, a product or a
// conversion (its shape is Shape.Sparse).
func (op Op) Sparse() bool { return op == SpMV || op == SpMM || op.SparseConversion() }

// MatrixFile is SparseShape.Gen for a matrix read from a Matrix Market
// file.
const MatrixFile = "mtx"

// DefaultSpMMColumns is X's columns when an spmm size does not say (k=).
const DefaultSpMMColumns = 8

// SparseShape is a sparse workload's matrix: generated (Gen a
// sparsemat.Kind, with its parameters and seed) or read from a Matrix
// Market file (Gen "mtx", Path; Rows, Cols and NNZ as read). Everything
// that makes the matrix is in it, so a result's shape string alone makes
// the same matrix again. K is X's columns (spmm).
type SparseShape struct {
	Gen             string
	Path            string
	Rows, Cols, NNZ int
	BW              int
	Seed            uint64
	K               int
}

// spec is the generator's Spec of a generated matrix.
func (s SparseShape) spec() sparsemat.Spec {
	return sparsemat.Spec{Kind: sparsemat.Kind(s.Gen), Rows: s.Rows, Cols: s.Cols, NNZ: s.NNZ, BW: s.BW, Seed: s.Seed}
}

// The matrices made so far, by shape (K and the file's counts aside): each
// generated or read once per process, however many dtypes, ops and
// backends use it.
var (
	matricesMu sync.Mutex
	matrices   = map[SparseShape]*sparsemat.CSR{}
)

func matrixKey(s SparseShape) SparseShape {
	if s.Gen == MatrixFile {
		return SparseShape{Gen: s.Gen, Path: s.Path}
	}
	s.K = 0
	return s
}

// readMatrixFile reads path once and keeps it.
func readMatrixFile(path string) (*sparsemat.CSR, error) {
	key := SparseShape{Gen: MatrixFile, Path: path}
	matricesMu.Lock()
	defer matricesMu.Unlock()
	if m, ok := matrices[key]; ok {
		return m, nil
	}
	m, _, err := sparsemat.ReadFile(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("%s: %v", path, pe.Err) // "a.mtx: no such file or directory", not "open a.mtx: …"
	}
	if err != nil {
		return nil, err // it names the file; the caller names the flag
	}
	matrices[key] = m
	return m, nil
}

// SparseMatrix is a sparse workload's matrix: its pattern (RowPtr,
// ColIdx), which every backend's kernel takes as it is, and its values
// in float64 (Data.Args[0] holds them rounded to the dtype). Shared: not
// to be modified.
func (w Workload) SparseMatrix() *sparsemat.CSR {
	s := w.Shape.Sparse
	if s.Gen == MatrixFile {
		m, err := readMatrixFile(s.Path)
		if err != nil {
			panic(fmt.Sprintf("workload: the matrix file read at parsing is gone: %v", err))
		}
		return m
	}
	key := matrixKey(s)
	matricesMu.Lock()
	defer matricesMu.Unlock()
	m, ok := matrices[key]
	if !ok {
		m = s.spec().Generate()
		matrices[key] = m
	}
	return m
}

// denseColumns is X's columns: 1 for spmv.
func (w Workload) denseColumns() int {
	if w.Op == SpMM {
		return w.Shape.Sparse.K
	}
	return 1
}

func (w Workload) validateSparse() error {
	s := w.Shape.Sparse
	if s.Rows < 1 || s.Cols < 1 || s.NNZ < 1 {
		return fmt.Errorf("%s: matrix %s: %d×%d with %d entries: rows, columns and entries must be at least 1", w.Op, s.MatrixName(), s.Rows, s.Cols, s.NNZ)
	}
	if w.Op == SpMM && s.K < 1 {
		return fmt.Errorf("spmm: k=%d: X needs at least one column", s.K)
	}
	if n := w.sparseElements(); n > maxElements {
		return fmt.Errorf("%s: %s holds %s", w.Op, w.Shape.Format(w.Op), tooManyElements(n))
	}
	return nil
}

// sparseElements counts the values, x (or X) and y (or Y); a
// conversion's operands, indices included.
func (w Workload) sparseElements() float64 {
	if w.Op.SparseConversion() {
		return w.conversionElements()
	}
	s, k := w.Shape.Sparse, float64(w.denseColumns())
	return float64(s.NNZ) + float64(s.Cols)*k + float64(s.Rows)*k
}

// sparseFLOPs is 2·nnz per column of X: one multiply and one add per entry.
// A conversion does no arithmetic: 0.
func (w Workload) sparseFLOPs() float64 {
	if w.Op.SparseConversion() {
		return 0
	}
	return 2 * float64(w.Shape.Sparse.NNZ) * float64(w.denseColumns())
}

// sparseBytes is the compulsory traffic, whatever the matrix's format:
// each value, x (or X) once, y (or Y) written once. It leaves out the
// indices: CSR's column indices and row pointers are its format's, and a
// format that needs fewer (a band's diagonals in SELL, MKL's optimized
// handle) moved less than a bound counting them, which the model check
// then took for a wrong peak. EffectiveBytes counts them.
// A conversion's is every array it reads and writes (conversionIO).
func (w Workload) sparseBytes() float64 {
	if w.Op.SparseConversion() {
		return w.conversionBytes()
	}
	s, size, k := w.Shape.Sparse, float64(w.DType.Size()), float64(w.denseColumns())
	return float64(s.NNZ)*size + float64(s.Cols)*k*size + float64(s.Rows)*k*size
}

// sparseFootprint is the operands as every backend receives them: Bytes
// and CSR's column indices and row pointers.
func (w Workload) sparseFootprint() float64 {
	if w.Op.SparseConversion() {
		return w.conversionBytes()
	}
	s := w.Shape.Sparse
	return w.sparseBytes() + 4*float64(s.NNZ) + 4*float64(s.Rows+1)
}

// EffectiveBytes is a sparse workload's traffic in CSR when no element of
// x is reused from the caches: the values, column indices and row
// pointers, x (each of X's rows) once per entry, y. A result's effective
// GB/s is this over its time: where x stays in the caches a kernel moves
// less, and between this and Bytes lies what it did. 0 for the other ops.
func (w Workload) EffectiveBytes() float64 {
	if !w.Op.Sparse() {
		return 0
	}
	if w.Op.SparseConversion() {
		return w.conversionBytes() // the indices are its data: Bytes counts them
	}
	s, size, k := w.Shape.Sparse, float64(w.DType.Size()), float64(w.denseColumns())
	return float64(s.NNZ)*(size+4) + float64(s.Rows+1)*4 + float64(s.NNZ)*k*size + float64(s.Rows)*k*size
}

// newSparseData is the values rounded to the dtype (Args[0]) and x, or X
// (Args[1]), uniform in [−1, 1) from seed.
// A conversion's is the values alone.
func (w Workload) newSparseData(seed uint64) Data {
	if w.Op.SparseConversion() {
		return w.newConversionData()
	}
	m := w.SparseMatrix()
	vals := make([]float64, len(m.Val))
	for i, v := range m.Val {
		vals[i] = w.DType.Round(v)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(len(w.Op))<<32^uint64(w.DType.Size())))
	x := make([]float64, m.Cols*w.denseColumns())
	for i := range x {
		x[i] = w.DType.Round(2*rng.Float64() - 1)
	}
	return Data{Alpha: 1, Args: [][]float64{vals, x}}
}

// sparseReference is A·x (A·X) with each element's Σ|a||x|; a row of r
// entries sums r products, so the tolerance is that of gemv's dot
// products over the longest row.
func (w Workload) sparseReference(d Data) (ref, scale []float64, tolULPs float64) {
	m := *w.SparseMatrix()
	m.Val = d.Args[0]
	if w.Op == SpMM {
		ref, scale = m.MulMat(d.Args[1], w.Shape.Sparse.K)
	} else {
		ref, scale = m.MulVec(d.Args[1])
	}
	return ref, scale, float64(m.MaxRowNNZ()) + 2
}

// sparseHostBytes is HostBytes for a sparse workload: the float64 inputs,
// the matrix kept (values in float64, indices), each kernel's copies of
// the values, indices, x and y, the reference and its scales.
func (w Workload) sparseHostBytes(kernels, sets int, reference bool) float64 {
	if w.Op.SparseConversion() {
		return w.conversionHostBytes(kernels, sets, reference)
	}
	s, size, k := w.Shape.Sparse, float64(w.DType.Size()), float64(w.denseColumns())
	nnz, in, out := float64(s.NNZ), float64(s.Cols)*k, float64(s.Rows)*k
	index := 4*nnz + 4*float64(s.Rows+1)
	b := 8*(nnz+in) + 8*nnz + index
	b += float64(max(kernels, 0)) * ((size*(nnz+in+out)+index)*float64(max(sets, 1)) + 8*out)
	b += 16 * out
	if reference {
		b += w.Bytes()
	}
	return b
}
