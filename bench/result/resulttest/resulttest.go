// Package resulttest holds runs for the tests of the packages that read
// them (bench/diagnose, bench/compare, bench/chart, bench/report), and
// their golden-file check.
package resulttest

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Fixture is a small run with one of everything a printer shows: a compute-
// and a memory-bound result, a noisy one, a failed verification, an error.
func Fixture() *result.Run {
	run := &result.Run{
		Format: result.Format,
		Machine: peak.Machine{Vendor: "AuthenticAMD", Model: "Test CPU 3000", Family: 25, ModelID: 1,
			Microarch: "Zen 3", Arch: "amd64", OS: "linux", CPUs: 2, SIMDBits: 256, FMAUnits: 2},
		Peaks: peak.Peaks{
			Compute: []peak.ComputePeak{{DType: "f32", Threads: 2, TheoreticalGFLOPS: 195.2, EmpiricalGFLOPS: 190.1,
				ClockGHz: 3.05, FLOPsPerCycle: 32, Formula: "2 × 3.05 GHz × 32", Kernel: "fma-avx2"}},
			Bandwidth: []peak.BandwidthPeak{{Level: "L2", Pattern: "triad", Threads: 2, GBPS: 155}, {Level: "DRAM", Pattern: "triad", Threads: 2, GBPS: 28},
				{Level: "L2", Pattern: "read", Threads: 2, GBPS: 160}, {Level: "DRAM", Pattern: "read", Threads: 2, GBPS: 31}},
		},
		Env: result.Env{NoiseTarget: 0.03, Cache: "hot", MinTimeNS: 20e6, TimerOverheadNS: 24, Seed: 1, HugePages: "madvise"},
		Backends: []result.BackendInfo{
			{Name: "go", Device: "cpu", Available: true, Info: backend.Info{Version: "peakbench (devel)", Details: map[string]string{"kernels": "pure Go"}}},
			{Name: "mkl", Reason: "libmkl_rt.so not found"},
		},
	}
	base := result.Result{Device: "cpu", Threads: 2, Cache: "hot", Iters: 4, Verified: true, Tolerance: 1e-5, VerifyMethod: "full"}
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
	failed := result.Result{Backend: "gonum", Device: "cpu", Op: "dot", DType: "f64", Shape: "1000", Threads: 2, Cache: "hot", Error: "out of memory"}
	run.Results = []result.Result{gemm, axpy, bad, failed}
	return run
}

// Sampled is Fixture() with 12 samples (±3% around the median) in each
// measured result, scaled by scale: enough samples for the U test to see a
// 10% change.
func Sampled(scale float64) *result.Run {
	run := Fixture()
	for i := range run.Results {
		r := &run.Results[i]
		if r.Error != "" {
			continue
		}
		base := r.MedianNS
		r.SamplesNS = make([]float64, 12)
		for j := range r.SamplesNS {
			r.SamplesNS[j] = scale * base * (1 + 0.03*math.Sin(float64(3*j+i)))
		}
		r.MedianNS = scale * base
		r.GFLOPS, r.GBPS = r.GFLOPS/scale, r.GBPS/scale
		r.Share.ComputeTheoretical /= scale
		r.Share.ComputeEmpirical /= scale
		r.Share.Bandwidth /= scale
		r.Share.Roofline /= scale
	}
	return run
}

// CheckGolden compares got with testdata/name of the package under test,
// rewriting the file first with go test -update.
func CheckGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -update to accept):\n%s", path, got)
	}
}
