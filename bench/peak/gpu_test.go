package peak

import (
	"math"
	"strings"
	"testing"
)

// TestGPUTheoretical checks the table against vendors' datasheet figures
// (dense TFLOP/s), from the attributes the runtime reports.
func TestGPUTheoretical(t *testing.T) {
	for _, c := range []struct {
		gpu  GPU
		want map[string]float64 // TFLOP/s; absent dtypes must be absent
		gbps float64
	}{
		{GPU{Vendor: "nvidia", Name: "NVIDIA H100 80GB HBM3", ComputeCapability: "9.0", SMs: 132, ClockMHz: 1980, MemoryClockMHz: 2619, BusWidthBits: 5120},
			map[string]float64{"f64": 66.9, "f32": 66.9, "tf32": 494.7, "f16": 989.4, "bf16": 989.4, "e4m3": 1978.9, "e5m2": 1978.9, "i8": 1978.9}, 3352},
		{GPU{Vendor: "nvidia", Name: "NVIDIA A100-SXM4-80GB", ComputeCapability: "8.0", SMs: 108, ClockMHz: 1410, MemoryClockMHz: 1593, BusWidthBits: 5120},
			map[string]float64{"f64": 19.5, "f32": 19.5, "tf32": 156, "f16": 312, "bf16": 312, "i8": 624}, 2039},
		{GPU{Vendor: "nvidia", Name: "Tesla V100-SXM2-32GB", ComputeCapability: "7.0", SMs: 80, ClockMHz: 1530, MemoryClockMHz: 877, BusWidthBits: 4096},
			map[string]float64{"f64": 7.8, "f32": 15.7, "f16": 125}, 898},
		{GPU{Vendor: "nvidia", Name: "Tesla T4", ComputeCapability: "7.5", SMs: 40, ClockMHz: 1590},
			map[string]float64{"f64": 0.254, "f32": 8.1, "f16": 65, "i8": 130}, 0},
		{GPU{Vendor: "nvidia", Name: "NVIDIA A40", ComputeCapability: "8.6", SMs: 84, ClockMHz: 1740},
			map[string]float64{"f64": 0.58, "f32": 37.4, "tf32": 74.8, "f16": 149.7, "bf16": 149.7, "i8": 299.3}, 0},
		{GPU{Vendor: "nvidia", Name: "NVIDIA GeForce RTX 4090", ComputeCapability: "8.9", SMs: 128, ClockMHz: 2520, MemoryClockMHz: 10501, BusWidthBits: 384},
			map[string]float64{"f64": 1.29, "f32": 82.6, "tf32": 82.6, "f16": 165.2, "bf16": 165.2, "e4m3": 330.3, "e5m2": 330.3, "i8": 660.6}, 1008},
		{GPU{Vendor: "nvidia", Name: "NVIDIA L40S", ComputeCapability: "8.9", SMs: 142, ClockMHz: 2520},
			map[string]float64{"f64": 1.43, "f32": 91.6, "tf32": 183.2, "f16": 366.4, "bf16": 366.4, "e4m3": 732.8, "e5m2": 732.8, "i8": 732.8}, 0},
		{GPU{Vendor: "nvidia", Name: "NVIDIA B200", ComputeCapability: "10.0", SMs: 148, ClockMHz: 1980},
			map[string]float64{"f64": 37.5, "f32": 75.0, "tf32": 1125, "f16": 2250, "bf16": 2250, "e4m3": 4500, "e5m2": 4500, "i8": 4500}, 0},
		{GPU{Vendor: "amd", Name: "AMD Instinct MI300X", ComputeCapability: "9.4", SMs: 304, ClockMHz: 2100},
			map[string]float64{"f64": 163.4, "f32": 163.4, "tf32": 653.7, "f16": 1307.4, "bf16": 1307.4, "e4m3": 2614.9, "e5m2": 2614.9, "i8": 2614.9}, 0},
	} {
		p := GPUTheoretical(c.gpu)
		for _, cp := range p.Compute {
			want, ok := c.want[cp.DType]
			if !ok {
				t.Errorf("%s: unexpected %s peak %v", c.gpu.Name, cp.DType, cp)
				continue
			}
			if got := cp.TheoreticalGFLOPS / 1000; math.Abs(got-want) > 0.01*want {
				t.Errorf("%s %s: %.1f TFLOP/s; datasheet %.1f (%s)", c.gpu.Name, cp.DType, got, want, cp.Formula)
			}
			if cp.Formula == "" || cp.FLOPsPerCycle == 0 || cp.ClockGHz == 0 {
				t.Errorf("%s %s: incomplete %+v", c.gpu.Name, cp.DType, cp)
			}
		}
		if len(p.Compute) != len(c.want) {
			t.Errorf("%s: %d compute peaks; want %d", c.gpu.Name, len(p.Compute), len(c.want))
		}
		if c.gbps > 0 && math.Abs(p.TheoreticalGBPS-c.gbps) > 0.01*c.gbps {
			t.Errorf("%s: %.0f GB/s; want %.0f (%s)", c.gpu.Name, p.TheoreticalGBPS, c.gbps, p.BandwidthFormula)
		}
	}
}

// TestH100Formula: the formula says which clock the tensor figure uses.
func TestH100Formula(t *testing.T) {
	p := GPUTheoretical(GPU{Vendor: "nvidia", Name: "H100", ComputeCapability: "9.0", SMs: 132, ClockMHz: 1980})
	bf, _ := p.ComputeFor("bf16")
	if want := "132 SMs × 1.980 GHz × 0.9242 (Hopper tensor clock, H100 SXM5 datasheet) × 4096 FLOP/SM/clk"; !strings.HasPrefix(bf.Formula, want) {
		t.Errorf("bf16 formula %q; want prefix %q", bf.Formula, want)
	}
	if math.Abs(bf.ClockGHz-1.83) > 1e-9 {
		t.Errorf("bf16 clock %v; want 1.83", bf.ClockGHz)
	}
	f32, _ := p.ComputeFor("f32")
	if f32.ClockGHz != 1.98 || !strings.Contains(f32.Formula, "FP32 FMA units") {
		t.Errorf("f32 %+v", f32)
	}
}

func TestGPUUnknown(t *testing.T) {
	p := GPUTheoretical(GPU{Vendor: "nvidia", Name: "future", ComputeCapability: "9.5", SMs: 10, ClockMHz: 1000})
	if p.Arch != "Hopper" || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "assumed like 9.0") {
		t.Errorf("9.5: arch %q notes %q", p.Arch, p.Notes)
	}
	p = GPUTheoretical(GPU{Vendor: "nvidia", Name: "far future", ComputeCapability: "15.0", SMs: 10, ClockMHz: 1000})
	if len(p.Compute) != 0 || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "not in the peak table") {
		t.Errorf("15.0: %+v", p)
	}
	p = GPUTheoretical(GPU{Vendor: "amd", Name: "AMD Radeon RX 7900 XTX", SMs: 96, ClockMHz: 2500})
	if len(p.Compute) != 0 || len(p.Notes) != 1 {
		t.Errorf("RX 7900: %+v", p)
	}
}

func TestGPULookups(t *testing.T) {
	g := GPUTheoretical(GPU{Device: "cuda:0 X", Vendor: "nvidia", ComputeCapability: "8.0", SMs: 108, ClockMHz: 1410, L2Bytes: 40 << 20})
	g.Bandwidth = []BandwidthPeak{{Level: "DRAM", GBPS: 1500}, {Level: "L2", GBPS: 5000}}
	p := Peaks{GPUs: []GPUPeaks{g}}
	got, ok := p.GPU("cuda:0 X")
	if !ok || got.SMs != 108 {
		t.Fatalf("GPU() = %v, %v", got, ok)
	}
	if _, ok := p.GPU("cuda:1 X"); ok {
		t.Error("GPU(cuda:1) found")
	}
	if l := got.LevelFor(10 << 20); l != "L2" {
		t.Errorf("10 MiB: %s", l)
	}
	if l := got.LevelFor(30 << 20); l != "DRAM" {
		t.Errorf("30 MiB: %s", l)
	}
	p.SetEmpirical("cuda:0 X", "bf16", 250000, "cublas gemm bf16 8192x8192x8192")
	p.SetEmpirical("cuda:0 X", "bf16", 200000, "slower")
	c, _ := p.GPUs[0].ComputeFor("bf16")
	if c.EmpiricalGFLOPS != 250000 || c.Kernel != "cublas gemm bf16 8192x8192x8192" {
		t.Errorf("SetEmpirical: %+v", c)
	}
}
