package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/peakbench/peakbench/bench/workload/sparsemat"
)

// The sparse operations: A is a sparse matrix in CSR form (values, int32
// column indices, int32 row pointers), x and X dense.
const (
	SpMV Op = "spmv" // y = A·x; A rows×cols
	SpMM Op = "spmm" // Y = A·X; X cols×k and Y rows×k, row-major
)

// SparseOps lists the sparse operations in the order reports show them.
var SparseOps = []Op{SpMV, SpMM}

// KindSparse is the kind of the sparse ops: a matrix (SparseShape).
const KindSparse Kind = 200

// Sparse reports whether op multiplies a sparse matrix (its shape is
// Shape.Sparse).
func (op Op) Sparse() bool { return op == SpMV || op == SpMM }

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

// SparseSyntax is -size's help for the sparse ops.
func SparseSyntax() string {
	return "spmv and spmm a matrix: banded:n=N:bw=B, uniform:n=N:nnz=Z (or density=D; rows= and cols= for a rectangle), powerlaw:n=N:nnz=Z, each with :seed=S (default 1), or mtx:FILE.mtx (-matrix); spmm adds :k=COLUMNS of X (default 8)"
}

// parseSparse reads a sparse -size: "GEN:key=value:…" or "mtx:PATH"
// (a value ending in .mtx alone is a path too). A file is read here, so a
// malformed one is an error of -size, before any work.
func parseSparse(op Op, s string) (Shape, error) {
	sh := SparseShape{Seed: 1}
	if op == SpMM {
		sh.K = DefaultSpMMColumns
	}
	gen, rest, _ := strings.Cut(s, ":")
	if strings.HasSuffix(s, ".mtx") && gen != MatrixFile {
		gen, rest = MatrixFile, s
	}
	sh.Gen = gen
	if gen == MatrixFile {
		path := rest
		if op == SpMM {
			if p, k, ok := strings.Cut(rest, ":k="); ok && !strings.Contains(k, "/") {
				v, err := ParseCount(k)
				if err != nil {
					return Shape{}, fmt.Errorf("size %q: k: %v", s, err)
				}
				path, sh.K = p, v
			}
		}
		if path == "" {
			return Shape{}, fmt.Errorf("size %q: mtx: names no file", s)
		}
		m, err := readMatrixFile(path)
		if err != nil {
			return Shape{}, err
		}
		sh.Path, sh.Rows, sh.Cols, sh.NNZ = path, m.Rows, m.Cols, m.NNZ()
		return Shape{Sparse: sh}, nil
	}
	if !slices.Contains(sparsemat.Kinds, sparsemat.Kind(gen)) {
		return Shape{}, fmt.Errorf("size %q: %s takes a matrix: %s", s, op, SparseSyntax())
	}
	var density float64
	for _, kv := range strings.Split(rest, ":") {
		key, val, ok := strings.Cut(kv, "=")
		if !ok {
			return Shape{}, fmt.Errorf("size %q: %q is not key=value", s, kv)
		}
		var v int
		var err error
		if !slices.Contains([]string{"n", "rows", "cols", "nnz", "density", "bw", "seed", "k"}, key) {
			return Shape{}, fmt.Errorf("size %q: unknown parameter %q (n, rows, cols, nnz, density, bw, seed, k)", s, key)
		}
		switch key {
		case "density":
			density, err = strconv.ParseFloat(val, 64)
			if err != nil || !(density > 0 && density <= 1) {
				return Shape{}, fmt.Errorf("size %q: density %q must be in (0, 1]", s, val)
			}
			continue
		case "seed":
			if sh.Seed, err = strconv.ParseUint(val, 10, 64); err != nil {
				return Shape{}, fmt.Errorf("size %q: seed %q is not a whole number", s, val)
			}
			continue
		case "bw":
			if v, err = strconv.Atoi(val); err != nil || v < 0 {
				return Shape{}, fmt.Errorf("size %q: bw %q must be 0 or more", s, val)
			}
		default:
			if v, err = ParseCount(val); err != nil {
				return Shape{}, fmt.Errorf("size %q: %s: %v", s, key, err)
			}
		}
		switch key {
		case "n":
			sh.Rows, sh.Cols = v, v
		case "rows":
			sh.Rows = v
		case "cols":
			sh.Cols = v
		case "nnz":
			sh.NNZ = v
		case "bw":
			sh.BW = v
		case "k":
			if op != SpMM {
				return Shape{}, fmt.Errorf("size %q: k (X's columns) applies to spmm only", s)
			}
			sh.K = v
		}
	}
	if density > 0 {
		sh.NNZ = max(1, int(math.Round(density*float64(sh.Rows)*float64(sh.Cols))))
	}
	if err := sh.spec().Validate(); err != nil {
		return Shape{}, fmt.Errorf("size %q: %v", s, err)
	}
	sh.NNZ = sh.spec().CountNNZ()
	return Shape{Sparse: sh}, nil
}

// formatSparse writes a sparse shape as parseSparse reads it, every
// parameter given (the seed too) and counts in Ki/Mi where exact.
func (s SparseShape) format(op Op) string {
	var b strings.Builder
	if s.Gen == MatrixFile {
		b.WriteString(MatrixFile + ":" + s.Path)
	} else {
		b.WriteString(s.Gen)
		if s.Rows == s.Cols {
			b.WriteString(":n=" + formatCount(s.Rows))
		} else {
			b.WriteString(":rows=" + formatCount(s.Rows) + ":cols=" + formatCount(s.Cols))
		}
		if s.Gen == string(sparsemat.Banded) {
			b.WriteString(":bw=" + strconv.Itoa(s.BW))
		} else {
			b.WriteString(":nnz=" + formatCount(s.NNZ))
		}
		b.WriteString(":seed=" + strconv.FormatUint(s.Seed, 10))
	}
	if op == SpMM {
		b.WriteString(":k=" + strconv.Itoa(s.K))
	}
	return b.String()
}

// formatCount writes n with the largest of Ki, Mi, Gi that divides it.
func formatCount(n int) string {
	for _, u := range []struct {
		s string
		v int
	}{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if n >= u.v && n%u.v == 0 {
			return strconv.Itoa(n/u.v) + u.s
		}
	}
	return strconv.Itoa(n)
}

// MatrixName is a short name of the matrix for tables: the file's base
// name, or the shape.
func (s SparseShape) MatrixName() string {
	if s.Gen == MatrixFile {
		return filepath.Base(s.Path)
	}
	return s.format(SpMV)
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
	if err != nil {
		return nil, fmt.Errorf("-matrix %v", err)
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
		return fmt.Errorf("%s: %s holds %.0f elements, more than the %d this harness allocates", w.Op, w.Shape.Format(w.Op), n, maxElements)
	}
	return nil
}

// sparseElements counts the values, x (or X) and y (or Y).
func (w Workload) sparseElements() float64 {
	s, k := w.Shape.Sparse, float64(w.denseColumns())
	return float64(s.NNZ) + float64(s.Cols)*k + float64(s.Rows)*k
}

// sparseFLOPs is 2·nnz per column of X: one multiply and one add per entry.
func (w Workload) sparseFLOPs() float64 {
	return 2 * float64(w.Shape.Sparse.NNZ) * float64(w.denseColumns())
}

// sparseBytes is the compulsory traffic, whatever the matrix's format:
// each value, x (or X) once, y (or Y) written once. It leaves out the
// indices: CSR's column indices and row pointers are its format's, and a
// format that needs fewer (a band's diagonals in SELL, MKL's optimized
// handle) moved less than a bound counting them, which the model check
// then took for a wrong peak. EffectiveBytes counts them.
func (w Workload) sparseBytes() float64 {
	s, size, k := w.Shape.Sparse, float64(w.DType.Size()), float64(w.denseColumns())
	return float64(s.NNZ)*size + float64(s.Cols)*k*size + float64(s.Rows)*k*size
}

// sparseFootprint is the operands as every backend receives them: Bytes
// and CSR's column indices and row pointers.
func (w Workload) sparseFootprint() float64 {
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
	s, size, k := w.Shape.Sparse, float64(w.DType.Size()), float64(w.denseColumns())
	return float64(s.NNZ)*(size+4) + float64(s.Rows+1)*4 + float64(s.NNZ)*k*size + float64(s.Rows)*k*size
}

// newSparseData is the values rounded to the dtype (Args[0]) and x, or X
// (Args[1]), uniform in [−1, 1) from seed.
func (w Workload) newSparseData(seed uint64) Data {
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
