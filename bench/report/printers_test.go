package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/peak"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixture is a small run with one of everything a printer shows: a compute-
// and a memory-bound result, a noisy one, a failed verification, an error.
func fixture() *Run {
	run := &Run{
		Format: Format,
		Machine: peak.Machine{Vendor: "AuthenticAMD", Model: "Test CPU 3000", Family: 25, ModelID: 1,
			Microarch: "Zen 3", Arch: "amd64", OS: "linux", CPUs: 2, SIMDBits: 256, FMAUnits: 2},
		Peaks: peak.Peaks{
			Compute: []peak.ComputePeak{{DType: "f32", Threads: 2, TheoreticalGFLOPS: 195.2, EmpiricalGFLOPS: 190.1,
				ClockGHz: 3.05, FLOPsPerCycle: 32, Formula: "2 × 3.05 GHz × 32", Kernel: "fma-avx2"}},
			Bandwidth: []peak.BandwidthPeak{{Level: "L2", Pattern: "triad", Threads: 2, GBPS: 155}, {Level: "DRAM", Pattern: "triad", Threads: 2, GBPS: 28},
				{Level: "L2", Pattern: "read", Threads: 2, GBPS: 160}, {Level: "DRAM", Pattern: "read", Threads: 2, GBPS: 31}},
		},
		Env: Env{NoiseTarget: 0.03, Cache: "hot", MinTimeNS: 20e6, TimerOverheadNS: 24, Seed: 1, HugePages: "madvise"},
		Backends: []BackendInfo{
			{Name: "go", Device: "cpu", Available: true, Info: backend.Info{Version: "peakbench (devel)", Details: map[string]string{"kernels": "pure Go"}}},
			{Name: "mkl", Reason: "libmkl_rt.so not found"},
		},
	}
	base := Result{Device: "cpu", Threads: 2, Cache: "hot", Iters: 4, Verified: true, Tolerance: 1e-5, VerifyMethod: "full"}
	gemm := base
	gemm.Backend, gemm.Op, gemm.DType, gemm.Shape = "go", "gemm", "f32", "512x512x512"
	gemm.SamplesNS, gemm.MedianNS, gemm.Spread = []float64{2.1e6, 2.0e6, 2.2e6}, 2.1e6, 0.01
	gemm.FLOPs, gemm.Bytes = 2*512*512*512, 3*512*512*4
	gemm.GFLOPS, gemm.GBPS, gemm.Intensity = gemm.FLOPs/gemm.MedianNS, gemm.Bytes/gemm.MedianNS, gemm.FLOPs/gemm.Bytes
	gemm.Ceilings(run.Peaks.Compute[0], run.Peaks.Bandwidth[0])
	axpy := base
	axpy.Backend, axpy.Op, axpy.DType, axpy.Shape = "go", "axpy", "f32", "16777216"
	axpy.SamplesNS, axpy.MedianNS, axpy.Spread, axpy.Noisy = []float64{9e6, 1.2e7}, 1.05e7, 0.12, true
	axpy.FLOPs, axpy.Bytes = 2*16777216, 12*16777216
	axpy.GFLOPS, axpy.GBPS, axpy.Intensity = axpy.FLOPs/axpy.MedianNS, axpy.Bytes/axpy.MedianNS, axpy.FLOPs/axpy.Bytes
	axpy.Ceilings(run.Peaks.Compute[0], run.Peaks.Bandwidth[1])
	axpy.Peak.ReferenceGBPS, axpy.Peak.Reference = 24, "update a[i]=a[i]+s·b[i] over 192 MiB on 2 threads (update-avx)"
	axpy.Share.Reference = axpy.GBPS / 24
	bad := gemm
	bad.Backend, bad.Verified, bad.MaxRelErr, bad.VerifyDetail = "gonum", false, 0.5, "element 3 is 1, want 2"
	failed := Result{Backend: "gonum", Device: "cpu", Op: "dot", DType: "f64", Shape: "1000", Threads: 2, Cache: "hot", Error: "out of memory"}
	run.Results = []Result{gemm, axpy, bad, failed}
	return run
}

func TestGolden(t *testing.T) {
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, checkedFixture(), format); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "run."+format+".golden")
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s output differs from %s (run go test -update to accept):\n%s", format, path, buf.String())
			}
		})
	}
}

func TestCeilings(t *testing.T) {
	r := fixture().Results
	if r[0].Peak.Bound != "compute" || r[1].Peak.Bound != "memory" || r[1].Peak.BandwidthLevel != "DRAM" {
		t.Errorf("bounds %q, %q/%q", r[0].Peak.Bound, r[1].Peak.Bound, r[1].Peak.BandwidthLevel)
	}
	// axpy: intensity 1/6 FLOP/B × 28 GB/s = 4.67 GFLOP/s roofline.
	if got, want := r[1].Peak.RooflineGFLOPS, 28.0/6; abs(got-want) > 1e-9 {
		t.Errorf("axpy roofline %v, want %v", got, want)
	}
	if got, want := r[1].Share.Roofline, r[1].Share.Bandwidth; abs(got-want) > 1e-12 {
		t.Errorf("memory-bound roofline share %v differs from bandwidth share %v", got, want)
	}
	if got, want := r[0].Share.ComputeTheoretical, r[0].GFLOPS/195.2; abs(got-want) > 1e-12 {
		t.Errorf("compute share %v, want %v", got, want)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestJSONNames(t *testing.T) {
	var buf bytes.Buffer
	Write(&buf, fixture(), "json")
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"machine", "peaks", "results"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("top level lacks %q", k)
		}
	}
	res := doc["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"backend", "op", "dtype", "shape", "threads", "samples_ns", "median_ns", "gflops", "gbps",
		"intensity", "verified", "max_rel_err", "share"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result lacks %q", k)
		}
	}
	share := res["share"].(map[string]any)
	for _, k := range []string{"compute_theoretical", "compute_empirical", "bandwidth", "roofline"} {
		if _, ok := share[k]; !ok {
			t.Errorf("share lacks %q", k)
		}
	}
}

func TestGoBenchReadableByBenchstat(t *testing.T) {
	var buf bytes.Buffer
	Write(&buf, fixture(), "gobench")
	lines := 0
	for _, l := range strings.Split(buf.String(), "\n") {
		if !strings.HasPrefix(l, "Benchmark") {
			continue
		}
		lines++
		f := strings.Fields(l)
		if len(f) < 4 || f[3] != "ns/op" || !strings.Contains(f[0], "/backend=") {
			t.Errorf("line %q is not in the Go benchmark format", l)
		}
	}
	if lines != 5 { // 3 + 2 samples; failed results are left out
		t.Errorf("%d benchmark lines, want 5", lines)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A failed write leaves the old file and no temporary behind.
	err := WriteFileAtomic(path, func(f *os.File) error {
		f.WriteString("half")
		return errors.New("disk on fire")
	})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file is %q after a failed write", b)
	}
	if err := WriteFileAtomic(path, func(f *os.File) error { _, err := f.WriteString("new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("file is %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries in the folder, want 1", len(entries))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "such", "dir.json"), func(*os.File) error { return nil }); err == nil {
		t.Error("write into a missing folder succeeded")
	}
	if err := CheckWritable(filepath.Join(dir, "missing", "x")); err == nil {
		t.Error("CheckWritable accepted a missing folder")
	}
}

func TestSigAndDuration(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1234.5: "1234", 12.345: "12.3", 0.012345: "0.0123", 195.2: "195"} {
		if got := Sig(v); got != want {
			t.Errorf("Sig(%v) = %q, want %q", v, got, want)
		}
	}
	for ns, want := range map[float64]string{2.1e6: "2.1ms", 999: "999ns", 123456: "123µs"} {
		if got := Duration(ns); got != want {
			t.Errorf("Duration(%v) = %q, want %q", ns, got, want)
		}
	}
}
