package main

import (
	"io"
	"slices"
	"testing"

	"github.com/peakbench/peakbench/bench/workload"
)

// TestParseFlagsOnceEach: a backend, op or dtype named twice is measured
// once, in its first place, as a thread count is: a second would be
// measured again and then dropped from the results (the sizes are made
// one in workload.ExpandSkipping, where 4Ki and 4096 are parsed).
func TestParseFlagsOnceEach(t *testing.T) {
	c, err := parseFlags([]string{"-backend=gonum,go,gonum", "-op=axpy,gemm,axpy", "-dtype=f64,f32,f64", "-threads=1,1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.backends, []string{"gonum", "go"}) ||
		!slices.Equal(c.selection.Ops, []workload.Op{workload.AXPY, workload.GEMM}) ||
		!slices.Equal(c.selection.DTypes, []workload.DType{workload.F64, workload.F32}) ||
		!slices.Equal(c.threads, []int{1}) {
		t.Errorf("backends %q, ops %q, dtypes %q, threads %v", c.backends, c.selection.Ops, c.selection.DTypes, c.threads)
	}
}

// TestParseFlagsMatrix: -matrix's files are the sparse ops' sizes, kept
// apart from -size's, which every op parses.
func TestParseFlagsMatrix(t *testing.T) {
	c, err := parseFlags([]string{"-matrix=a.mtx,b.mtx", "-size=64"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.selection.Sizes, []string{"64"}) || !slices.Equal(c.selection.Matrices, []string{"a.mtx", "b.mtx"}) {
		t.Errorf("sizes %q, matrices %q", c.selection.Sizes, c.selection.Matrices)
	}
}
