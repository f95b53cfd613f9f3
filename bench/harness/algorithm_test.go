package harness

import (
	"context"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
)

// multi offers two algorithms for convolutions; its kernels name the
// algorithm they were prepared with and an implementation.
type multi struct{ fake }

func (m *multi) Algorithms(w workload.Workload) []string {
	if w.Op.Kind() == workload.KindConv {
		return []string{"im2col+gemm", "direct"}
	}
	return nil
}

func (m *multi) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	k, err := m.fake.Prepare(w, in, cfg)
	if err != nil {
		return nil, err
	}
	return named{k.(*fakeKernel), cfg.Algorithm}, nil
}

type named struct {
	*fakeKernel
	alg string
}

func (n named) Algorithm() string { return n.alg }
func (n named) Implementation() string {
	if n.alg == "" {
		return ""
	}
	return "impl-" + n.alg
}

func TestAlgorithmVariants(t *testing.T) {
	m := &multi{fake{name: "m", perIter: 1000}}
	p := plan(m, &fake{name: "plain", perIter: 2000})
	sh, err := workload.ParseShape(workload.Conv2D, "1x3x8x8:4x3x3:p1")
	if err != nil {
		t.Fatal(err)
	}
	p.Workloads = append(p.Workloads, workload.Workload{Op: workload.Conv2D, DType: workload.F32, Shape: sh})
	p.Threads = []int{1}
	rs, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		if r.Op == "conv2d" {
			got = append(got, r.Series()+" "+r.Implementation)
			if !r.Verified {
				t.Errorf("%s: not verified", r.Series())
			}
		} else if r.Algorithm != "" || r.Implementation != "" {
			t.Errorf("%s %s: algorithm %q, implementation %q", r.Backend, r.Op, r.Algorithm, r.Implementation)
		}
	}
	want := []string{"m (im2col+gemm) impl-im2col+gemm", "m (direct) impl-direct", "plain "}
	if len(got) != len(want) {
		t.Fatalf("conv results %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d: %q, want %q", i, got[i], want[i])
		}
	}
	var algs []string
	for _, c := range m.cfgs {
		algs = append(algs, c.Algorithm)
	}
	if len(algs) != 4 || algs[2] != "im2col+gemm" || algs[3] != "direct" || algs[0] != "" {
		t.Errorf("Prepare saw algorithms %q", algs)
	}
}
