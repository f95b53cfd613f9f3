package workload

import (
	"slices"
	"strings"
	"testing"
)

func conversion(t *testing.T, op Op, dt DType, size string) Workload {
	t.Helper()
	sh, err := ParseShape(op, size)
	if err != nil {
		t.Fatal(err)
	}
	w := Workload{op, dt, sh}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestConversionReference checks the three outputs on a 3×4 matrix worked
// by hand: rows 0: (0,1)=1 (0,3)=2; 1: empty; 2: (2,0)=3 (2,1)=4 (2,3)=5.
func TestConversionReference(t *testing.T) {
	w := conversion(t, CSR2CSC, F64, "uniform:rows=3:cols=4:nnz=5")
	m := w.SparseMatrix()
	saved := *m
	defer func() { *m = saved }() // the shared matrix, replaced here by the hand-worked one
	m.RowPtr, m.ColIdx, m.Val = []int32{0, 2, 2, 5}, []int32{1, 3, 0, 1, 3}, []float64{1, 2, 3, 4, 5}
	d := Data{Args: [][]float64{m.Val}}
	want := map[Op][]float64{
		CSR2COO: {0, 0, 2, 2, 2},
		COO2CSR: {0, 2, 2, 5},
		CSR2CSC: {3, 1, 4, 2, 5 /* rows: */, 2, 0, 2, 0, 2 /* column pointers: */, 0, 1, 3, 3, 5},
	}
	for op, v := range want {
		w.Op = op
		if got := w.ConversionReference(d); !slices.Equal(got, v) {
			t.Errorf("%s: %v, want %v", op, got, v)
		}
		if w.OutputLen() != len(v) {
			t.Errorf("%s: OutputLen %d, want %d", op, w.OutputLen(), len(v))
		}
	}
}

// TestConversionOrderMatters: entries of one column swapped (the same set,
// another order) fail, named by the array they are in.
func TestConversionOrderMatters(t *testing.T) {
	w := conversion(t, CSR2CSC, F32, "banded:n=50:bw=2")
	d := w.NewData(1)
	out := w.ConversionReference(d)
	if c := w.Verify(d, out); !c.OK || c.Method != "exact" {
		t.Fatalf("the reference itself: %+v", c)
	}
	nnz := w.Shape.Sparse.NNZ
	// Column 10 holds rows 8..12: swap its first two entries, value and row.
	p := int(out[2*nnz+10])
	out[p], out[p+1] = out[p+1], out[p]
	out[nnz+p], out[nnz+p+1] = out[nnz+p+1], out[nnz+p]
	c := w.Verify(d, out)
	if c.OK || !strings.Contains(c.Detail, "CSC value") {
		t.Errorf("swapped entries: %+v", c)
	}
}

func TestConversionBytes(t *testing.T) {
	// banded n=1000 bw=1: 2998 entries.
	for _, c := range []struct {
		op            Op
		dt            DType
		bytes, writes float64
	}{
		{CSR2COO, F32, 4*1001 + 4*2998, 4 * 2998},
		{COO2CSR, F64, 4*2998 + 4*1001, 4 * 1001},
		{CSR2CSC, F32, 2*8*2998 + 2*4*1001, 8*2998 + 4*1001},
		{CSR2CSC, F64, 2*12*2998 + 2*4*1001, 12*2998 + 4*1001},
	} {
		w := conversion(t, c.op, c.dt, "banded:n=1000:bw=1")
		if w.FLOPs() != 0 || w.Bytes() != c.bytes || w.Footprint() != c.bytes || w.EffectiveBytes() != c.bytes || w.WrittenBytes() != c.writes {
			t.Errorf("%s %s: FLOPs %g, bytes %g, footprint %g, effective %g, written %g; want 0, %g, %g, %g, %g",
				c.op, c.dt, w.FLOPs(), w.Bytes(), w.Footprint(), w.EffectiveBytes(), w.WrittenBytes(), c.bytes, c.bytes, c.bytes, c.writes)
		}
	}
}
