package harness

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/measure"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/workload"
)

// gpuFake is fake on a GPU, claiming the reduced-precision dtypes.
type gpuFake struct{ fake }

func (g *gpuFake) Device() platform.Device {
	return platform.Device{Kind: platform.CUDA, Name: "Test GPU"}
}

// Declared claims every op in every dtype, the reduced-precision ones too.
func (g *gpuFake) Declared() backend.Support {
	all := append(append([]workload.DType(nil), workload.DTypes...), workload.GEMMDTypes...)
	return backend.Support{}.Add(all, workload.Ops...)
}

// TestGPUCeilings: GPU results are shares of their GPU's peaks (L2 when the
// working set fits, DRAM otherwise); the empirical compute peak is the best
// verified gemm of the run; CPU backends never get the reduced dtypes.
func TestGPUCeilings(t *testing.T) {
	opt := measure.DefaultOptions()
	opt.MinTime = time.Millisecond
	g := peak.GPUTheoretical(peak.GPU{Device: "cuda:0 Test GPU", Vendor: "nvidia", ComputeCapability: "9.0", SMs: 132, ClockMHz: 1980, L2Bytes: 50 << 20})
	g.Bandwidth = []peak.BandwidthPeak{{Level: "DRAM", GBPS: 3000}, {Level: "L2", GBPS: 9000}}
	cpu := &fake{name: "cpu", perIter: time.Microsecond}
	gpu := &gpuFake{fake{name: "gpu", perIter: time.Microsecond}}
	p := Plan{
		Workloads: []workload.Workload{
			{Op: workload.GEMM, DType: workload.BF16, Shape: workload.Shape{M: 64, N: 64, K: 64}},
			{Op: workload.GEMM, DType: workload.BF16, Shape: workload.Shape{M: 32, N: 32, K: 32}},
			{Op: workload.Add, DType: workload.F32, Shape: workload.Shape{N: 16 << 20}},
		},
		Backends: []backend.Backend{cpu, gpu},
		Threads:  []int{1},
		Seed:     1,
		Measure:  opt,
		Machine:  peak.Machine{CPUs: 1},
		Peaks:    peak.Peaks{GPUs: []peak.GPUPeaks{g}},
	}
	results, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 4 { // bf16 gemm twice on the GPU alone, add on both
		t.Fatalf("%d results: %+v", len(results), results)
	}
	for _, r := range results {
		if r.Backend == "cpu" && r.DType != "f32" {
			t.Errorf("a CPU backend ran %s", r.DType)
		}
	}
	gemm := results[0]
	if gemm.Backend != "gpu" || gemm.Peak.ComputeTheoreticalGFLOPS < 989000 || gemm.Peak.BandwidthLevel != "L2" || gemm.Peak.BandwidthGBPS != 9000 {
		t.Errorf("gemm ceilings %+v", gemm.Peak)
	}
	var add = results[3]
	if add.Backend != "gpu" || add.Peak.BandwidthLevel != "DRAM" || add.Peak.ComputeTheoreticalGFLOPS < 66000 {
		t.Errorf("add ceilings %+v (%s)", add.Peak, add.Backend)
	}
	GPUEmpirical(&p.Peaks, results)
	best := math.Max(results[0].GFLOPS, results[1].GFLOPS)
	c, _ := p.Peaks.GPUs[0].ComputeFor("bf16")
	if c.EmpiricalGFLOPS != best || results[1].Peak.ComputeEmpiricalGFLOPS != best {
		t.Errorf("empirical %v (%s), result %v; want %v", c.EmpiricalGFLOPS, c.Kernel, results[1].Peak.ComputeEmpiricalGFLOPS, best)
	}
	if s := results[0].Share.ComputeEmpirical; math.Abs(s-results[0].GFLOPS/best) > 1e-12 {
		t.Errorf("share %v", s)
	}
}
