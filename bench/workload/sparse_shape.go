package workload

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/peakbench/peakbench/bench/workload/sparsemat"
)

// How a sparse workload's matrix is written in -size and in results.

// SparseSyntax is -size's help for the sparse ops.
func SparseSyntax() string {
	return "spmv, spmm and the conversions (csr2coo, coo2csr, csr2csc) a matrix: banded:n=N:bw=B, uniform:n=N:nnz=Z (or density=D; rows= and cols= for a rectangle), powerlaw:n=N:nnz=Z, each with :seed=S (default 1), or mtx:FILE.mtx (-matrix); spmm adds :k=COLUMNS of X (default 8)"
}

// parseSparse reads a sparse -size: "GEN:key=value:…" or "mtx:PATH"
// (a value ending in .mtx alone is a path too). A file is read here, so a
// malformed one is an error of -size or -matrix, before any work.
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
