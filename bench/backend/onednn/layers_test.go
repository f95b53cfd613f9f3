package onednn_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/workload"
)

func layer(t *testing.T, op workload.Op, dt workload.DType, spec string) workload.Workload {
	t.Helper()
	sh, err := workload.ParseShape(op, spec)
	if err != nil {
		t.Fatal(err)
	}
	return workload.Workload{Op: op, DType: dt, Shape: sh}
}

// TestLayers: the algorithm and implementation a convolution reports, and
// the layer workloads oneDNN 2.x cannot run.
func TestLayers(t *testing.T) {
	b := backendtest.Open(t, "onednn")
	w := layer(t, workload.Conv2D, workload.F32, "1x16x14x14:32x3x3:p1:nhwc")
	k, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 2, Copies: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	alg, impl := backend.AlgorithmOf(k, ""), backend.ImplementationOf(k)
	if alg != "auto" || impl == "" || impl == "unknown" {
		t.Errorf("algorithm %q, implementation %q", alg, impl)
	}
	t.Logf("conv2d %s: %s", w.Shape.Format(w.Op), impl)
	if got := b.(backend.BackendAlgorithms).Algorithms(w); len(got) != 1 || got[0] != "auto" {
		t.Errorf("Algorithms = %v", got)
	}
	for _, c := range []struct {
		w    workload.Workload
		want string
	}{
		{layer(t, workload.GroupNorm, workload.F32, "1x8x4x4:g2"), "group normalization"},
		{layer(t, workload.AdaptiveAvgPool, workload.F32, "1x8x7x7:3x3"), "multiple"},
		{layer(t, workload.Conv2D, workload.F64, "1x8x7x7:8x3x3"), "f64"},
	} {
		_, err := b.Prepare(c.w, c.w.NewData(1), backend.Config{Threads: 1, Copies: 1})
		if !errors.Is(err, backend.ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v; want ErrUnsupported mentioning %q", c.w, err, c.want)
		}
	}
	if _, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1, Algorithm: "fft"}); err == nil {
		t.Error("unknown algorithm accepted")
	}
}
