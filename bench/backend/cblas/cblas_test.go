package cblas_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/backend/cblas"
	"github.com/peakbench/peakbench/bench/workload"
	cgocblas "github.com/peakbench/peakbench/cgo/cblas"
)

func TestConformance(t *testing.T) {
	for _, name := range cgocblas.Names() {
		t.Run(name, func(t *testing.T) {
			b := backendtest.Open(t, name)
			info := b.Info()
			t.Logf("%s %s %v", name, info.Version, info.Details)
			if info.Version == "" || info.Details["path"] == "" {
				t.Errorf("Info() = %+v; want a version and a path", info)
			}
			if !b.Device().IsHost() {
				t.Errorf("Device() = %q", b.Device())
			}
			backendtest.Run(t, b)
		})
	}
}

func TestUnsupported(t *testing.T) {
	b := backendtest.Open(t, "openblas")
	w := workload.Workload{Op: workload.Exp, DType: workload.F32, Shape: workload.Shape{N: 8}}
	if _, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1}); !isUnsupported(err) {
		t.Errorf("openblas exp: err = %v; want ErrUnsupported", err)
	}
	m := backendtest.Open(t, "mkl")
	w.Op = workload.Sigmoid
	if _, err := m.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1}); !isUnsupported(err) {
		t.Errorf("mkl sigmoid: err = %v; want ErrUnsupported", err)
	}
}

func TestThreads(t *testing.T) {
	b := backendtest.Open(t, "openblas")
	w := workload.Workload{Op: workload.Dot, DType: workload.F64, Shape: workload.Shape{N: 8}}
	for _, n := range []int{-1, 10000} {
		if _, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: n, Copies: 1}); err == nil {
			t.Errorf("threads %d: no error", n)
		}
	}
	for _, f := range cgocblas.Families() {
		if !f.OneThread {
			continue
		}
		b := backendtest.Open(t, f.Name)
		_, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 2, Copies: 1})
		if !isUnsupported(err) || !errors.Is(err, backend.ErrUnsupportedShape) {
			t.Errorf("%s threads 2: err = %v; want ErrUnsupportedShape", f.Name, err)
		}
	}
}

// TestAxpyAccumulates checks the harness's contract: Output after Run(1)
// right after Prepare is alpha·x + y.
func TestAxpyAccumulates(t *testing.T) {
	b := backendtest.Open(t, "openblas")
	w := workload.Workload{Op: workload.AXPY, DType: workload.F64, Shape: workload.Shape{N: 5}}
	d := w.NewData(3)
	k, err := b.Prepare(w, d, backend.Config{Threads: 1, Copies: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if _, err := k.Run(1); err != nil {
		t.Fatal(err)
	}
	out, err := k.Output()
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range d.Args[0] {
		if want := d.Alpha*x + d.Args[1][i]; out[i] != want {
			t.Errorf("y[%d] = %g; want %g", i, out[i], want)
		}
	}
}

// TestRegistered: one backend per row of the C layer's table, described
// by its row, which every row has.
func TestRegistered(t *testing.T) {
	fams := cgocblas.Families()
	for _, want := range []string{"openblas", "blis", "mkl", "netlib"} {
		if !slices.ContainsFunc(fams, func(f cgocblas.Family) bool { return f.Name == want }) {
			t.Errorf("no %s row in %v", want, cgocblas.Names())
		}
	}
	for _, f := range fams {
		got, err := backend.Lookup(f.Name)
		if err != nil {
			t.Error(err)
			continue
		}
		if f.Description == "" || got.Description != f.Description {
			t.Errorf("%s: description %q, row's %q", f.Name, got.Description, f.Description)
		}
	}
	var _ backend.Backend = (*cblas.Backend)(nil)
}

func isUnsupported(err error) bool {
	return err != nil && errors.Is(err, backend.ErrUnsupported)
}
