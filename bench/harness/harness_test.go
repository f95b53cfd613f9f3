package harness

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/measure"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/native"
)

// fake is a backend that computes the reference, optionally corrupted, and
// claims a fixed time per iteration.
type fake struct {
	name        string
	nonTemporal bool // its kernels say they store non-temporally
	corrupt     bool
	failOp      workload.Op
	only        workload.Op
	perIter     time.Duration
	cfgs        []backend.Config
	runs        [][]int // each kernel's Run calls, their iterations
}

func (f *fake) Name() string            { return f.name }
func (f *fake) Device() platform.Device { return platform.HostCPU() }
func (f *fake) Info() backend.Info      { return backend.Info{Version: "1.0"} }
func (f *fake) Close() error            { return nil }
func (f *fake) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	f.cfgs = append(f.cfgs, cfg)
	if f.only != "" && w.Op != f.only {
		return nil, backend.Unsupported(f.name, w)
	}
	if w.Op == f.failOp {
		return nil, errors.New("out of device memory\nsecond line")
	}
	out := w.Reference(in)
	if f.corrupt {
		out[0] += 1
	}
	if f.nonTemporal {
		return ntFakeKernel{&fakeKernel{out: out, perIter: f.perIter}}, nil
	}
	f.runs = append(f.runs, nil)
	return &fakeKernel{out: out, perIter: f.perIter, runs: &f.runs[len(f.runs)-1]}, nil
}

type ntFakeKernel struct{ *fakeKernel }

func (ntFakeKernel) NonTemporalStores() bool { return true }

type fakeKernel struct {
	out     []float64
	perIter time.Duration
	runs    *[]int // where its Run calls are recorded, if anywhere
}

func (k *fakeKernel) Run(iters int) (time.Duration, error) {
	if k.runs != nil {
		*k.runs = append(*k.runs, iters)
	}
	return time.Duration(iters) * k.perIter, nil
}
func (k *fakeKernel) Output() ([]float64, error) { return k.out, nil }
func (k *fakeKernel) Close() error               { return nil }

func plan(backends ...backend.Backend) Plan {
	opt := measure.DefaultOptions()
	opt.MinTime = time.Millisecond
	return Plan{
		Workloads: []workload.Workload{
			{Op: workload.GEMM, DType: workload.F32, Shape: workload.Shape{M: 8, N: 8, K: 8}},
			{Op: workload.AXPY, DType: workload.F64, Shape: workload.Shape{N: 1 << 19}},
		},
		Backends: backends,
		Threads:  []int{1, 2},
		Seed:     1,
		Measure:  opt,
		Machine:  peak.Machine{CPUs: 2, Caches: []peak.Cache{{Level: 1, Bytes: 32 << 10}, {Level: 2, Bytes: 1 << 20}, {Level: 3, Bytes: 32 << 20, SharedBy: 2}}},
		Peaks: peak.Peaks{
			Compute: []peak.ComputePeak{
				{DType: "f32", Threads: 1, TheoreticalGFLOPS: 100, EmpiricalGFLOPS: 90},
				{DType: "f32", Threads: 2, TheoreticalGFLOPS: 200, EmpiricalGFLOPS: 180},
				{DType: "f64", Threads: 1, TheoreticalGFLOPS: 50}, {DType: "f64", Threads: 2, TheoreticalGFLOPS: 100},
			},
			Bandwidth: []peak.BandwidthPeak{
				{Level: "L1", Threads: 1, GBPS: 300}, {Level: "L3", Threads: 1, GBPS: 80}, {Level: "DRAM", Threads: 1, GBPS: 20},
				{Level: "L1", Threads: 2, GBPS: 600}, {Level: "L3", Threads: 2, GBPS: 160}, {Level: "DRAM", Threads: 2, GBPS: 30},
			},
		},
	}
}

func TestExecute(t *testing.T) {
	good := &fake{name: "good", perIter: time.Microsecond}
	wrong := &fake{name: "wrong", corrupt: true, perIter: time.Microsecond}
	broken := &fake{name: "broken", failOp: workload.AXPY, perIter: time.Microsecond}
	gemmOnly := &fake{name: "gemmonly", only: workload.GEMM, perIter: time.Microsecond}
	var progress []int
	p := plan(good, wrong, broken, gemmOnly)
	p.Progress = func(done, total int, _ []result.Result) { progress = append(progress, done, total) }
	results, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	// 2 workloads × 2 thread counts × (4 backends, one skipping axpy).
	if len(results) != 14 {
		t.Fatalf("%d results, want 14", len(results))
	}
	if len(progress) != 8 || progress[6] != 4 || progress[7] != 4 {
		t.Errorf("progress calls %v", progress)
	}
	by := map[string][]result.Result{}
	for _, r := range results {
		by[r.Backend] = append(by[r.Backend], r)
	}
	for _, r := range by["good"] {
		if !r.Verified || r.Error != "" || r.MedianNS != 1000 || len(r.SamplesNS) < 10 {
			t.Errorf("good %s t=%d: verified %v err %q median %v samples %d", r.Op, r.Threads, r.Verified, r.Error, r.MedianNS, len(r.SamplesNS))
		}
	}
	g := by["good"][0] // gemm f32 8³, 1 thread: 1024 FLOP in 1 µs = 1.024 GFLOP/s of 100.
	if g.GFLOPS != 1.024 || g.Share.ComputeTheoretical != 1.024/100 || g.Share.ComputeEmpirical != 1.024/90 {
		t.Errorf("gemm: %v GFLOP/s, shares %+v", g.GFLOPS, g.Share)
	}
	a := by["good"][1] // axpy f64 512Ki, 1 thread: 12 MiB, lives in L3 (half of 32 MiB).
	if a.Op != "axpy" || a.Peak.BandwidthLevel != "L3" || a.Peak.Bound != "memory" || a.Peak.BandwidthGBPS != 80 {
		t.Errorf("axpy peak %+v", a.Peak)
	}
	for _, r := range by["wrong"] {
		if r.Verified || r.VerifyDetail == "" {
			t.Errorf("planted wrong result passed: %+v", r)
		}
	}
	for _, r := range by["broken"] {
		if r.Op == "axpy" && r.Error != "out of device memory" {
			t.Errorf("broken axpy error %q, want its first line", r.Error)
		}
	}
	if len(by["gemmonly"]) != 2 {
		t.Errorf("gemmonly has %d results, want 2 (axpy skipped)", len(by["gemmonly"]))
	}
	for _, c := range good.cfgs {
		if c.Copies != 1 {
			t.Errorf("hot run prepared with %d copies", c.Copies)
		}
	}
}

func TestColdCacheCopies(t *testing.T) {
	b := &fake{name: "b", perIter: time.Microsecond}
	p := plan(b)
	p.Cache = "cold"
	p.Threads = []int{1}
	results, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	// gemm f32 8³ is 768 B: 2 × 32 MiB of LLC would take 87382 sets, more
	// than MaxColdCopies, so it gets those and is marked partly hot; axpy
	// f64 of 512 Ki (12 MiB) gets 7 sets, 84 MiB.
	want := map[string]struct {
		copies  int
		partial bool
	}{"gemm": {MaxColdCopies, true}, "axpy": {7, false}}
	for i, c := range b.cfgs {
		op := string(p.Workloads[i].Op)
		if c.Copies != want[op].copies {
			t.Errorf("%s cold copies %d, want %d", op, c.Copies, want[op].copies)
		}
		// Every set once before the warm-up: the first run after the
		// verifying one is of Copies iterations.
		if runs := b.runs[i]; len(runs) < 2 || runs[1] != c.Copies {
			t.Errorf("%s: runs %v, want the second of %d iterations", op, runs[:min(len(runs), 3)], c.Copies)
		}
	}
	for _, r := range results {
		if r.Cache != "cold" || r.Peak.BandwidthLevel != "DRAM" {
			t.Errorf("cold result cache %q level %q", r.Cache, r.Peak.BandwidthLevel)
		}
		if w := want[r.Op]; r.BufferSets != w.copies || r.ColdPartial != w.partial {
			t.Errorf("%s: buffer_sets %d, cold_partial %v; want %d, %v", r.Op, r.BufferSets, r.ColdPartial, w.copies, w.partial)
		}
	}
}

// TestMaxColdCopiesIsTheCLayers: the harness asks no C kernel for more
// sets than the C layers take (a larger count failed every oneDNN and CBLAS
// kernel).
func TestMaxColdCopiesIsTheCLayers(t *testing.T) {
	if MaxColdCopies != native.MaxCopies {
		t.Errorf("MaxColdCopies %d, the C layers' bound %d", MaxColdCopies, native.MaxCopies)
	}
}

// TestColdCopiesBounded: a tiny workload's sets are held to MaxColdCopies,
// and a large one's, counted with the pages that place their buffers, to
// maxColdBytes; a hot-sized set never gets fewer than one.
func TestColdCopiesBounded(t *testing.T) {
	const llc = 768 << 20 // what a noisy sweep's largest level can say
	tiny := workload.Workload{Op: workload.Exp, DType: workload.F32, Shape: workload.Shape{N: 128}}
	if n := ColdCopies(tiny, llc); n != MaxColdCopies {
		t.Errorf("exp of 128: %d sets, want %d", n, MaxColdCopies)
	}
	mid := workload.Workload{Op: workload.Exp, DType: workload.F32, Shape: workload.Shape{N: 4096}} // 32 KiB a set
	if n := ColdCopies(mid, llc); float64(n)*coldSetBytes(mid) > maxColdBytes || float64(n+1)*coldSetBytes(mid) <= maxColdBytes {
		t.Errorf("exp of 4 Ki: %d sets of %v B allocated, want the most within %d B", n, coldSetBytes(mid), maxColdBytes)
	}
	huge := workload.Workload{Op: workload.AXPY, DType: workload.F64, Shape: workload.Shape{N: 1 << 28}} // 4 GiB
	if n := ColdCopies(huge, llc); n != 1 {
		t.Errorf("axpy of 256 Mi f64: %d sets, want 1", n)
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := plan(&fake{name: "b", perIter: time.Microsecond})
	p.Progress = func(done, _ int, _ []result.Result) {
		if done == 1 {
			cancel()
		}
	}
	results, err := Execute(ctx, p)
	if !errors.Is(err, measure.ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if len(results) != 1 {
		t.Errorf("%d results kept, want the 1 finished", len(results))
	}
}

// TestPatternCeilings checks that each workload is a share of the bandwidth
// measured with its own mix of loads and stores.
func TestPatternCeilings(t *testing.T) {
	p := plan(&fake{name: "good", perIter: time.Microsecond})
	p.Threads = []int{1}
	p.Workloads = []workload.Workload{
		{Op: workload.Sum, DType: workload.F32, Shape: workload.Shape{N: 1024}},
		{Op: workload.Add, DType: workload.F32, Shape: workload.Shape{N: 1024}},
		{Op: workload.ReLU, DType: workload.F32, Shape: workload.Shape{N: 1024}},
		{Op: workload.AXPY, DType: workload.F32, Shape: workload.Shape{N: 1024}},
		// 48 KiB of traffic, but x and y take 32 KiB: it runs from L1.
		{Op: workload.AXPY, DType: workload.F32, Shape: workload.Shape{N: 4096}},
	}
	p.Peaks.Bandwidth = append(p.Peaks.Bandwidth,
		peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternRead, Threads: 1, GBPS: 200},
		peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternCopy, Threads: 1, GBPS: 210},
		peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternUpdate, Threads: 1, GBPS: 280})
	results, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		pattern string
		gbps    float64
	}{"sum": {"read", 200}, "add": {"", 300}, "relu": {"copy", 210}, "axpy": {"update", 280}} // add: the triad, from a peak without a pattern
	for _, r := range results {
		w := want[r.Op]
		if r.Peak.BandwidthLevel != "L1" || r.Peak.BandwidthPattern != w.pattern || r.Peak.BandwidthGBPS != w.gbps {
			t.Errorf("%s: ceiling %s %q %g GB/s, want L1 %q %g", r.Op, r.Peak.BandwidthLevel, r.Peak.BandwidthPattern, r.Peak.BandwidthGBPS, w.pattern, w.gbps)
		}
	}
}

// TestCeilingOfLevelWithoutPeak: a working set whose level has no
// bandwidth peak on its thread count is a share of the nearest larger
// level's, its result saying so, not of DRAM's.
func TestCeilingOfLevelWithoutPeak(t *testing.T) {
	p := plan(&fake{name: "good", perIter: time.Microsecond})
	p.Threads = []int{1}
	p.Workloads = []workload.Workload{{Op: workload.Sum, DType: workload.F32, Shape: workload.Shape{N: 1024}}}
	p.Peaks.Caches = []peak.CacheLevel{
		{Level: "L1", Threads: 1, Found: true, BoundBytes: 64 << 10},
		{Level: "L3", Threads: 1, Found: true, BoundBytes: 32 << 20},
	}
	var bw []peak.BandwidthPeak
	for _, b := range p.Peaks.Bandwidth {
		if b.Level != "L1" {
			bw = append(bw, b)
		}
	}
	p.Peaks.Bandwidth = bw
	results, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Peak.BandwidthLevel != "L3" || r.Peak.BandwidthGBPS != 80 || !strings.Contains(r.Peak.BandwidthNote, "L1 has no") {
			t.Errorf("%s on %d thread: ceiling %s %g GB/s, note %q; want L3's 80, the note naming L1", r.Op, r.Threads, r.Peak.BandwidthLevel, r.Peak.BandwidthGBPS, r.Peak.BandwidthNote)
		}
	}
}

// TestNonTemporalCeiling: a kernel that stores non-temporally is a share
// of the non-temporal copy's bandwidth where that is the higher; another
// kernel of the same workload, of its own pattern's.
func TestNonTemporalCeiling(t *testing.T) {
	for _, c := range []struct {
		ntGBPS      float64
		wantPattern string
		wantGBPS    float64
	}{{250, peak.PatternCopyNT, 250}, {150, peak.PatternCopy, 210}} {
		p := plan(&fake{name: "plain", perIter: time.Microsecond}, &fake{name: "nt", nonTemporal: true, perIter: time.Microsecond})
		p.Threads = []int{1}
		p.Workloads = []workload.Workload{{Op: workload.ReLU, DType: workload.F32, Shape: workload.Shape{N: 1024}}}
		p.Peaks.Bandwidth = append(p.Peaks.Bandwidth,
			peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternCopy, Threads: 1, GBPS: 210},
			peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternCopyNT, Threads: 1, GBPS: c.ntGBPS})
		results, err := Execute(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			pattern, gbps := peak.PatternCopy, 210.0
			if r.Backend == "nt" {
				pattern, gbps = c.wantPattern, c.wantGBPS
			}
			if r.Peak.BandwidthPattern != pattern || r.Peak.BandwidthGBPS != gbps {
				t.Errorf("copy-nt at %g GB/s: %s's ceiling %q %g GB/s, want %q %g", c.ntGBPS, r.Backend, r.Peak.BandwidthPattern, r.Peak.BandwidthGBPS, pattern, gbps)
			}
		}
	}
}

// quantFake is fake declaring quantize and dequantize of i8.
type quantFake struct{ fake }

func (q *quantFake) Declared() backend.Support {
	return backend.Support{}.Add([]workload.DType{workload.I8}, workload.Quantize, workload.Dequantize)
}

// TestNonTemporalPatternChoice: a non-temporal kernel is compared with the
// non-temporal pattern nearest its stored share, recorded in the result and
// its JSON: dequantize (⅘ stored) with widen-nt, quantize (⅕) with copy-nt;
// a peaks file without widen-nt gives dequantize copy-nt.
func TestNonTemporalPatternChoice(t *testing.T) {
	for _, c := range []struct {
		op       workload.Op
		widenNT  bool // the peaks have widen-nt
		pattern  string
		wantGBPS float64
	}{
		{workload.Dequantize, true, peak.PatternWidenNT, 230},
		{workload.Dequantize, false, peak.PatternCopyNT, 250},
		{workload.Quantize, true, peak.PatternCopyNT, 250},
	} {
		p := plan(&quantFake{fake{name: "nt", nonTemporal: true, perIter: time.Microsecond}})
		p.Threads = []int{1}
		p.Workloads = []workload.Workload{{Op: c.op, DType: workload.I8, Shape: workload.Shape{N: 1024}}}
		p.Peaks.Bandwidth = append([]peak.BandwidthPeak(nil),
			peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternTriad, Threads: 1, GBPS: 200},
			peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternCopy, Threads: 1, GBPS: 210},
			peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternCopyNT, Threads: 1, GBPS: 250})
		if c.widenNT {
			p.Peaks.Bandwidth = append(p.Peaks.Bandwidth, peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternWidenNT, Threads: 1, GBPS: 230})
		}
		results, err := Execute(context.Background(), p)
		if err != nil || len(results) != 1 {
			t.Fatalf("%s: %d results, %v", c.op, len(results), err)
		}
		r := results[0]
		if r.Error != "" || r.Peak.BandwidthPattern != c.pattern || r.Peak.BandwidthGBPS != c.wantGBPS {
			t.Errorf("%s (widen-nt measured %v): ceiling %q %g GB/s (%s), want %q %g", c.op, c.widenNT, r.Peak.BandwidthPattern, r.Peak.BandwidthGBPS, r.Error, c.pattern, c.wantGBPS)
		}
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if want := `"bandwidth_pattern":"` + c.pattern + `"`; !strings.Contains(string(js), want) {
			t.Errorf("%s: JSON lacks %s: %s", c.op, want, js)
		}
	}
}

// TestReference checks the stream sampled beside memory-bound CPU
// workloads: a sum gets its share of a read stream of its bytes; a GEMM
// (compute-bound), a cold run and a plan without Reference get none.
func TestReference(t *testing.T) {
	sum := workload.Workload{Op: workload.Sum, DType: workload.F32, Shape: workload.Shape{N: 4096}}
	gemm := workload.Workload{Op: workload.GEMM, DType: workload.F32, Shape: workload.Shape{M: 64, N: 64, K: 64}}
	run := func(reference bool, cache string) []result.Result {
		p := plan(&fake{name: "good", perIter: time.Microsecond})
		p.Threads, p.Reference, p.Cache = []int{1}, reference, cache
		p.Workloads = []workload.Workload{sum, gemm}
		p.Peaks.Bandwidth = append(p.Peaks.Bandwidth, peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternRead, Threads: 1, GBPS: 200})
		results, err := Execute(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return results
	}
	for _, r := range run(true, "hot") {
		switch r.Op {
		case "sum":
			if r.Peak.ReferenceGBPS <= 0 || !strings.HasPrefix(r.Peak.Reference, "read Σ b[i] over 16 KiB on 1 thread") ||
				math.Abs(r.Share.Reference-r.GBPS/r.Peak.ReferenceGBPS) > 1e-12 {
				t.Errorf("sum: reference %q %g GB/s, share %g (%g GB/s)", r.Peak.Reference, r.Peak.ReferenceGBPS, r.Share.Reference, r.GBPS)
			}
		default:
			if r.Peak.ReferenceGBPS != 0 || r.Share.Reference != 0 {
				t.Errorf("%s (compute-bound) has a reference: %+v", r.Op, r.Peak)
			}
		}
	}
	for _, c := range []struct {
		reference bool
		cache     string
	}{{false, "hot"}, {true, "cold"}} {
		for _, r := range run(c.reference, c.cache) {
			if r.Peak.ReferenceGBPS != 0 {
				t.Errorf("reference=%v cache=%s: %s has a reference %+v", c.reference, c.cache, r.Op, r.Peak)
			}
		}
	}
}

// TestReferenceOutgrowsCache: a workload whose bytes and the reference's
// together outgrow the cache level it runs from gets no reference (each
// would evict the other between samples); one where both fit gets it.
func TestReferenceOutgrowsCache(t *testing.T) {
	sum := workload.Workload{Op: workload.Sum, DType: workload.F32, Shape: workload.Shape{N: 4096}} // 16 KiB
	for _, c := range []struct {
		effective int
		want      bool
	}{{48 << 10, true}, {24 << 10, false}} {
		p := plan(&fake{name: "good", perIter: time.Microsecond})
		p.Threads, p.Reference, p.Cache = []int{1}, true, "hot"
		p.Workloads = []workload.Workload{sum}
		p.Peaks.Caches = []peak.CacheLevel{{Level: "L1", Threads: 1, Found: true, EffectiveBytes: c.effective, BoundBytes: 64 << 10}}
		p.Peaks.Bandwidth = append(p.Peaks.Bandwidth, peak.BandwidthPeak{Level: "L1", Pattern: peak.PatternRead, Threads: 1, GBPS: 200})
		results, err := Execute(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if got := r.Peak.ReferenceGBPS > 0; got != c.want {
				t.Errorf("L1 of %d bytes, 32 KiB with the reference: has a reference %v, want %v", c.effective, got, c.want)
			}
		}
	}
}
