package peak

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestRaise checks the merge of a second measurement: an undisturbed
// figure of the same level, pattern and thread count that passes the first
// replaces it; a disturbed, slower or other thread count's does not.
func TestRaise(t *testing.T) {
	p := Peaks{Bandwidth: []BandwidthPeak{
		{Level: "L2", Pattern: "read", Threads: 2, GBPS: 100, Source: "first"},
		{Level: "L2", Pattern: "copy", Threads: 2, GBPS: 100, Source: "first"},
		{Level: "L3", Pattern: "read", Threads: 2, GBPS: 50, Source: "first"},
		{Level: "L3", Pattern: "read", Threads: 1, GBPS: 30, Source: "first"},
	}}
	fresh := Peaks{Bandwidth: []BandwidthPeak{
		{Level: "L2", Pattern: "read", Threads: 2, GBPS: 180, Source: "again", Spread: 0.01},
		{Level: "L2", Pattern: "copy", Threads: 2, GBPS: 190, Source: "again", Disturbed: true},
		{Level: "L3", Pattern: "read", Threads: 2, GBPS: 45, Source: "again"},
		{Level: "L3", Pattern: "read", Threads: 1, GBPS: 60, Source: "again"},
	}}
	got := p.raise(fresh, 2)
	if want := []Raised{{Level: "L2", Pattern: "read", Threads: 2, From: 100, To: 180}}; !slices.Equal(got, want) {
		t.Fatalf("raised %+v, want %+v", got, want)
	}
	if b := p.Bandwidth[0]; b.GBPS != 180 || b.Spread != 0.01 || !strings.HasPrefix(b.Source, "again; measured again after the workloads") || !strings.Contains(b.Source, "100 GB/s") {
		t.Errorf("raised figure %+v", b)
	}
	for _, b := range p.Bandwidth[1:] {
		if b.Source != "first" {
			t.Errorf("%s %s ×%d replaced: %+v", b.Level, b.Pattern, b.Threads, b)
		}
	}
}

// TestRemeasure measures the peaks, lowers every bandwidth figure to a
// tenth, as a host slowed for the whole measurement would, and measures
// again: each figure comes back up, at its level's working set, and the
// levels stay as they were.
func TestRemeasure(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks twice")
	}
	m := DetectMachine()
	p, err := Measure(context.Background(), m, Options{Threads: []int{1}, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	first := slices.Clone(p.Bandwidth)
	caches := slices.Clone(p.Caches)
	for i := range p.Bandwidth {
		p.Bandwidth[i].GBPS /= 10
	}
	raised, err := Remeasure(context.Background(), m, &p, []int{1}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Caches, caches) {
		t.Errorf("levels changed: %+v, were %+v", p.Caches, caches)
	}
	if len(raised) == 0 {
		t.Fatal("nothing raised from a tenth of the first figures")
	}
	for i, b := range p.Bandwidth {
		was := first[i]
		if b.Level != was.Level || b.Pattern != was.Pattern || b.WorkingSet != was.WorkingSet {
			t.Errorf("figure %d is %s %s over %d B, was %s %s over %d B", i, b.Level, b.Pattern, b.WorkingSet, was.Level, was.Pattern, was.WorkingSet)
		}
		if b.GBPS > was.GBPS/10 && !strings.Contains(b.Source, "measured again") {
			t.Errorf("%s %s: %.1f GB/s without saying it was measured again: %q", b.Level, b.Pattern, b.GBPS, b.Source)
		}
	}
	t.Logf("raised %d of %d figures", len(raised), len(p.Bandwidth))
}

// TestRaiseCompute: a new figure of a kernel raises every peak of its
// thread count that kernel set (f32 and bf16 on the FMA kernel), once per
// unit in what it returns, and leaves other kernels, other thread counts
// and figures it does not pass alone.
func TestRaiseCompute(t *testing.T) {
	p := Peaks{Compute: []ComputePeak{
		{DType: "f32", Unit: UnitFMA, Threads: 2, EmpiricalGFLOPS: 200, Kernel: "fma-zmm"},
		{DType: "bf16", Unit: UnitFMA, Threads: 2, EmpiricalGFLOPS: 200, Kernel: "fma-zmm"},
		{DType: "f64", Unit: UnitFMA, Threads: 2, EmpiricalGFLOPS: 100, Kernel: "fma-zmm-f64"},
		{DType: "f32", Unit: UnitFMA, Threads: 1, EmpiricalGFLOPS: 200, Kernel: "fma-zmm"},
		{DType: "i8", Unit: UnitAVX512VNNI, Threads: 2, EmpiricalGFLOPS: 1700, Kernel: "dpbusd-zmm"},
	}}
	got := p.raiseCompute("fma-zmm", 2, 420)
	if want := []RaisedCompute{{Unit: UnitFMA, Kernel: "fma-zmm", Threads: 2, From: 200, To: 420}}; !slices.Equal(got, want) {
		t.Fatalf("raised %+v, want %+v", got, want)
	}
	for _, c := range p.Compute[:2] {
		if c.EmpiricalGFLOPS != 420 || !strings.HasPrefix(c.Kernel, "fma-zmm; measured again after the workloads") || !strings.Contains(c.Kernel, "200 GFLOP/s") {
			t.Errorf("%s ×%d: %+v", c.DType, c.Threads, c)
		}
	}
	for _, c := range p.Compute[2:] {
		if strings.Contains(c.Kernel, "measured again") {
			t.Errorf("%s %s ×%d raised: %+v", c.DType, c.Unit, c.Threads, c)
		}
	}
	if got := p.raiseCompute("dpbusd-zmm", 2, 1500); len(got) != 0 || p.Compute[4].EmpiricalGFLOPS != 1700 {
		t.Errorf("a slower figure raised %+v: %+v", got, p.Compute[4])
	}
}

// TestRemeasureCompute runs the f32 FMA kernel again over a figure far
// below what any machine reaches, on one thread: it comes back raised,
// and a kernel this build does not have is passed over.
func TestRemeasureCompute(t *testing.T) {
	m := DetectMachine()
	k := fmaKernelFor("f32", m.SIMDBits)
	p := Peaks{Compute: []ComputePeak{
		{DType: "f32", Unit: UnitFMA, Threads: 1, EmpiricalGFLOPS: 1e-3, Kernel: k.name},
		{DType: "f32", Unit: UnitFMA, Threads: 1, EmpiricalGFLOPS: 1e-3, Kernel: "no-such-kernel"},
	}}
	raised, err := RemeasureCompute(context.Background(), m, &p, []ComputeKernel{{Kernel: k.name, Threads: 1}, {Kernel: "no-such-kernel", Threads: 1}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(raised) != 1 || raised[0].From != 1e-3 || raised[0].To <= 1e-3 || p.Compute[0].EmpiricalGFLOPS != raised[0].To {
		t.Fatalf("raised %+v, peaks %+v", raised, p.Compute)
	}
	if p.Compute[1].EmpiricalGFLOPS != 1e-3 {
		t.Errorf("an unknown kernel's figure changed: %+v", p.Compute[1])
	}
	t.Logf("%s on 1 thread: %.1f GFLOP/s", k.name, raised[0].To)
}
