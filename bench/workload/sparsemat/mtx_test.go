package sparsemat

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteReadRoundTrip(t *testing.T) {
	m := Spec{Kind: Uniform, Rows: 37, Cols: 23, NNZ: 200, Seed: 1}.Generate()
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.mtx")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, h, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.Field != "real" || h.Symmetry != "general" || got.Rows != 37 || got.Cols != 23 {
		t.Errorf("header %+v, %d×%d", h, got.Rows, got.Cols)
	}
	if !slices.Equal(got.RowPtr, m.RowPtr) || !slices.Equal(got.ColIdx, m.ColIdx) || !slices.Equal(got.Val, m.Val) {
		t.Error("the matrix read back differs from the one written")
	}
}

func TestReadSymmetricPatternUnsorted(t *testing.T) {
	src := "%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n\n3 3 4\n3 1\n1 1\n2 1\n3 3\n"
	m, h, err := Read(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if h.Field != "pattern" || m.NNZ() != 6 {
		t.Fatalf("%+v: %d entries, want 6", h, m.NNZ())
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	want := []int32{0, 1, 2, 0, 0, 2} // row 0: 0 1 2; row 1: 0; row 2: 0 2
	if !slices.Equal(m.ColIdx, want) || !slices.Equal(m.RowPtr, []int32{0, 3, 4, 6}) {
		t.Errorf("rows %v columns %v", m.RowPtr, m.ColIdx)
	}
}

func TestReadIntegerField(t *testing.T) {
	m, _, err := Read(strings.NewReader("%%MatrixMarket matrix coordinate integer general\n2 3 2\n1 3 -4\n2 1 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Val, []float64{-4, 7}) {
		t.Errorf("values %v", m.Val)
	}
}

func TestReadErrors(t *testing.T) {
	const banner = "%%MatrixMarket matrix coordinate real general\n"
	cases := []struct{ name, src, want string }{
		{"empty", "", "empty file"},
		{"no banner", "3 3 1\n1 1 1\n", "not a Matrix Market banner"},
		{"array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "coordinate"},
		{"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "complex"},
		{"skew", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", "skew-symmetric"},
		{"no size", banner, "no size line"},
		{"bad size", banner + "3 x 1\n", "not a count"},
		{"truncated", banner + "3 3 3\n1 1 1\n2 2 2\n", "truncated: the size line declares 3 entries, the file holds 2"},
		{"cut mid-line", banner + "3 3 2\n1 1 1\n2 2\n", "want 3 fields"},
		{"out of range", banner + "3 3 1\n4 1 1\n", "indices must be 1 to 3"},
		{"not a number", banner + "3 3 1\n1 1 abc\n", "not a finite number"},
		{"duplicate", banner + "3 3 2\n1 1 1\n1 1 2\n", "appears twice"},
		{"extra", banner + "3 3 1\n1 1 1\n2 2 2\n", "after the 1 entries"},
		{"symmetric non-square", "%%MatrixMarket matrix coordinate real symmetric\n3 2 1\n1 1 1\n", "must be square"},
		{"upper in symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1\n", "above the diagonal"},
		{"integer field", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n", "not an integer"},
	}
	for _, c := range cases {
		_, _, err := Read(strings.NewReader(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.mtx")
	os.WriteFile(path, []byte("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n"), 0o644)
	_, _, err := ReadFile(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("error %v does not start with the path", err)
	}
}

func TestMulVecMulMat(t *testing.T) {
	m := Spec{Kind: Banded, Rows: 6, Cols: 6, BW: 1, Seed: 1}.Generate()
	x := []float64{1, 2, 3, 4, 5, 6}
	y, _ := m.MulVec(x)
	y2, _ := m.MulMat(x, 1)
	for i := range m.Rows {
		var want float64
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			want += m.Val[p] * x[m.ColIdx[p]]
		}
		if y[i] != want || y2[i] != want {
			t.Errorf("row %d: %v and %v, want %v", i, y[i], y2[i], want)
		}
	}
}
