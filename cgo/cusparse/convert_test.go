//go:build cgo

package cusparse_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cusparse"
	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

// TestConversions: the three conversions of a 3×4 matrix worked by hand,
// rows 0: (0,1)=1 (0,3)=2; 1: empty; 2: (2,0)=3 (2,1)=4 (2,3)=5, in f32
// and f64 over several buffer copies; csr2csc's rows and column pointers
// read back as the job's other outputs.
func TestConversions(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	lib, err := cusparse.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	rowPtr := []int32{0, 2, 2, 5}
	colIdx := []int32{1, 3, 0, 1, 3}
	vals := []float64{1, 2, 3, 4, 5}
	for _, op := range []cusparse.Conversion{cusparse.CSR2COO, cusparse.COO2CSR, cusparse.CSR2CSC} {
		if !lib.HasConversion(op) {
			t.Errorf("the fake cuSPARSE lacks %s", op)
		}
	}
	for _, dt := range []gpurt.DType{gpurt.F32, gpurt.F64} {
		for _, c := range []struct {
			op   cusparse.Conversion
			call string
			want []float64
		}{
			{cusparse.CSR2COO, "cusparseXcsr2coo", []float64{0, 0, 2, 2, 2}},
			{cusparse.COO2CSR, "cusparseXcoo2csr", []float64{0, 2, 2, 5}},
			{cusparse.CSR2CSC, "cusparseCsr2cscEx2", []float64{3, 1, 4, 2, 5}},
		} {
			job, err := lib.PrepareConversion(c.op, dt, 3, 4, rowPtr, colIdx, gpurt.JobOptions{Copies: 3})
			if err != nil {
				t.Fatalf("%s %v: %v", c.op, dt, err)
			}
			if c.op == cusparse.CSR2CSC {
				if err := job.SetInput(cusparse.ConvertInVal, vals); err != nil {
					t.Fatal(err)
				}
			}
			// Three iterations, one per copy, and the latest's output.
			if d, err := job.Run(3); err != nil || d <= 0 {
				t.Fatalf("%s %v: Run: %v, %v", c.op, dt, d, err)
			}
			got, err := job.Output()
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("%s %v: %v, %v; want %v (%s)", c.op, dt, got, err, c.want, job)
			}
			if !strings.Contains(job.String(), c.call+" int32 3×4 nnz=5") {
				t.Errorf("%s: job %s", c.op, job)
			}
			if c.op == cusparse.CSR2CSC {
				rows, err := job.ArgOutput(cusparse.ConvertOutIdx)
				if err != nil || !slices.Equal(rows, []float64{2, 0, 2, 0, 2}) {
					t.Errorf("%v CSC rows: %v, %v", dt, rows, err)
				}
				ptr, err := job.ArgOutput(cusparse.ConvertOutPtr)
				if err != nil || !slices.Equal(ptr, []float64{0, 1, 3, 3, 5}) {
					t.Errorf("%v CSC column pointers: %v, %v", dt, ptr, err)
				}
				if !strings.Contains(job.String(), "numeric, algorithm 1") {
					t.Errorf("job %s", job)
				}
			}
			job.Close()
		}
	}
}

// TestConversionRefusals: what PrepareConversion refuses before the
// library sees it.
func TestConversionRefusals(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	lib, err := cusparse.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	rowPtr, colIdx := []int32{0, 2, 2, 5}, []int32{1, 3, 0, 1, 3}
	for _, c := range []struct {
		name           string
		op             cusparse.Conversion
		rowPtr, colIdx []int32
		want           string
	}{
		{"pointers fall", cusparse.CSR2COO, []int32{0, 3, 2, 5}, colIdx, "below the one before"},
		{"pointers end short", cusparse.COO2CSR, []int32{0, 2, 2, 4}, colIdx, "row pointers"},
		{"column past the end", cusparse.CSR2CSC, rowPtr, []int32{1, 3, 0, 1, 4}, "column index 4 outside [0, 4)"},
		{"no such conversion", cusparse.Conversion(3), rowPtr, colIdx, "no conversion 3"},
	} {
		if _, err := lib.PrepareConversion(c.op, gpurt.F32, 3, 4, c.rowPtr, c.colIdx, gpurt.JobOptions{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}
