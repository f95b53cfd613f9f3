package main

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/result"
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

// TestVsInprocTwin: with -isolate=both, -vs accepts a vendor library's
// in-process results (NAME-inproc), which it refused as an unknown
// backend; without -isolate=both, or for a backend always in process, the
// name is refused in one line saying why.
func TestVsInprocTwin(t *testing.T) {
	c, err := parseFlags([]string{"-isolate=both", "-backend=go,openblas", "-vs=openblas-inproc"}, io.Discard)
	if err != nil || c.vs != "openblas-inproc" {
		t.Fatalf("-isolate=both -vs=openblas-inproc: %v", err)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-vs=openblas-inproc"}, "-vs: openblas-inproc (openblas run in process) exists with -isolate=both alone"},
		{[]string{"-isolate=off", "-vs=openblas-inproc"}, "exists with -isolate=both alone"},
		{[]string{"-isolate=both", "-vs=go-inproc"}, "-vs: go-inproc has no in-process twin"},
		{[]string{"-isolate=both", "-vs=nosuch-inproc"}, `-vs: unknown backend "nosuch-inproc"`},
		{[]string{"-isolate=both", "-backend=go", "-vs=openblas-inproc"}, "-vs: openblas is not among the -backend list (go)"},
	} {
		_, err := parseFlags(bad.args, io.Discard)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want a usage error saying %q", bad.args, err, bad.want)
		}
	}
}

// TestVsUnavailable: a -vs base that cannot open here fails the run at
// once, saying why, as a -backend list naming it does; with -backend=all
// the run went on and printed an empty column.
func TestVsUnavailable(t *testing.T) {
	infos := []result.BackendInfo{{Name: "go", Available: true}, {Name: "cublas", Reason: "cuda: libcudart not found"}}
	if err := vsAvailable("cublas", infos); err == nil || err.Error() != "-vs: backend cublas is not available: cuda: libcudart not found" {
		t.Errorf("vsAvailable: %v", err)
	}
	if err := vsAvailable("go", infos); err != nil {
		t.Errorf("an available base: %v", err)
	}
	if testing.Short() {
		t.Skip("opens every backend")
	}
	missing := ""
	for _, name := range []string{"cublas", "rocblas"} { // a GPU library this machine lacks
		f, err := backend.Lookup(name)
		if err != nil {
			continue
		}
		b, err := f.Open(backend.OpenOptions{})
		if err != nil {
			missing = name
			break
		}
		b.Close()
	}
	if missing == "" {
		t.Skip("every GPU library is available here")
	}
	_, stderr, code := runArgs(t, "-op=axpy", "-dtype=f32", "-size=256", "-threads=1", "-vs="+missing)
	if code != 1 || !strings.HasPrefix(stderr, "peakbench: -vs: backend "+missing+" is not available: ") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
