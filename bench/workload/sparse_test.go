package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/workload/sparsemat"
)

// sparseF32 is A·X in float32 arithmetic, each row summed in order.
func sparseF32(w Workload, d Data) []float64 {
	if w.Op.SparseConversion() {
		return w.ConversionReference(d) // exact in any type
	}
	m, k := w.SparseMatrix(), w.denseColumns()
	out := make([]float64, w.OutputLen())
	for i := range m.Rows {
		for j := range k {
			var acc float32
			for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
				acc += float32(d.Args[0][p]) * float32(d.Args[1][int(m.ColIdx[p])*k+j])
			}
			out[i*k+j] = float64(acc)
		}
	}
	return out
}

func TestSparseShapeRoundTrip(t *testing.T) {
	cases := []struct {
		op       Op
		in, want string
	}{
		{SpMV, "banded:n=1Mi:bw=16", "banded:n=1Mi:bw=16:seed=1"},
		{SpMV, "uniform:n=65536:nnz=1048576:seed=7", "uniform:n=64Ki:nnz=1Mi:seed=7"},
		{SpMV, "uniform:rows=1000:cols=300:density=0.01", "uniform:rows=1000:cols=300:nnz=3000:seed=1"},
		{SpMM, "powerlaw:n=4Ki:nnz=64Ki", "powerlaw:n=4Ki:nnz=64Ki:seed=1:k=8"},
		{SpMM, "banded:n=100:bw=2:k=3", "banded:n=100:bw=2:seed=1:k=3"},
	}
	for _, c := range cases {
		sh, err := ParseShape(c.op, c.in)
		if err != nil {
			t.Fatalf("%s %s: %v", c.op, c.in, err)
		}
		if got := sh.Format(c.op); got != c.want {
			t.Errorf("%s %s: formats as %s, want %s", c.op, c.in, got, c.want)
		}
		again, err := ParseShape(c.op, sh.Format(c.op))
		if err != nil || again != sh {
			t.Errorf("%s %s: read back as %+v (%v), want %+v", c.op, c.in, again, err, sh)
		}
	}
}

func TestSparseShapeErrors(t *testing.T) {
	for _, c := range []struct {
		op       Op
		in, want string
	}{
		{SpMV, "1024", "takes a matrix"},
		{SpMV, "banded:n=10:bw=x", "bw"},
		{SpMV, "uniform:n=10:nnz=101", "nnz=101"},
		{SpMV, "uniform:n=10:density=2", "density"},
		{SpMV, "uniform:n=10:nnz=5:k=3", "spmm only"},
		{SpMV, "banded:rows=10:cols=12:bw=1", "square"},
		{SpMV, "uniform:n=10:nnz=5:color=red", "unknown parameter"},
		{SpMV, "mtx:/nonexistent/a.mtx", "no such file"},
	} {
		if _, err := ParseShape(c.op, c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want one containing %q", c.op, c.in, err, c.want)
		}
	}
}

func TestSparseFromFile(t *testing.T) {
	dir := t.TempDir()
	m := sparsemat.Spec{Kind: sparsemat.Uniform, Rows: 50, Cols: 40, NNZ: 300, Seed: 2}.Generate()
	path := filepath.Join(dir, "small.mtx")
	f, _ := os.Create(path)
	if err := sparsemat.Write(f, m); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, spec := range []string{"mtx:" + path, path} {
		sh, err := ParseShape(SpMV, spec)
		if err != nil {
			t.Fatal(err)
		}
		w := Workload{SpMV, F64, sh}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		if sh.Sparse.Rows != 50 || sh.Sparse.Cols != 40 || sh.Sparse.NNZ != 300 || w.OutputLen() != 50 {
			t.Errorf("%s: %+v", spec, sh.Sparse)
		}
		if sh.Format(SpMV) != "mtx:"+path || sh.Sparse.MatrixName() != "small.mtx" {
			t.Errorf("%s: formats as %s, named %s", spec, sh.Format(SpMV), sh.Sparse.MatrixName())
		}
		if d := w.NewData(1); len(d.Args[0]) != 300 || d.Args[0][7] != m.Val[7] || len(d.Args[1]) != 40 {
			t.Errorf("%s: data does not hold the file's values and x", spec)
		}
	}
	sh, err := ParseShape(SpMM, "mtx:"+path+":k=4")
	if err != nil || sh.Sparse.K != 4 || sh.Format(SpMM) != "mtx:"+path+":k=4" {
		t.Errorf("spmm from a file: %+v, %v", sh.Sparse, err)
	}
	os.WriteFile(filepath.Join(dir, "cut.mtx"), []byte("%%MatrixMarket matrix coordinate real general\n5 5 3\n1 1 1\n"), 0o644)
	_, err = ParseShape(SpMV, filepath.Join(dir, "cut.mtx"))
	if err == nil || !strings.Contains(err.Error(), "truncated") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a truncated file: %v; want one line saying so", err)
	}
}

func TestSparseCounts(t *testing.T) {
	sh, _ := ParseShape(SpMV, "banded:n=1000:bw=2")
	w := Workload{SpMV, F64, sh}
	nnz := 1000*5 - 2*3
	if sh.Sparse.NNZ != nnz || w.FLOPs() != float64(2*nnz) {
		t.Errorf("nnz %d, FLOPs %v; want %d, %d", sh.Sparse.NNZ, w.FLOPs(), nnz, 2*nnz)
	}
	want := float64(nnz*8 + 1000*8 + 1000*8)
	if w.Bytes() != want || w.Footprint() != want+float64(nnz*4+1001*4) {
		t.Errorf("bytes %v, footprint %v; want %v and the indices", w.Bytes(), w.Footprint(), want)
	}
	if got, want := w.EffectiveBytes(), float64(nnz*12+1001*4+nnz*8+1000*8); got != want {
		t.Errorf("effective bytes %v, want %v", got, want)
	}
	mm := Workload{SpMM, F32, Shape{Sparse: SparseShape{Gen: "banded", Rows: 1000, Cols: 1000, BW: 2, NNZ: nnz, Seed: 1, K: 4}}}
	if mm.FLOPs() != float64(8*nnz) || mm.OutputLen() != 4000 || mm.WrittenBytes() != 16000 {
		t.Errorf("spmm: FLOPs %v, output %d, written %v", mm.FLOPs(), mm.OutputLen(), mm.WrittenBytes())
	}
}

func TestSparseDataIsSeeded(t *testing.T) {
	sh, _ := ParseShape(SpMV, "uniform:n=500:nnz=5000:seed=3")
	w := Workload{SpMV, F32, sh}
	a, b, c := w.NewData(1), w.NewData(1), w.NewData(2)
	for i := range a.Args[1] {
		if a.Args[1][i] != b.Args[1][i] {
			t.Fatal("the same seed gave different x")
		}
		if a.Args[1][i] != float64(float32(a.Args[1][i])) || a.Args[0][i%5000] != float64(float32(a.Args[0][i%5000])) {
			t.Fatal("f32 data not exact in f32")
		}
	}
	if a.Args[1][0] == c.Args[1][0] && a.Args[1][1] == c.Args[1][1] {
		t.Error("seeds 1 and 2 gave the same x")
	}
}

// TestExpandMatrices: -matrix's files are sizes of the sparse ops alone,
// with no -size their only ones; the other ops keep the suite's or
// -size's, and a selection with no sparse op refuses them.
func TestExpandMatrices(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "small.mtx")
	const small = "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 2\n3 1 -1\n3 3 0.5\n"
	if err := os.WriteFile(path, []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	shapes := func(sel Selection) (map[Op][]string, error) {
		ws, err := Expand(sel)
		got := map[Op][]string{}
		for _, w := range ws {
			if w.DType == F32 {
				got[w.Op] = append(got[w.Op], w.Shape.Format(w.Op))
			}
		}
		return got, err
	}
	got, err := shapes(Selection{Suite: "quick", Matrices: []string{path}}) // -op=all
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range SparseOps {
		if want := "mtx:" + path; len(got[op]) != 1 || got[op][0] != want && got[op][0] != want+":k=8" {
			t.Errorf("-op=all: %s: %q, want the file alone", op, got[op])
		}
	}
	if fmt.Sprint(got[GEMM]) != "[256x256x256 512x512x512]" || fmt.Sprint(got[AXPY]) != "[262144]" {
		t.Errorf("-op=all: gemm %q, axpy %q; want the suite's", got[GEMM], got[AXPY])
	}
	got, err = shapes(Selection{Ops: []Op{SpMV, AXPY}, Sizes: []string{"1Ki"}, Matrices: []string{path}})
	if err == nil {
		t.Errorf("-size=1Ki applied to spmv: %q", got)
	}
	got, err = shapes(Selection{Ops: []Op{SpMV, AXPY}, Sizes: []string{"banded:n=64:bw=1"}, Matrices: []string{path}})
	if err == nil || !strings.Contains(err.Error(), "axpy") {
		t.Errorf("a matrix -size applied to axpy: %q, %v", got, err)
	}
	got, err = shapes(Selection{Ops: []Op{SpMV}, Sizes: []string{"banded:n=64:bw=1"}, Matrices: []string{path, path}})
	if want := "[banded:n=64:bw=1:seed=1 mtx:" + path + "]"; err != nil || fmt.Sprint(got[SpMV]) != want {
		t.Errorf("-size and -matrix: %q, %v; want %s", got[SpMV], err, want)
	}
	for _, c := range []struct {
		sel  Selection
		want string
	}{
		{Selection{Ops: []Op{GEMM, AXPY}, Matrices: []string{path}}, "-matrix: matrix files are sizes of the sparse ops (spmv, spmm, csr2coo"},
		{Selection{DTypes: []DType{I8}, Matrices: []string{path}}, "-matrix: matrix files are sizes of the sparse ops"},
		{Selection{Ops: []Op{SpMV}, Matrices: []string{filepath.Join(dir, "none.mtx")}}, "-matrix: " + filepath.Join(dir, "none.mtx") + ": no such file or directory"},
	} {
		if _, err := Expand(c.sel); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v %v: error %v, want one starting %q", c.sel.Ops, c.sel.DTypes, err, c.want)
		}
	}
}
