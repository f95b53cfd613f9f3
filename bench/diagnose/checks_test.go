package diagnose

import (
	"math"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

// modelRun is a machine with every level measured (read pattern), and a
// GPU, for the model check's cases.
func modelRun() *result.Run {
	return &result.Run{
		Format: result.Format,
		Machine: peak.Machine{Vendor: "GenuineIntel", Arch: "amd64", CPUs: 2, Cores: 2, SIMDBits: 256, FMAUnits: 2,
			Caches: []peak.Cache{{Level: 1, Bytes: 48 << 10}, {Level: 2, Bytes: 2 << 20}, {Level: 3, Bytes: 480 << 20, SharedBy: 2}}},
		Peaks: peak.Peaks{
			Compute: []peak.ComputePeak{
				{DType: "f32", Threads: 1, TheoreticalGFLOPS: 130, EmpiricalGFLOPS: 131, ClockGHz: 4.06, FLOPsPerCycle: 32,
					Formula: "1 thread × 4.06 GHz × 32 FLOP/cycle (2 FMA × 8 f32 lanes × 2)", Kernel: "fma-avx2"},
				{DType: "f32", Threads: 2, TheoreticalGFLOPS: 260, EmpiricalGFLOPS: 250, ClockGHz: 4.06, FLOPsPerCycle: 32, Formula: "2 threads × 4.06 GHz × 32"},
			},
			Bandwidth: []peak.BandwidthPeak{
				{Level: "L1", Pattern: "read", Threads: 1, GBPS: 300, WorkingSet: 16 << 10},
				{Level: "L2", Pattern: "read", Threads: 1, GBPS: 160, WorkingSet: 1536 << 10},
				{Level: "L3", Pattern: "read", Threads: 1, GBPS: 45, WorkingSet: 60 << 20},
				{Level: "DRAM", Pattern: "read", Threads: 1, GBPS: 20, WorkingSet: 1 << 30},
				{Level: "L1", Pattern: "read", Threads: 2, GBPS: 600}, {Level: "DRAM", Pattern: "read", Threads: 2, GBPS: 30},
			},
			GPUs: []peak.GPUPeaks{{GPU: peak.GPU{Device: "cuda:0 Test GPU"},
				Compute:   []peak.ComputePeak{{DType: "f32", TheoreticalGFLOPS: 50000, Formula: "132 SMs × 1.98 GHz × 256 FLOP/SM/clk"}},
				Bandwidth: []peak.BandwidthPeak{{Level: "DRAM", Pattern: "copy", GBPS: 3000}}}},
		},
		Env:      result.Env{NoiseTarget: 0.03},
		Backends: []result.BackendInfo{{Name: "asm", Device: "cpu", Available: true}},
	}
}

// planted makes a verified result of gflops (compute-bound: intensity 100)
// or of gbps (memory-bound: the intensity of a read, ¼ FLOP/B) against the
// run's ceilings of its level.
func planted(run *result.Run, name, op, device, level string, threads int, rate, spread float64) result.Result {
	r := result.Result{Backend: name, Device: device, Op: op, DType: "f32", Shape: "256", Threads: threads, Cache: "hot",
		Verified: true, Spread: spread, MedianNS: 1000}
	var compute peak.ComputePeak
	var bw peak.BandwidthPeak
	if device == "cpu" {
		compute, _ = run.Peaks.ComputeFor("f32", threads)
		bw, _ = run.Peaks.PatternBandwidthFor(level, "read", threads)
	} else {
		g, _ := run.Peaks.GPU(device)
		compute, _ = g.ComputeFor("f32")
		bw, _ = g.BandwidthFor("DRAM")
	}
	if level == "" { // compute-bound
		r.Intensity, r.GFLOPS = 100, rate
		r.GBPS = rate / 100
	} else {
		r.Intensity, r.GBPS = 0.25, rate
		r.GFLOPS = rate * 0.25
		r.Footprint = 1 << 20
	}
	r.FLOPs, r.Bytes = r.GFLOPS*r.MedianNS, r.GBPS*r.MedianNS
	r.Ceilings(compute, bw)
	return r
}

func TestModelCheckCatchesPlantedResults(t *testing.T) {
	run := modelRun()
	run.Results = []result.Result{
		planted(run, "mkl", "gemm", "cpu", "", 1, 1.46*130, 0.01),       // 0: above the compute peak
		planted(run, "within", "gemm", "cpu", "", 1, 1.04*130, 0.05),    // 1: above, within its 5% noise
		planted(run, "hair", "gemm", "cpu", "", 1, 1.015*130, 0),        // 2: zero spread, within the 2% floor
		planted(run, "flat", "gemm", "cpu", "", 1, 1.03*130, 0),         // 3: zero spread, above the floor
		planted(run, "l3", "sum", "cpu", "L3", 1, 90, 0.01),             // 4: 2× the L3 peak, within L2's
		planted(run, "l1", "sum", "cpu", "L1", 1, 400, 0.01),            // 5: above the fastest level
		planted(run, "gpu", "gemm", "cuda:0 Test GPU", "", 0, 60000, 0), // 6: above the GPU's peak
		planted(run, "below", "gemm", "cpu", "", 1, 100, 0.01),          // 7: below
	}
	wrong := planted(run, "wrong", "gemm", "cpu", "", 1, 500, 0.01)
	wrong.Verified = false
	failed := result.Result{Backend: "failed", Device: "cpu", Op: "gemm", Error: "boom"}
	run.Results = append(run.Results, wrong, failed)

	errs := CheckModel(run)
	got := map[string]result.ModelError{}
	for _, e := range errs {
		got[e.Backend] = e
	}
	for _, name := range []string{"within", "hair", "below", "wrong", "failed"} {
		if _, ok := got[name]; ok {
			t.Errorf("%s flagged as a model error: %+v", name, got[name])
		}
	}
	if len(errs) != 5 {
		t.Fatalf("%d model errors, want 5 (mkl, flat, l3, l1, gpu): %+v", len(errs), errs)
	}
	mkl := got["mkl"]
	if mkl.Cause != CauseComputePeak || mkl.Bound != "compute" || mkl.Op != "gemm" || mkl.DType != "f32" || mkl.Shape != "256" ||
		mkl.Threads != 1 || math.Abs(mkl.Share-1.46) > 1e-9 || math.Abs(mkl.Limit-1.02) > 1e-12 || mkl.BoundGFLOPS != 130 {
		t.Errorf("mkl: %+v", mkl)
	}
	for _, want := range []string{"FLOP/cycle", "1 thread × 4.06 GHz × 32 FLOP/cycle", "also beat our own FMA kernel (fma-avx2) at 131 GFLOP/s"} {
		if !strings.Contains(mkl.Text, want) {
			t.Errorf("mkl's cause %q lacks %q", mkl.Text, want)
		}
	}
	if f := got["flat"]; math.Abs(f.Limit-(1+ModelNoiseFloor)) > 1e-12 {
		t.Errorf("flat: limit %v, want the floor", f.Limit)
	}
	l3 := got["l3"]
	if l3.Cause != CauseMemoryLevel || l3.Bound != "memory" || l3.Level != "L3" || l3.Pattern != "read" || l3.BandwidthGBPS != 45 ||
		l3.PeakWorkingSetBytes != 60<<20 || l3.LevelBytes != 480<<20 || l3.FootprintBytes != 1<<20 {
		t.Errorf("l3: %+v", l3)
	}
	for _, want := range []string{"wrong cache level", "1 MiB was put in L3 (480 MiB as reported)", "within L2's 160 GB/s", "measured over 60 MiB per thread"} {
		if !strings.Contains(l3.Text, want) {
			t.Errorf("l3's cause %q lacks %q", l3.Text, want)
		}
	}
	if l1 := got["l1"]; l1.Cause != CauseBandwidthPeak || !strings.Contains(l1.Text, "the fastest level's") {
		t.Errorf("l1: %+v", l1)
	}
	if g := got["gpu"]; g.Cause != CauseComputePeak || !strings.Contains(g.Text, "132 SMs × 1.98 GHz") || !strings.Contains(g.What(), "on cuda:0 Test GPU") {
		t.Errorf("gpu: %+v, %q", g, g.What())
	}

	// A clock that read higher after the peaks were measured is the cause
	// where its rise covers the excess, and only there.
	run.ClockEnd = []result.ClockCheck{{Threads: 1, StartGHz: 2.99, EndGHz: 3.65, Drift: 3.65/2.99 - 1, MinGHz: 3.6, MaxGHz: 3.66, Checks: 9}}
	clocked := 0
	for _, e := range CheckModel(run) {
		if e.Device != "cpu" {
			continue
		}
		covered := e.Share <= e.Limit*3.66/2.99
		if covered {
			clocked++
		}
		if isClock := e.Cause == CauseClock && strings.Contains(e.Text, "2.99 GHz at the start of the run and up to 3.66"); isClock != covered {
			t.Errorf("%s at %.2f of its bound (limit %.2f): cause %s, %q; want the clock: %v", e.Backend, e.Share, e.Limit, e.Cause, e.Text, covered)
		}
	}
	if clocked == 0 {
		t.Error("no model error within the clock's rise: the test checks nothing of the clock")
	}
	for _, e := range CheckModel(run) {
		if e.Backend == "mkl" && e.Cause != CauseComputePeak {
			t.Errorf("mkl at 1.46 of its bound blamed on a 22%% clock rise: %+v", e)
		}
	}
}

func TestClockCheckText(t *testing.T) {
	c := result.ClockCheck{Threads: 2, StartGHz: 3.65, EndGHz: 2.99, Drift: 2.99/3.65 - 1, MinGHz: 2.95, MaxGHz: 3.66, Checks: 40, Marked: 12}
	if !c.Drifted(0.03) {
		t.Error("an 18% drop is not a drift")
	}
	steady := result.ClockCheck{Threads: 1, StartGHz: 4.19, EndGHz: 4.17, MinGHz: 4.10, MaxGHz: 4.19, Checks: 6}
	if steady.Drifted(0.03) || (result.ClockCheck{}).Drifted(0.03) {
		t.Error("a steady or empty clock drifted")
	}
	run := &result.Run{Env: result.Env{NoiseTarget: 0.03}, ClockEnd: []result.ClockCheck{c, steady}}
	lines := CheckLines(run)
	if len(lines) != 1 {
		t.Fatalf("lines %q, want one for 2 threads", lines)
	}
	for _, want := range []string{"2 threads", "3.65 GHz at the start", "2.99 at the end (-18.1%)", "2.95–3.66 GHz across the run (40 workloads checked)", "12 result(s)"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("%q lacks %q", lines[0], want)
		}
	}
}

func TestParseCodePath(t *testing.T) {
	for _, c := range []struct {
		in   string
		bits int
		fma  bool
	}{
		// OpenBLAS cores.
		{"SkylakeX", 512, true}, {"Cooperlake", 512, true}, {"SapphireRapids", 512, true},
		{"Haswell", 256, true}, {"Zen", 256, true}, {"Sandybridge", 256, false}, {"Nehalem", 128, false},
		{"Prescott", 128, false}, {"NeoverseN1", 128, true}, {"NeoverseV1", 256, true}, {"A64FX", 512, true},
		// BLIS configurations.
		{"skx", 512, true}, {"haswell", 256, true}, {"zen3", 256, true}, {"zen4", 512, true}, {"knl", 512, true},
		{"penryn", 128, false}, {"generic", 128, false}, {"firestorm", 128, true},
		// MKL, as peakbench reports it.
		{"avx512 (libmkl_avx512.so; Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) with support of Intel(R) Deep Learning Boost (Intel(R) DL Boost) and bfloat16)", 512, true},
		{"avx2 (libmkl_avx2.so; Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2) enabled processors)", 256, true},
		{"def (libmkl_def.so; Intel(R) Streaming SIMD Extensions 2 (Intel(R) SSE2) enabled processors)", 128, false},
		{"mc3", 128, false}, {"avx", 256, false},
		{"Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2) enabled processors", 256, true},
		{"Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) enabled processors", 512, true},
		{"Intel(R) Streaming SIMD Extensions 4.2 (Intel(R) SSE4.2) enabled processors", 128, false},
		// oneDNN ISAs.
		{"avx512_core_amx (dnnl_get_effective_cpu_isa: the widest ISA it may dispatch to)", 512, true},
		{"avx512_core_bf16", 512, true}, {"avx2_vnni", 256, true}, {"avx2", 256, true}, {"sse41", 128, false},
	} {
		cp, ok := ParseCodePath(c.in)
		if !ok || cp.Bits != c.bits || cp.FMA != c.fma {
			t.Errorf("ParseCodePath(%q) = %+v, %v; want %d bits, FMA %v", c.in, cp, ok, c.bits, c.fma)
		}
	}
	for _, in := range []string{"", "all (no limit)", "unknown", "armv8sve", "Quantum"} {
		if cp, ok := ParseCodePath(in); ok {
			t.Errorf("ParseCodePath(%q) = %+v, want unknown", in, cp)
		}
	}
	if cp, _ := ParseCodePath("haswell"); cp.Name != "haswell" {
		t.Errorf("name %q", cp.Name)
	}
}

// Machines of the issue: the Intel VM (two 512-bit FMA units behind a
// Rocket Lake CPUID), AMD Zen 4 (AVX-512 as 2 × 256) and Zen 3.
var (
	intelVM = peak.Machine{Vendor: "GenuineIntel", Model: "Intel(R) Xeon(R) Processor", Family: 6, ModelID: 0xA7, Microarch: "Rocket Lake",
		Arch: "amd64", SIMDBits: 512, FMAUnits: 2, Features: []string{"avx2", "fma", "avx512f", "avx512bw", "amxtile"}}
	zen4 = peak.Machine{Vendor: "AuthenticAMD", Model: "AMD EPYC 9B14", Family: 25, ModelID: 17, Microarch: "Zen 4",
		Arch: "amd64", SIMDBits: 256, FMAUnits: 2, Features: []string{"avx2", "fma", "avx512f"}}
	zen3 = peak.Machine{Vendor: "AuthenticAMD", Model: "AMD EPYC 7B13", Family: 25, ModelID: 1, Microarch: "Zen 3",
		Arch: "amd64", SIMDBits: 256, FMAUnits: 2, Features: []string{"avx2", "fma"}}
)

func lib(name, path string, details ...string) result.BackendInfo {
	d := map[string]string{"code_path": path}
	for i := 0; i+1 < len(details); i += 2 {
		d[details[i]] = details[i+1]
	}
	return result.BackendInfo{Name: name, Device: "cpu", Available: true, Info: backend.Info{Version: "1", Details: d}}
}

func TestCodePathFinding(t *testing.T) {
	dynamic := "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
	for _, c := range []struct {
		name string
		m    peak.Machine
		b    result.BackendInfo
		want []string // in the text or remedy; nil: no finding
	}{
		{"BLIS haswell on the Intel VM", intelVM, lib("blis", "haswell"),
			[]string{"haswell code path (256-bit vectors)", "512-bit FMAs", "about 50.0%", "brand string", "BLIS_ARCH_TYPE=0", "BLIS_ARCH_TYPE=skx", "BLIS_ARCH_DEBUG=1"}},
		{"BLIS skx on the Intel VM", intelVM, lib("blis", "skx"), nil},
		{"OpenBLAS SkylakeX on the Intel VM", intelVM, lib("openblas", "SkylakeX", "config", dynamic), nil},
		{"OpenBLAS Haswell, DYNAMIC_ARCH", intelVM, lib("openblas", "Haswell", "config", dynamic), []string{"OPENBLAS_CORETYPE=SkylakeX selects"}},
		{"OpenBLAS Haswell, one target", intelVM, lib("openblas", "Haswell", "config", "OpenBLAS 0.3.21 Haswell"), []string{"does nothing", "TARGET=SKYLAKEX"}},
		{"MKL avx2 on Intel", intelVM, lib("mkl", "avx2 (libmkl_avx2.so; x)", "cbwr_auto_branch", "AVX2"), []string{"MKL_ENABLE_INSTRUCTIONS", "reads AVX2"}},
		{"MKL avx512 on Intel", intelVM, lib("mkl", "avx512 (libmkl_avx512.so; x)"), nil},
		{"oneDNN avx2 on Intel", intelVM, lib("onednn", "avx2 (dnnl_get_effective_cpu_isa: the widest ISA it may dispatch to)"), []string{"ONEDNN_MAX_CPU_ISA"}},
		{"oneDNN AMX on Intel", intelVM, lib("onednn", "avx512_core_amx (dnnl_get_effective_cpu_isa: …)"), nil},
		{"netlib", intelVM, lib("netlib", "generic (compiled Fortran reference)"), nil},
		{"unknown name", intelVM, lib("blis", "quantum"), nil},
		{"OpenBLAS Zen on Zen 4 (2 × 256)", zen4, lib("openblas", "Zen", "config", dynamic), nil},
		{"BLIS zen3 on Zen 4", zen4, lib("blis", "zen3"), nil},
		{"MKL def on Zen 4", zen4, lib("mkl", "def (libmkl_def.so; x)"), []string{"by CPU vendor", "generic def path", "MKL_DEBUG_CPU_TYPE=5", "2020 Update 1"}},
		{"MKL avx2 on Zen 3", zen3, lib("mkl", "avx2 (libmkl_avx2.so; x)"), nil},
		{"OpenBLAS Sandybridge on Zen 3: no FMA", zen3, lib("openblas", "Sandybridge", "config", dynamic), []string{"without FMA", "about 50.0%", "OPENBLAS_CORETYPE=Zen"}},
		{"BLIS generic on Zen 3", zen3, lib("blis", "generic"), []string{"BLIS_ARCH_TYPE=6", "zen3"}},
		// Until the FMA units are measured, the Intel VM reads as 2 × 256.
		{"BLIS haswell, SIMDBits from the table", func() peak.Machine { m := intelVM; m.SIMDBits = 256; return m }(), lib("blis", "haswell"), nil},
	} {
		f, ok := CodePathFinding(c.m, c.b)
		if ok != (c.want != nil) {
			t.Errorf("%s: finding %v (%+v), want %v", c.name, ok, f, c.want != nil)
			continue
		}
		if !ok {
			continue
		}
		if f.Code != CodeCodePath || !strings.HasPrefix(f.Text, c.b.Name+" took its ") || !strings.Contains(f.Evidence, "code_path=") {
			t.Errorf("%s: %+v", c.name, f)
		}
		for _, w := range c.want {
			if !strings.Contains(f.Text+" "+f.Remedy, w) {
				t.Errorf("%s: %q / %q lacks %q", c.name, f.Text, f.Remedy, w)
			}
		}
	}
	gpu := lib("cublas", "avx2")
	gpu.Device = "cuda:0 X"
	off := lib("blis", "haswell")
	off.Available = false
	for _, b := range []result.BackendInfo{gpu, off} {
		if f, ok := CodePathFinding(intelVM, b); ok {
			t.Errorf("%s (%s, available %v): %+v", b.Name, b.Device, b.Available, f)
		}
	}
	run := &result.Run{Machine: intelVM, Backends: []result.BackendInfo{lib("blis", "haswell"), lib("openblas", "SkylakeX")}}
	CheckCodePaths(run)
	if len(run.Backends[0].Findings) != 1 || len(run.Backends[1].Findings) != 0 {
		t.Errorf("findings %+v", run.Backends)
	}
}

// TestModelLimitCountsTheBoundsNoise: a memory-bound result may pass its
// bandwidth peak by that peak's own measured spread; a compute-bound one
// only by its own.
func TestModelLimitCountsTheBoundsNoise(t *testing.T) {
	r := result.Result{Verified: true, Spread: 0.01, GFLOPS: 1.05, Intensity: 1}
	r.Ceilings(peak.ComputePeak{TheoreticalGFLOPS: 100}, peak.BandwidthPeak{Level: "DRAM", Pattern: "triad", GBPS: 1, Spread: 0.04})
	if r.Peak.Bound != "memory" || r.Peak.BandwidthSpread != 0.04 {
		t.Fatalf("peak ref %+v", r.Peak)
	}
	if got := ModelLimit(&r); math.Abs(got-1.06) > 1e-12 {
		t.Errorf("ModelLimit = %g, want 1 + 0.02 + 0.04", got)
	}
	if OverBound(&r) {
		t.Errorf("a result at 105%% of a bound with 4%% noise is flagged")
	}
	r.Peak.BandwidthSpread = 0
	if !OverBound(&r) {
		t.Errorf("a result at 105%% of a noiseless bound is not flagged")
	}
	c := result.Result{Verified: true, Spread: 0.01, GFLOPS: 105, Intensity: 1000}
	c.Ceilings(peak.ComputePeak{TheoreticalGFLOPS: 100}, peak.BandwidthPeak{Level: "L1", GBPS: 1000, Spread: 0.5})
	if c.Peak.Bound != "compute" || !OverBound(&c) {
		t.Errorf("a compute-bound result at 105%% is not flagged (bound %s, limit %g)", c.Peak.Bound, ModelLimit(&c))
	}
}

// A cache sweep taken while another process held a CPU (24 of 32 figures
// on the 2-vCPU Zen 5 VM, with another benchmark running) found levels the
// machine does not have; the run says so, naming them and the disturbed
// bandwidth peaks, and says nothing of a sweep with one such figure.
func TestCheckLinesDisturbedPeaks(t *testing.T) {
	sweep := func(threads, n, disturbed int) peak.Sweep {
		s := peak.Sweep{Threads: threads, Pattern: "read"}
		for i := range n {
			s.Points = append(s.Points, peak.SweepPoint{Bytes: 4096 << i, GBPS: 100, Disturbed: i < disturbed})
		}
		return s
	}
	run := &result.Run{Env: result.Env{NoiseTarget: 0.03}, Peaks: peak.Peaks{
		Sweeps: []peak.Sweep{sweep(1, 30, 1), sweep(2, 32, 24)},
		Caches: []peak.CacheLevel{
			{Level: "L2", Threads: 2, Found: true, EffectiveBytes: 90 << 10, ReportedBytes: 1 << 20},
			{Level: "L4", Threads: 2, Found: true, EffectiveBytes: 1 << 20},
			{Level: "L3", Threads: 2, ReportedBytes: 32 << 20}, // not found
		},
		Bandwidth: []peak.BandwidthPeak{{Level: "L1", Pattern: "read", Threads: 2, GBPS: 300, Disturbed: true},
			{Level: "DRAM", Pattern: "triad", Threads: 2, GBPS: 30, Disturbed: true}, {Level: "L2", Pattern: "read", Threads: 1, GBPS: 200}},
	}}
	lines := CheckLines(run)
	if len(lines) != 1 {
		t.Fatalf("lines %q, want one, for 2 threads", lines)
	}
	for _, want := range []string{"DISTURBED PEAKS: 2 threads: 24 of 32 cache-sweep figures", "levels found: L2 ~90 KiB, L4 ~1 MiB; the machine reports no L4)",
		"the L1 read, DRAM triad bandwidth peak(s)", "rerun on a quiet machine"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("%q lacks %q", lines[0], want)
		}
	}
	run.Peaks.Sweeps[1] = sweep(2, 32, 2)
	run.Peaks.Bandwidth[0].Disturbed, run.Peaks.Bandwidth[1].Disturbed = false, false
	if lines := CheckLines(run); len(lines) != 0 {
		t.Errorf("2 of 32 figures disturbed, no peak: %q", lines)
	}
}
