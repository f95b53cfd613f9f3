package diagnose

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

func findingCodes(r *result.Result) []string {
	var c []string
	for _, f := range r.Findings {
		c = append(c, f.Code)
	}
	return c
}

func finding(r *result.Result, code string) (result.Finding, bool) {
	for _, f := range r.Findings {
		if f.Code == code {
			return f, true
		}
	}
	return result.Finding{}, false
}

func mustFinding(t *testing.T, r *result.Result, code string) result.Finding {
	t.Helper()
	f, ok := finding(r, code)
	if !ok {
		t.Fatalf("%s %s %s: no %s finding; has %v", r.Backend, r.Op, r.Shape, code, findingCodes(r))
	}
	if f.Text == "" || f.Evidence == "" {
		t.Errorf("%s finding without text or evidence: %+v", code, f)
	}
	return f
}

func noFinding(t *testing.T, r *result.Result, code string) {
	t.Helper()
	if f, ok := finding(r, code); ok {
		t.Errorf("%s %s %s: unexpected %s finding: %s", r.Backend, r.Op, r.Shape, code, f.Text)
	}
}

// Recorded on the Intel Xeon VM (2 vCPUs): ReLU f32 at four sizes on
// oneDNN, PyTorch and the asm kernel, 2 threads. oneDNN's primitive costs
// microseconds per call, the asm kernel nanoseconds.
func TestDiagnoseRecordedPerCallOverhead(t *testing.T) {
	run, err := result.Load("testdata/findings/relu-intel-xeon-vm.json")
	if err != nil {
		t.Fatal(err)
	}
	Diagnose(run)
	get := func(backend, shape string) *result.Result {
		for i := range run.Results {
			if r := &run.Results[i]; r.Backend == backend && r.Shape == shape {
				return r
			}
		}
		t.Fatalf("no %s %s in the recording", backend, shape)
		return nil
	}
	onednn := get("onednn", "1024")
	f := mustFinding(t, onednn, CodeOverhead)
	fit := newDiagnosis(run).fits[fitKeyOf(onednn)]
	if fit.FixedNS < 3000 || fit.FixedNS > onednn.MedianNS {
		t.Errorf("oneDNN's fixed cost %v ns; its 1 Ki ReLU took %v ns", fit.FixedNS, onednn.MedianNS)
	}
	if !strings.Contains(f.Remedy, "asm") {
		t.Errorf("remedy should name the backend with the least fixed cost (asm): %q", f.Remedy)
	}
	if b := onednn.Findings[0]; b.Code != CodeBoundOverhead {
		t.Errorf("oneDNN 1 Ki ReLU bound: %s, want %s", b.Code, CodeBoundOverhead)
	}
	noFinding(t, get("asm", "1024"), CodeOverhead)
	// 16 Mi elements stream from the VM's 480 MiB L3: the fixed cost is
	// nothing there.
	big := get("onednn", "16777216")
	noFinding(t, big, CodeOverhead)
	if b := big.Findings[0]; b.Code != CodeBoundMemory || !strings.Contains(b.Text, "L3 copy bandwidth") {
		t.Errorf("16 Mi ReLU bound: %+v", b)
	}
	// Every result below half its bound has a finding with evidence.
	for i := range run.Results {
		r := &run.Results[i]
		if len(r.Findings) == 0 || r.Findings[0].Evidence == "" {
			t.Errorf("%s %s: no bound finding", r.Backend, r.Shape)
		}
	}
}

// fitOverhead recovers a planted fixed cost and cost per element.
func TestFitOverheadPlanted(t *testing.T) {
	var pts []fitPoint
	for _, n := range []float64{1 << 10, 1 << 14, 1 << 18, 1 << 24} {
		pts = append(pts, fitPoint{Units: n, NS: 30000 + 0.4*n})
	}
	// The largest size streams from DRAM at another cost per element: the
	// fit uses the smallest three.
	pts[3].NS *= 3
	f, ok := fitOverhead(pts)
	if !ok {
		t.Fatal("no fit")
	}
	if math.Abs(f.FixedNS-30000) > 1 || math.Abs(f.PerUnitNS-0.4) > 1e-6 {
		t.Errorf("fit %v ns + %v ns/element, planted 30000 + 0.4", f.FixedNS, f.PerUnitNS)
	}
	if c := f.crossover(); math.Abs(c-75000) > 1 {
		t.Errorf("crossover %v elements, want 75000", c)
	}
	// No fixed cost: a line through the origin, not a negative intercept.
	f, ok = fitOverhead([]fitPoint{{1000, 1000}, {2000, 2100}})
	if !ok || f.FixedNS != 0 {
		t.Errorf("growth faster than linear fitted a fixed cost %v (ok %v)", f.FixedNS, ok)
	}
	if _, ok := fitOverhead([]fitPoint{{1000, 5000}}); ok {
		t.Error("one size fitted")
	}
	if _, ok := fitOverhead([]fitPoint{{1000, 5000}, {2000, 4000}}); ok {
		t.Error("a time that falls with size fitted")
	}
}

// cpuRun is a run on a machine like the Intel Xeon VM: 2 threads, f32
// peak 493 GFLOP/s, L2 copy 300 GB/s up to 4 MiB, L3 100 GB/s, DRAM 20.
func cpuRun(results ...result.Result) *result.Run {
	run := &result.Run{
		Machine: peak.Machine{Arch: "amd64", Vendor: "GenuineIntel", SIMDBits: 512, FMAUnits: 2, Features: []string{"fma", "avx512f"}},
		Peaks: peak.Peaks{
			Compute: []peak.ComputePeak{{DType: "f32", Threads: 2, TheoreticalGFLOPS: 493, Formula: "2 cores × 3.85 GHz × 64 FLOP/cycle"}},
			Bandwidth: []peak.BandwidthPeak{
				{Level: "L2", Pattern: "copy", Threads: 2, GBPS: 300},
				{Level: "L3", Pattern: "copy", Threads: 2, GBPS: 100},
				{Level: "DRAM", Pattern: "copy", Threads: 2, GBPS: 20},
			},
			Caches: []peak.CacheLevel{{Level: "L2", Threads: 2, Found: true, BoundBytes: 4 << 20}},
		},
		Results: results,
	}
	return run
}

func computeResult(backend string, gflops float64) result.Result {
	r := result.Result{Backend: backend, Device: "cpu", Op: "gemm", DType: "f32", Shape: "1024x1024x1024", Threads: 2, Cache: "hot",
		Verified: true, FLOPs: 2 << 30, Intensity: 170}
	r.MedianNS = r.FLOPs / gflops
	r.GFLOPS = gflops
	r.Ceilings(peak.ComputePeak{DType: "f32", Threads: 2, TheoreticalGFLOPS: 493}, peak.BandwidthPeak{Level: "L3", GBPS: 100})
	return r
}

// A library whose code path is narrower than the machine's (BLIS's
// haswell path on two 512-bit FMA units, as Debian's BLIS took before
// peakbench initialised it) carries that finding on its compute-bound
// results; a library on the full width does not.
func TestDiagnoseCodePath(t *testing.T) {
	run := cpuRun(computeResult("blis", 200), computeResult("mkl", 450))
	run.Backends = []result.BackendInfo{
		{Name: "blis", Available: true, Device: "cpu"},
		{Name: "mkl", Available: true, Device: "cpu"},
	}
	run.Backends[0].Details = map[string]string{"code_path": "haswell"}
	run.Backends[1].Details = map[string]string{"code_path": "avx512"}
	run.Machine.Model = "Intel(R) Xeon(R) Processor"
	CheckCodePaths(run)
	Diagnose(run)
	f := mustFinding(t, &run.Results[0], CodeCodePath)
	if !strings.Contains(f.Remedy, "BLIS_ARCH_TYPE") {
		t.Errorf("remedy %q", f.Remedy)
	}
	noFinding(t, &run.Results[1], CodeCodePath)
	if b := run.Results[0].Findings[0]; b.Code != CodeBoundCompute || !strings.Contains(b.Evidence, "3.85 GHz") {
		t.Errorf("bound %+v", b)
	}
	if got := WhyLabel(&run.Results[0]); got != "code-path,behind" {
		t.Errorf("why label %q", got)
	}
	if got := WhyLabel(&run.Results[1]); got != "compute" {
		t.Errorf("why label %q", got)
	}
}

// A code path's reach is checked against the library's own results: MKL
// 2020 Update 4 names its def path (128-bit, no FMA: 12.5% of two 512-bit
// FMA units) on the Zen 5 VM, and its SGEMM reached 35–41% there through
// the Zen kernels of that path. A result past the reach does not get the
// finding, one within it does, and the backend's finding says which went
// past.
func TestDiagnoseCodePathRefuted(t *testing.T) {
	run := cpuRun(computeResult("mkl", 200), computeResult("mkl", 40))
	run.Results[1].Op, run.Results[1].Shape = "conv2d", "1x64x56x56:64x3x3"
	run.Machine = peak.Machine{Vendor: "AuthenticAMD", Family: 26, ModelID: 2, Microarch: "Zen 5", Arch: "amd64",
		SIMDBits: 512, FMAUnits: 2, Features: []string{"avx2", "fma", "avx512f"}}
	run.Backends = []result.BackendInfo{{Name: "mkl", Available: true, Device: "cpu"}}
	run.Backends[0].Details = map[string]string{"code_path": "def (libmkl_def.so; x)"}
	CheckCodePaths(run)
	Diagnose(run)
	if f := run.Backends[0].Findings; len(f) != 1 || !strings.Contains(f[0].Text, "about 12.5%") ||
		!strings.Contains(f[0].Text, "gemm f32 1024x1024x1024 on 2 threads reached 40.6%") {
		t.Errorf("backend findings %+v", f)
	}
	noFinding(t, &run.Results[0], CodeCodePath)
	mustFinding(t, &run.Results[1], CodeCodePath)
}

// Recorded on the Intel Xeon VM before the workers set their BLAS's
// threads: PyTorch's "1-thread" SGEMM kept both cores busy; and a 2-thread
// run of a library that used one.
func TestDiagnoseThreads(t *testing.T) {
	extra := computeResult("torch", 320)
	extra.Threads = 1
	extra.Host = &result.HostUse{BusyThreads: 1.97, SampledNS: 400e6}
	idle := computeResult("openblas", 230)
	idle.Host = &result.HostUse{BusyThreads: 1.02, SampledNS: 300e6}
	stolen := computeResult("mkl", 230)
	stolen.Host = &result.HostUse{BusyThreads: 1.1, Steal: 0.3, SampledNS: 300e6}
	fine := computeResult("blis", 450)
	fine.Host = &result.HostUse{BusyThreads: 1.96, SampledNS: 300e6}
	short := computeResult("onednn", 230)
	short.Host = &result.HostUse{BusyThreads: 1.0, SampledNS: 10e6} // too short to trust
	run := cpuRun(extra, idle, stolen, fine, short)
	run.Peaks.Compute = append(run.Peaks.Compute, peak.ComputePeak{DType: "f32", Threads: 1, TheoreticalGFLOPS: 246})
	Diagnose(run)
	mustFinding(t, &run.Results[0], CodeThreadsExtra)
	f := mustFinding(t, &run.Results[1], CodeThreadsIdle)
	if !strings.Contains(f.Text, "1.0 of the 2") || f.Remedy == "" {
		t.Errorf("idle finding %+v", f)
	}
	f = mustFinding(t, &run.Results[2], CodeThreadsIdle)
	if !strings.Contains(f.Text, "host took 30.0%") {
		t.Errorf("a host that stole the CPU should be named: %q", f.Text)
	}
	mustFinding(t, &run.Results[2], CodeSteal)
	for _, i := range []int{3, 4} {
		noFinding(t, &run.Results[i], CodeThreadsIdle)
		noFinding(t, &run.Results[i], CodeThreadsExtra)
	}
}

// A clock that dropped during a result's workload (the harness's readings
// before and after it) is said with its figures.
func TestDiagnoseClockDrop(t *testing.T) {
	r := computeResult("mkl", 400)
	r.ClockDrift = &result.ClockDrift{StartGHz: 3.85, BeforeGHz: 3.84, AfterGHz: 3.2, Drift: 3.2/3.85 - 1}
	run := cpuRun(r, computeResult("mkl", 410))
	Diagnose(run)
	f := mustFinding(t, &run.Results[0], CodeClock)
	if !strings.Contains(f.Text, "-16.9%") || !strings.Contains(f.Evidence, "3.20 GHz after") {
		t.Errorf("clock finding %+v", f)
	}
	noFinding(t, &run.Results[1], CodeClock)
}

func copyResult(backend string, footprint, gbps float64) result.Result {
	r := result.Result{Backend: backend, Device: "cpu", Op: "relu", DType: "f32", Threads: 2, Cache: "hot", Verified: true,
		Footprint: footprint, Bytes: footprint, FLOPs: footprint / 8, Intensity: 0.125}
	r.Shape = "393216" // 1.5 MiB of input and output
	r.MedianNS = r.Bytes / gbps
	r.GBPS, r.GFLOPS = gbps, r.FLOPs/r.MedianNS
	r.Ceilings(peak.ComputePeak{DType: "f32", Threads: 2, TheoreticalGFLOPS: 493}, peak.BandwidthPeak{Level: "L2", Pattern: "copy", GBPS: 300})
	return r
}

// A working set that fits L2 but streamed no faster than DRAM is a level
// mismatch; one at L2 speed, or merely below it, is not.
func TestDiagnoseLevelMismatch(t *testing.T) {
	// Each backend streams a small working set at L2 speed: its code can.
	small := func(backend string) result.Result {
		r := copyResult(backend, 64<<10, 250)
		r.Shape = "8192"
		return r
	}
	run := cpuRun(copyResult("slow", 3<<20, 19), copyResult("l3", 3<<20, 90), copyResult("fast", 3<<20, 250),
		small("slow"), small("l3"), small("fast"))
	Diagnose(run)
	f := mustFinding(t, &run.Results[0], CodeLevel)
	if !strings.Contains(f.Text, "fits L2 (up to 4 MiB on 2 threads)") || !strings.Contains(f.Text, "DRAM") {
		t.Errorf("level finding %q", f.Text)
	}
	// At L3 speed: its data came from L3, not L2.
	f = mustFinding(t, &run.Results[1], CodeLevel)
	if !strings.Contains(f.Text, "no faster than L3") {
		t.Errorf("level finding %q", f.Text)
	}
	noFinding(t, &run.Results[2], CodeLevel)
	cold := copyResult("cold", 3<<20, 19)
	cold.Cache = "cold"
	run = cpuRun(cold)
	Diagnose(run)
	noFinding(t, &run.Results[0], CodeLevel)
	// As slow at every size: its instructions limit it, not the level.
	flat := small("flat")
	flat.GBPS, flat.MedianNS = 22, flat.Bytes/22
	flat.Ceilings(peak.ComputePeak{DType: "f32", Threads: 2, TheoreticalGFLOPS: 493}, peak.BandwidthPeak{Level: "L1", Pattern: "copy", GBPS: 600})
	run = cpuRun(copyResult("flat", 3<<20, 21), flat)
	Diagnose(run)
	noFinding(t, &run.Results[0], CodeLevel)
	mustFinding(t, &run.Results[0], CodeInstructions)
}

// A working set where the level sweep itself had slowed most of the way
// to the next level (a cache that fades over octaves) gets the level
// finding with the sweep's figure at its size, the machine's cause, not
// the library's.
func TestDiagnoseLevelFade(t *testing.T) {
	small := copyResult("slow", 64<<10, 250)
	small.Shape = "8192"
	run := cpuRun(copyResult("slow", 3<<20, 19), small)
	run.Peaks.Bandwidth = append(run.Peaks.Bandwidth, peak.BandwidthPeak{Level: "L2", Pattern: "read", Threads: 2, GBPS: 300})
	run.Peaks.Sweeps = []peak.Sweep{{Threads: 2, Pattern: "read", Points: []peak.SweepPoint{
		{Bytes: 64 << 10, GBPS: 310}, {Bytes: 1 << 20, GBPS: 300}, {Bytes: 2 << 20, GBPS: 200},
		{Bytes: 4 << 20, GBPS: 30}, {Bytes: 64 << 20, GBPS: 20}}}}
	Diagnose(run)
	f := mustFinding(t, &run.Results[0], CodeLevel)
	// 3 MiB: between 2 MiB (200) and 4 MiB (30), log-log: 200·(30/200)^0.585 ≈ 65.9.
	for _, want := range []string{"fits L2 (up to 4 MiB on 2 threads), but lies where that level fades", "read 65.9 GB/s at this size", "22.0% of the L2 read peak (300 GB/s)", "streamed 19.0 GB/s"} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("fade finding %q lacks %q", f.Text, want)
		}
	}
	if !strings.Contains(f.Remedy, "none from the library") {
		t.Errorf("fade remedy %q", f.Remedy)
	}
	// Faster than DRAM (20) but under half its bound, where the sweep read
	// 65.9: the fade explains it too. Outside the fade (1 MiB, where the
	// sweep read the level's peak) a result as slow gets no level finding.
	mid := copyResult("mid", 3<<20, 60)
	inside := copyResult("mid", 1<<20, 60)
	inside.Shape = "65536"
	fast := copyResult("mid", 64<<10, 250)
	fast.Shape = "8192"
	run = cpuRun(mid, inside, fast)
	run.Peaks.Bandwidth = append(run.Peaks.Bandwidth, peak.BandwidthPeak{Level: "L2", Pattern: "read", Threads: 2, GBPS: 300})
	run.Peaks.Sweeps = []peak.Sweep{{Threads: 2, Pattern: "read", Points: []peak.SweepPoint{
		{Bytes: 64 << 10, GBPS: 310}, {Bytes: 1 << 20, GBPS: 300}, {Bytes: 2 << 20, GBPS: 200},
		{Bytes: 4 << 20, GBPS: 30}, {Bytes: 64 << 20, GBPS: 20}}}}
	Diagnose(run)
	f = mustFinding(t, &run.Results[0], CodeLevel)
	if !strings.Contains(f.Text, "lies where that level fades") || !strings.Contains(f.Text, "streamed 60.0 GB/s") {
		t.Errorf("fade finding above DRAM's speed %q", f.Text)
	}
	noFinding(t, &run.Results[1], CodeLevel)
}

// A result far behind the fastest backend on its workload says so and
// names it; the fastest, below half its bound with no cause found, says
// no backend reached the bound.
func TestDiagnoseRelative(t *testing.T) {
	run := cpuRun(computeResult("gonum", 20), computeResult("mkl", 200), computeResult("blis", 150))
	Diagnose(run)
	f := mustFinding(t, &run.Results[0], CodeBehindBest)
	if !strings.Contains(f.Text, "mkl ran this workload 10.00× faster") || f.Remedy != "for this workload, use mkl." {
		t.Errorf("behind finding %+v", f)
	}
	noFinding(t, &run.Results[2], CodeBehindBest) // 1.33×: within reach
	f = mustFinding(t, &run.Results[1], CodeUnreached)
	if !strings.Contains(f.Text, "of the 3 backends") {
		t.Errorf("unreached finding %q", f.Text)
	}
	if got := WhyLabel(&run.Results[0]); got != "behind" {
		t.Errorf("why %q", got)
	}
}

// Steal explains a noisy result; a quiet host gives no finding.
func TestDiagnoseSteal(t *testing.T) {
	noisy := copyResult("a", 3<<20, 250)
	noisy.Noisy, noisy.Spread = true, 0.12
	noisy.Host = &result.HostUse{BusyThreads: 1.9, Steal: 0.08, SampledNS: 200e6}
	quiet := copyResult("b", 3<<20, 250)
	quiet.Noisy, quiet.Spread = true, 0.12
	quiet.Host = &result.HostUse{BusyThreads: 1.9, Steal: 0.001, SampledNS: 200e6}
	run := cpuRun(noisy, quiet)
	Diagnose(run)
	f := mustFinding(t, &run.Results[0], CodeSteal)
	if !strings.Contains(f.Text, "8.0%") || !strings.Contains(f.Text, "12.0% spread") {
		t.Errorf("steal finding %q", f.Text)
	}
	noFinding(t, &run.Results[1], CodeSteal)
}

// Results that errored or failed verification get no findings; a file
// older than findings loads, and Diagnose fills them.
func TestDiagnoseSkipsFailures(t *testing.T) {
	failed := computeResult("x", 100)
	failed.Verified = false
	errored := result.Result{Backend: "y", Op: "gemm", Error: "out of memory"}
	run := cpuRun(failed, errored)
	Diagnose(run)
	if HasFindings(run) {
		t.Errorf("findings on failed results: %v %v", run.Results[0].Findings, run.Results[1].Findings)
	}
}

// Small threaded calls of a library the short idle spin reaches carry the
// idle-wait finding with the flag that lifts it; a framework's own kernels
// (PyTorch's element-wise ops run on libgomp) and BLIS do not.
func TestDiagnoseIdleWait(t *testing.T) {
	small := func(backend, op string, ns float64) result.Result {
		r := copyResult(backend, 8<<10, 10)
		r.Op, r.Shape, r.MedianNS = op, "1024", ns
		return r
	}
	big := func(backend, op string, ns float64) result.Result {
		r := copyResult(backend, 8<<20, 10)
		r.Op, r.Shape, r.MedianNS = op, "1048576", ns
		return r
	}
	run := cpuRun(
		small("openblas", "axpy", 5000), big("openblas", "axpy", 60000),
		small("torch", "relu", 5000), big("torch", "relu", 60000),
		small("blis", "axpy", 5000), big("blis", "axpy", 60000),
	)
	idle := "KMP_BLOCKTIME=1 OPENBLAS_THREAD_TIMEOUT=22"
	for _, name := range []string{"openblas", "torch", "blis"} {
		b := result.BackendInfo{Name: name, Available: true, Device: "cpu"}
		b.Details = map[string]string{"idle_wait": idle}
		run.Backends = append(run.Backends, b)
	}
	Diagnose(run)
	f := mustFinding(t, &run.Results[0], CodeIdleWait)
	if !strings.Contains(f.Remedy, "-idle-wait=library") || !strings.Contains(f.Text, idle) {
		t.Errorf("idle-wait finding %+v", f)
	}
	noFinding(t, &run.Results[1], CodeIdleWait) // large: the fixed cost is a small share
	noFinding(t, &run.Results[2], CodeIdleWait) // ATen's own kernel
	noFinding(t, &run.Results[4], CodeIdleWait) // BLIS: libgomp, left alone
}

// A result above a bandwidth peak that was measured disturbed names that
// peak as the likely cause, not the level its working set was put in.
func TestModelCauseDisturbedPeak(t *testing.T) {
	r := copyResult("asm", 32<<20, 55) // at 48.6 GB/s of L3 copy, as the VM once read
	r.Ceilings(peak.ComputePeak{DType: "f32", Threads: 2, TheoreticalGFLOPS: 493}, peak.BandwidthPeak{Level: "L3", Pattern: "copy", GBPS: 48.6})
	run := cpuRun(r)
	run.Peaks.Bandwidth = []peak.BandwidthPeak{
		{Level: "L2", Pattern: "copy", Threads: 2, GBPS: 300},
		{Level: "L3", Pattern: "copy", Threads: 2, GBPS: 48.6, Disturbed: true},
	}
	errs := CheckModel(run)
	if len(errs) != 1 || errs[0].Cause != CauseBandwidthPeak || !strings.Contains(errs[0].Text, "measured disturbed") {
		t.Fatalf("model errors %+v", errs)
	}
}

// A GPU that throttled while its backend ran (NVML's reasons, as the fake
// NVML reports a software power cap) marks that backend's GPU results.
func TestDiagnoseGPUThrottle(t *testing.T) {
	gpu := computeResult("cublas", 400)
	gpu.Device = "cuda:0 NVIDIA H100 80GB HBM3"
	quiet := gpu
	quiet.Backend = "cudnn"
	run := cpuRun(gpu, quiet, computeResult("mkl", 400))
	for _, b := range []struct{ name, reasons string }{{"cublas", "sw_power_cap"}, {"cudnn", "none"}, {"mkl", ""}} {
		info := result.BackendInfo{Name: b.name, Available: true}
		info.Details = map[string]string{"nvml_throttle_reasons": b.reasons, "nvml_min_sm_clock_mhz": "1410", "nvml_max_sm_clock_mhz": "1980"}
		run.Backends = append(run.Backends, info)
	}
	Diagnose(run)
	f := mustFinding(t, &run.Results[0], CodeGPUThrottle)
	if !strings.Contains(f.Text, "as low as 1410 MHz of 1980") {
		t.Errorf("throttle finding %q", f.Text)
	}
	noFinding(t, &run.Results[1], CodeGPUThrottle)
	noFinding(t, &run.Results[2], CodeGPUThrottle)
}

// A library that runs a small size on one thread and larger ones on two
// spends the same CPU time per element at every size, while its wall time
// per element halves: the fit, over CPU time, finds no fixed cost there
// (over wall time it read 15 µs for the pure-Go sigmoid at 1 Ki elements).
func TestOverheadFitOverCPUTime(t *testing.T) {
	at := func(n, busy, nsPerElem float64) result.Result {
		r := copyResult("go", n*8, 1)
		r.Op, r.Shape = "sigmoid", strconv.FormatFloat(n, 'f', 0, 64)
		r.MedianNS = n * nsPerElem
		r.Host = &result.HostUse{BusyThreads: busy, SampledNS: 200e6}
		return r
	}
	run := cpuRun(at(1024, 1, 30), at(262144, 2, 15), at(4194304, 2, 15))
	Diagnose(run)
	noFinding(t, &run.Results[0], CodeOverhead)
	// Without the thread figures (files older than them), or with other
	// processes on the CPUs, wall time it is.
	for i := range run.Results {
		run.Results[i].Host.OtherThreads = 1
	}
	Diagnose(run)
	mustFinding(t, &run.Results[0], CodeOverhead)
	for i := range run.Results {
		run.Results[i].Host = nil
	}
	Diagnose(run)
	mustFinding(t, &run.Results[0], CodeOverhead)
}

// TestComputeLabel: a compute-bound finding names the unit a low-precision
// result is a share of, and only the dtype for the FMAs.
func TestComputeLabel(t *testing.T) {
	for _, c := range []struct{ dtype, unit, want string }{
		{"f32", "", "f32"}, {"f32", "fma", "f32"}, {"bf16", "fma", "bf16"}, {"i8", "amx-int8", "i8 amx-int8"},
	} {
		r := &result.Result{DType: c.dtype, Peak: result.PeakRef{ComputeUnit: c.unit}}
		if got := computeLabel(r); got != c.want {
			t.Errorf("computeLabel(%s, %q) = %q, want %q", c.dtype, c.unit, got, c.want)
		}
	}
}

// A result on 2 threads well behind its backend's on 1 says the split
// did not pay; within the noise, on a busy host or alone it says nothing.
// The figures are ReLU f32 of 64 Ki elements on the Zen 5 Turin VM.
func TestDiagnoseSlowerThreads(t *testing.T) {
	at := func(backend string, threads int, median, fastest float64) result.Result {
		r := copyResult(backend, 512<<10, 100)
		r.Shape, r.Threads, r.MedianNS, r.MinNS = "65536", threads, median, fastest
		return r
	}
	busy := at("mkl", 2, 6000, 5500)
	busy.Host = &result.HostUse{BusyThreads: 1.9, OtherThreads: 0.8, SampledNS: 200e6}
	run := cpuRun(
		at("asm", 1, 2870, 2700), at("asm", 2, 4270, 3900), // 1.49×
		at("onednn", 1, 4000, 3800), at("onednn", 2, 4200, 3600), // 1.05×: the noise
		at("blis", 1, 4000, 3800), at("blis", 2, 4800, 3900), // its fastest sample ahead of 1 thread's median
		at("mkl", 1, 4000, 3900), busy,
		at("openblas", 2, 9000, 8000), // no 1-thread result
	)
	Diagnose(run)
	f := mustFinding(t, &run.Results[1], CodeThreadsSlower)
	if !strings.Contains(f.Text, "On 2 threads it took 1.49× as long as on 1 thread") || !strings.Contains(f.Remedy, "-tune") {
		t.Errorf("slower finding %+v", f)
	}
	if got := WhyLabel(&run.Results[1]); !strings.Contains(got, "threads-slower") {
		t.Errorf("why %q", got)
	}
	noFinding(t, &run.Results[0], CodeThreadsSlower)
	for _, i := range []int{3, 5, 7, 8} {
		noFinding(t, &run.Results[i], CodeThreadsSlower)
	}
	run.Results[3].MedianNS, run.Results[3].MinNS = 6000, 5000
	Diagnose(run)
	if f := mustFinding(t, &run.Results[3], CodeThreadsSlower); !strings.Contains(f.Remedy, "on 1 thread (the library's own thread setting)") {
		t.Errorf("a library's remedy %q", f.Remedy)
	}
}
