package sparsemat

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Header is what a Matrix Market file's banner says of its entries.
type Header struct {
	Field    string // real, integer or pattern (no values: each entry is 1)
	Symmetry string // general, or symmetric (the lower triangle stored, mirrored on reading)
}

// ReadFile reads a Matrix Market file (see Read). Errors name the file
// and, for its contents, the line.
func ReadFile(path string) (*CSR, Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Header{}, err
	}
	defer f.Close()
	m, h, err := Read(f)
	if err != nil {
		return nil, h, fmt.Errorf("%s: %v", path, err)
	}
	return m, h, nil
}

// Read reads a matrix in Matrix Market's coordinate format (the SuiteSparse
// collection's): field real, integer or pattern; symmetry general or
// symmetric, whose off-diagonal entries are stored once and mirrored here.
// A repeated entry, an index out of range, a count that disagrees with the
// entries (a truncated file) or anything else malformed is an error naming
// the line.
func Read(r io.Reader) (*CSR, Header, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	next := func() ([]byte, bool) {
		for sc.Scan() {
			line++
			t := bytes.TrimSpace(sc.Bytes())
			if len(t) > 0 && t[0] != '%' {
				return t, true
			}
			if line == 1 {
				return t, true // the banner
			}
		}
		return nil, false
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("line %d: "+format, append([]any{line}, a...)...)
	}
	banner, ok := next()
	if !ok {
		return nil, Header{}, readErr(sc, "empty file: no %%MatrixMarket banner")
	}
	h, err := parseBanner(string(banner))
	if err != nil {
		return nil, h, bad("%v", err)
	}
	sizeLine, ok := next()
	if !ok {
		return nil, h, readErr(sc, "no size line (rows columns entries) after the banner")
	}
	size := bytes.Fields(sizeLine)
	if len(size) != 3 {
		return nil, h, bad("size line %q: want rows, columns and entries", sizeLine)
	}
	var dims [3]int
	for i, f := range size {
		v, err := strconv.Atoi(string(f))
		if err != nil || v < 0 || (i < 2 && (v < 1 || v > math.MaxInt32)) {
			return nil, h, bad("size line %q: %q is not a count (rows and columns 1 to 2³¹−1)", sizeLine, f)
		}
		dims[i] = v
	}
	rows, cols, entries := dims[0], dims[1], dims[2]
	if h.Symmetry == "symmetric" && rows != cols {
		return nil, h, bad("a symmetric matrix must be square, this one is %d×%d", rows, cols)
	}
	if float64(entries) > float64(rows)*float64(cols) || entries > MaxNNZ {
		return nil, h, bad("%d entries cannot fit a %d×%d matrix with int32 indices", entries, rows, cols)
	}
	want := 3
	if h.Field == "pattern" {
		want = 2
	}
	capHint := min(entries, 1<<24)
	ri, ci, vals := make([]int32, 0, capHint), make([]int32, 0, capHint), make([]float64, 0, capHint)
	for e := 0; e < entries; e++ {
		t, ok := next()
		if !ok {
			return nil, h, readErr(sc, fmt.Sprintf("truncated: the size line declares %d entries, the file holds %d", entries, e))
		}
		f := bytes.Fields(t)
		if len(f) != want {
			return nil, h, bad("entry %q: want %d fields for a %s matrix", t, want, h.Field)
		}
		i, err1 := strconv.Atoi(string(f[0]))
		j, err2 := strconv.Atoi(string(f[1]))
		if err1 != nil || err2 != nil || i < 1 || i > rows || j < 1 || j > cols {
			return nil, h, bad("entry %q: indices must be 1 to %d and 1 to %d", t, rows, cols)
		}
		v := 1.0
		if want == 3 {
			if v, err = strconv.ParseFloat(string(f[2]), 64); err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, h, bad("entry %q: %q is not a finite number", t, f[2])
			}
			if h.Field == "integer" && v != math.Trunc(v) {
				return nil, h, bad("entry %q: %q is not an integer", t, f[2])
			}
		}
		if h.Symmetry == "symmetric" && j > i {
			return nil, h, bad("entry %q: above the diagonal in a symmetric matrix (only the lower triangle is stored)", t)
		}
		ri, ci, vals = append(ri, int32(i-1)), append(ci, int32(j-1)), append(vals, v)
		if h.Symmetry == "symmetric" && i != j {
			ri, ci, vals = append(ri, int32(j-1)), append(ci, int32(i-1)), append(vals, v)
		}
	}
	if extra, ok := next(); ok {
		return nil, h, bad("%q after the %d entries the size line declares", extra, entries)
	}
	if err := sc.Err(); err != nil {
		return nil, h, readErr(sc, "")
	}
	if len(ri) > MaxNNZ {
		return nil, h, fmt.Errorf("%d entries after mirroring, more than int32 indices reach", len(ri))
	}
	m, err := fromTriples(rows, cols, ri, ci, vals)
	if err != nil {
		return nil, h, err
	}
	return m, h, nil
}

// readErr is the error for input that ended early: the reader's own error
// when there is one, else what was missing.
func readErr(sc *bufio.Scanner, missing string) error {
	if err := sc.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%s", missing)
}

// parseBanner reads "%%MatrixMarket matrix coordinate FIELD SYMMETRY".
func parseBanner(s string) (Header, error) {
	f := strings.Fields(strings.ToLower(s))
	if len(f) != 5 || f[0] != "%%matrixmarket" || f[1] != "matrix" {
		return Header{}, fmt.Errorf("not a Matrix Market banner: %q (want %%%%MatrixMarket matrix coordinate real general)", s)
	}
	h := Header{Field: f[3], Symmetry: f[4]}
	switch {
	case f[2] != "coordinate":
		return h, fmt.Errorf("format %q: only the sparse coordinate format is read", f[2])
	case h.Field != "real" && h.Field != "integer" && h.Field != "pattern":
		return h, fmt.Errorf("field %q: real, integer and pattern are read", h.Field)
	case h.Symmetry != "general" && h.Symmetry != "symmetric":
		return h, fmt.Errorf("symmetry %q: general and symmetric are read", h.Symmetry)
	}
	return h, nil
}

// Write writes m as a general real coordinate Matrix Market file, entries
// in row order (tests make their fixtures with it).
func Write(w io.Writer, m *CSR) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", m.Rows, m.Cols, m.NNZ())
	for i := range m.Rows {
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			fmt.Fprintf(bw, "%d %d %s\n", i+1, m.ColIdx[p]+1, strconv.FormatFloat(m.Val[p], 'g', -1, 64))
		}
	}
	return bw.Flush()
}
