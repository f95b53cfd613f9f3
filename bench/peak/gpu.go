package peak

import (
	"fmt"
	"strings"
)

// GPU describes a GPU as its runtime reports it: read, not measured.
type GPU struct {
	// Device names the GPU as results do (result.Result.Device):
	// "cuda:0 NVIDIA H100 80GB HBM3", "rocm:0 AMD Instinct MI300X".
	Device            string  `json:"device"`
	Vendor            string  `json:"vendor"` // "nvidia" or "amd"
	Name              string  `json:"name"`
	ComputeCapability string  `json:"compute_capability"` // "9.0" (AMD: HIP's approximation)
	Arch              string  `json:"arch"`               // "Hopper", from the table; "" when unknown
	SMs               int     `json:"sms"`                // streaming multiprocessors (AMD: compute units)
	ClockMHz          float64 `json:"clock_mhz"`          // peak SM clock (cudaDevAttrClockRate)
	MemoryClockMHz    float64 `json:"memory_clock_mhz"`   // peak memory clock (cudaDevAttrMemoryClockRate)
	BusWidthBits      int     `json:"bus_width_bits"`
	L2Bytes           int     `json:"l2_bytes"`
	MemoryBytes       uint64  `json:"memory_bytes"`
	Runtime           string  `json:"runtime"` // "cuda 12.4, driver 12.4"
}

// GPUPeaks are one GPU's compute and bandwidth peaks.
//
// Compute entries have one per dtype the GPU computes: "f64", "f32",
// "tf32", "f16", "bf16", "e4m3" and "e5m2" (the fp8 tensor cores, one rate
// for both), "i8" (the int8 tensor cores; its FLOPs are integer
// operations). Their Threads is 0, FLOPsPerCycle is per SM and ClockGHz the
// clock the figure assumes. EmpiricalGFLOPS is the best verified GEMM of that
// dtype on the device in the run (filled in after the run; 0 before).
//
// Bandwidth holds measured device-to-device copies: "DRAM" (buffers far
// larger than L2) and "L2" (buffers that fit in it); bytes read and written
// are both counted.
type GPUPeaks struct {
	GPU
	Compute          []ComputePeak   `json:"compute"`
	TheoreticalGBPS  float64         `json:"theoretical_gbps"`
	BandwidthFormula string          `json:"bandwidth_formula"`
	Bandwidth        []BandwidthPeak `json:"bandwidth"`
	Notes            []string        `json:"notes,omitempty"`
}

// GPU returns the peaks of the GPU named device (GPU.Device).
func (p Peaks) GPU(device string) (GPUPeaks, bool) {
	for _, g := range p.GPUs {
		if g.Device == device {
			return g, true
		}
	}
	return GPUPeaks{}, false
}

// ComputeFor returns the compute peak of dtype.
func (g GPUPeaks) ComputeFor(dtype string) (ComputePeak, bool) {
	for _, c := range g.Compute {
		if c.DType == dtype {
			return c, true
		}
	}
	return ComputePeak{}, false
}

// BandwidthFor returns the measured bandwidth of level ("DRAM", "L2").
func (g GPUPeaks) BandwidthFor(level string) (BandwidthPeak, bool) {
	for _, b := range g.Bandwidth {
		if b.Level == level {
			return b, true
		}
	}
	return BandwidthPeak{}, false
}

// LevelFor names where a hot working set of bytes lives: "L2" when it fits
// in half the L2 cache (as LevelFor of Machine counts caches), else "DRAM".
func (g GPUPeaks) LevelFor(bytes float64) string {
	if g.L2Bytes > 0 && bytes <= 0.5*float64(g.L2Bytes) {
		if _, ok := g.BandwidthFor("L2"); ok {
			return "L2"
		}
	}
	return "DRAM"
}

// SetEmpirical records gflops, measured by kernel, as dtype's empirical
// compute peak of the GPU named device, when it beats the one recorded.
func (p *Peaks) SetEmpirical(device, dtype string, gflops float64, kernel string) {
	for i := range p.GPUs {
		if p.GPUs[i].Device != device {
			continue
		}
		for j := range p.GPUs[i].Compute {
			c := &p.GPUs[i].Compute[j]
			if c.DType == dtype && gflops > c.EmpiricalGFLOPS {
				c.EmpiricalGFLOPS, c.Kernel = gflops, kernel
			}
		}
	}
}

// gpuRates are an architecture's dense FLOP per SM (compute unit) per clock.
// Zero: the hardware has no such unit (or we do not know it).
type gpuRates struct {
	arch       string
	fp64       float64 // vector FMA units
	fp64Matrix float64 // FP64 tensor cores (DMMA) / matrix cores, at the full clock; 0 when none or slower
	fp32       float64 // vector FMA units (SGEMM runs here on NVIDIA: no TF32 unless asked)
	fp32Matrix float64 // AMD matrix cores in f32 (rocBLAS sgemm uses them); 0 on NVIDIA
	tf32       float64 // tensor cores, dense
	f16        float64 // tensor cores, dense, f32 accumulation
	bf16       float64
	fp8        float64 // e4m3 and e5m2, f32 accumulation
	i8         float64 // int8 tensor cores (AMD: matrix cores), i32 accumulation
	// tensorClock is the clock NVIDIA's datasheets compute the tensor-core
	// figures (tf32, f16, bf16, fp8) at, as a fraction of the peak SM clock:
	// Hopper's 989.4 TFLOP/s bf16 is 132 SMs × 4096 × 1.83 GHz, while its
	// FP32 and FP64 figures use the 1.98 GHz boost clock.
	tensorClock float64
	// geforce: GeForce parts run f16, bf16, tf32 and fp8 tensor ops with f32
	// accumulation at half the rate of the professional parts of the chip;
	// int8 at the full rate (RTX 4090: 660.6 dense TOPS, as the L40S's per
	// SM and clock).
	geforce bool
	source  string
}

// nvidiaRates, by compute capability. Each row is checked against NVIDIA's
// datasheet figures (dense, no sparsity: the datasheets print the sparse
// figure, twice these, with an asterisk) as SMs × clock × rate:
//
//	7.0 V100 SXM2: 80 SMs, 1530 MHz: FP64 7.8, FP32 15.7, FP16 tensor 125 TFLOP/s; no INT8 tensor cores
//	7.5 T4: 40 SMs, 1590 MHz: FP32 8.1, FP16 tensor 65, INT8 130 TOPS (RTX 2080 Ti, f32 acc.: half)
//	8.0 A100 SXM: 108 SMs, 1410 MHz: FP64 9.7, FP64 tensor 19.5, FP32 19.5, TF32 156, BF16 312,
//	    INT8 624 TOPS (NVIDIA A100 datasheet: 1,248 with sparsity); no FP8
//	8.6 A40: 84 SMs, 1740 MHz: FP32 37.4, TF32 74.8, BF16 149.7, INT8 299.3 TOPS (RTX 3090: TF32 35.6, f16 71)
//	8.9 L40S: 142 SMs, 2520 MHz: FP32 91.6, TF32 183, BF16 362, FP8 733, INT8 733 TOPS (RTX 4090: BF16 165,
//	    FP8 330, INT8 661)
//	9.0 H100 SXM5: 132 SMs, 1980 MHz (tensor 1830): FP64 33.5, FP64 tensor 66.9, FP32 66.9,
//	    TF32 494.7, BF16 989.4, FP8 1978.9, INT8 1978.9 TOPS (NVIDIA H100 datasheet and
//	    Hopper whitepaper: FP8 and INT8 3,958 with sparsity)
//	10.0 B200: 148 SMs, 1980 MHz (tensor about 1856): FP64 37.5, FP32 75, TF32 1125, BF16 2250, FP8 4500,
//	    INT8 4500 TOPS
//	12.0 RTX PRO 6000 / RTX 5090: FP32 256/SM/clk; tensor like Ada (GeForce half)
//
// 8.7 (Jetson Orin) is assumed to be like 8.6; other capabilities fall back
// to the nearest lower entry of the same major, marked as assumed.
var nvidiaRates = map[string]gpuRates{
	"7.0":  {arch: "Volta", fp64: 64, fp32: 128, f16: 1024, tensorClock: 1, source: "V100 datasheet"},
	"7.5":  {arch: "Turing", fp64: 4, fp32: 128, f16: 1024, i8: 2048, tensorClock: 1, geforce: true, source: "T4 datasheet, Turing whitepaper"},
	"8.0":  {arch: "Ampere (GA100)", fp64: 64, fp64Matrix: 128, fp32: 128, tf32: 1024, f16: 2048, bf16: 2048, i8: 4096, tensorClock: 1, source: "A100 datasheet"},
	"8.6":  {arch: "Ampere (GA10x)", fp64: 4, fp32: 256, tf32: 512, f16: 1024, bf16: 1024, i8: 2048, tensorClock: 1, geforce: true, source: "A40 datasheet, GA102 whitepaper"},
	"8.7":  {arch: "Ampere (Orin)", fp64: 4, fp32: 256, tf32: 512, f16: 1024, bf16: 1024, i8: 2048, tensorClock: 1, source: "assumed like GA10x"},
	"8.9":  {arch: "Ada", fp64: 4, fp32: 256, tf32: 512, f16: 1024, bf16: 1024, fp8: 2048, i8: 2048, tensorClock: 1, geforce: true, source: "L40S datasheet, Ada whitepaper"},
	"9.0":  {arch: "Hopper", fp64: 128, fp64Matrix: 256, fp32: 256, tf32: 2048, f16: 4096, bf16: 4096, fp8: 8192, i8: 8192, tensorClock: 1830.0 / 1980, source: "H100 SXM5 datasheet"},
	"10.0": {arch: "Blackwell (B200)", fp64: 128, fp32: 256, tf32: 4096, f16: 8192, bf16: 8192, fp8: 16384, i8: 16384, tensorClock: 1856.0 / 1980, source: "B200 datasheet (per-SM rates derived, unverified on hardware)"},
	"12.0": {arch: "Blackwell (GB20x)", fp64: 4, fp32: 256, tf32: 512, f16: 1024, bf16: 1024, fp8: 2048, i8: 2048, tensorClock: 1, geforce: true, source: "RTX Blackwell whitepaper (unverified on hardware)"},
}

// amdRates, by a substring of the device name (HIP reports marketing names
// such as "AMD Instinct MI300X"), per compute unit per clock, from AMD's
// datasheets (not verified on hardware here):
//
//	MI300X: 304 CUs, 2100 MHz: FP64 81.7, FP64 matrix 163.4, FP32 163.4, TF32 653.7, BF16 1307.4,
//	        FP8 and INT8 2614.9
//	MI250X: 220 CUs, 1700 MHz: FP64 47.9, FP64/FP32 matrix 95.7, BF16 and INT8 383
//	MI100: 120 CUs, 1502 MHz: FP64 11.5, FP32 23.1, FP32 matrix 46.1, FP16 and INT8 184.6, BF16 92.3
var amdRates = []struct {
	name  string
	rates gpuRates
}{
	{"MI300", gpuRates{arch: "CDNA 3 (gfx942)", fp64: 128, fp64Matrix: 256, fp32: 256, fp32Matrix: 256, tf32: 1024, f16: 2048, bf16: 2048, fp8: 4096, i8: 4096, tensorClock: 1, source: "MI300X datasheet"}},
	{"MI250", gpuRates{arch: "CDNA 2 (gfx90a)", fp64: 128, fp64Matrix: 256, fp32: 128, fp32Matrix: 256, f16: 1024, bf16: 1024, i8: 1024, tensorClock: 1, source: "MI250X datasheet"}},
	{"MI210", gpuRates{arch: "CDNA 2 (gfx90a)", fp64: 128, fp64Matrix: 256, fp32: 128, fp32Matrix: 256, f16: 1024, bf16: 1024, i8: 1024, tensorClock: 1, source: "MI210 datasheet"}},
	{"MI100", gpuRates{arch: "CDNA (gfx908)", fp64: 64, fp32: 128, fp32Matrix: 256, f16: 1024, bf16: 512, i8: 1024, tensorClock: 1, source: "MI100 datasheet"}},
}

// lookupRates finds the table row for g, and says when it is assumed.
func lookupRates(g GPU) (gpuRates, string, bool) {
	if g.Vendor == "amd" {
		for _, r := range amdRates {
			if strings.Contains(g.Name, r.name) {
				return r.rates, "", true
			}
		}
		return gpuRates{}, fmt.Sprintf("no peak table entry for %q", g.Name), false
	}
	if r, ok := nvidiaRates[g.ComputeCapability]; ok {
		return r, "", true
	}
	var major, minor int
	if _, err := fmt.Sscanf(g.ComputeCapability, "%d.%d", &major, &minor); err != nil {
		return gpuRates{}, fmt.Sprintf("unknown compute capability %q", g.ComputeCapability), false
	}
	for m := minor - 1; m >= 0; m-- {
		if r, ok := nvidiaRates[fmt.Sprintf("%d.%d", major, m)]; ok {
			return r, fmt.Sprintf("compute capability %s is not in the table: assumed like %d.%d (%s)", g.ComputeCapability, major, m, r.arch), true
		}
	}
	return gpuRates{}, fmt.Sprintf("compute capability %s is not in the peak table", g.ComputeCapability), false
}

// GPUTheoretical computes g's theoretical peaks (no measurement):
//
//	compute   = SMs × clock × FLOP/SM/clock of the dtype's fastest unit
//	            (vector or tensor/matrix), the clock being the peak SM clock
//	            the runtime reports, times the architecture's tensor-clock
//	            factor for tensor-core figures (nvidiaRates)
//	bandwidth = 2 × memory clock × bus width / 8 (two transfers per clock:
//	            HBM's DDR; for GDDR the runtime reports half the data rate)
func GPUTheoretical(g GPU) GPUPeaks {
	p := GPUPeaks{GPU: g}
	r, note, ok := lookupRates(g)
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
	if ok {
		p.Arch = r.arch
	}
	geforce := r.geforce && strings.Contains(g.Name, "GeForce")
	if geforce {
		p.Notes = append(p.Notes, "GeForce: tensor-core rates with f32 accumulation are half the professional parts'")
	}
	clock := g.ClockMHz / 1000 // GHz
	type unit struct {
		rate        float64
		tensor      bool
		what        string
		fullGeForce bool // int8: GeForce runs it at the professional parts' rate
	}
	add := func(dtype string, units ...unit) {
		best := unit{}
		for _, u := range units {
			if u.tensor && geforce && !u.fullGeForce {
				u.rate /= 2
			}
			if u.rate > 0 && (best.rate == 0 || u.rate*clockFactor(r, u.tensor) > best.rate*clockFactor(r, best.tensor)) {
				best = u
			}
		}
		if best.rate == 0 || g.SMs == 0 || clock == 0 {
			return
		}
		f := clockFactor(r, best.tensor)
		c := ComputePeak{
			DType:             dtype,
			TheoreticalGFLOPS: float64(g.SMs) * clock * f * best.rate,
			ClockGHz:          clock * f,
			FLOPsPerCycle:     best.rate,
			Kernel:            "(best GEMM of the run)",
		}
		if f != 1 {
			c.Formula = fmt.Sprintf("%d SMs × %.3f GHz × %.4f (%s tensor clock, %s) × %g FLOP/SM/clk (%s)",
				g.SMs, clock, f, r.arch, r.source, best.rate, best.what)
		} else {
			c.Formula = fmt.Sprintf("%d SMs × %.3f GHz × %g FLOP/SM/clk (%s; %s)", g.SMs, clock, best.rate, best.what, r.source)
		}
		p.Compute = append(p.Compute, c)
	}
	if ok {
		add("f64", unit{r.fp64, false, "FP64 FMA units", false}, unit{r.fp64Matrix, false, "FP64 tensor/matrix cores", false})
		add("f32", unit{r.fp32, false, "FP32 FMA units", false}, unit{r.fp32Matrix, false, "FP32 matrix cores", false})
		add("tf32", unit{r.tf32, true, "TF32 tensor cores, dense", false})
		add("f16", unit{r.f16, true, "FP16 tensor cores, dense, f32 accumulate", false})
		add("bf16", unit{r.bf16, true, "BF16 tensor cores, dense, f32 accumulate", false})
		add("e4m3", unit{r.fp8, true, "FP8 tensor cores, dense, f32 accumulate", false})
		add("e5m2", unit{r.fp8, true, "FP8 tensor cores, dense, f32 accumulate", false})
		add("i8", unit{r.i8, true, "INT8 tensor cores, dense, i32 accumulate (integer ops)", true})
	}
	if g.MemoryClockMHz > 0 && g.BusWidthBits > 0 {
		p.TheoreticalGBPS = 2 * g.MemoryClockMHz * 1e6 * float64(g.BusWidthBits) / 8 / 1e9
		p.BandwidthFormula = fmt.Sprintf("2 × %.0f MHz × %d bit / 8 (two transfers per memory clock)", g.MemoryClockMHz, g.BusWidthBits)
		if g.Vendor == "amd" {
			p.Notes = append(p.Notes, "theoretical bandwidth: two transfers per memory clock HIP reports, unverified on AMD hardware")
		}
	}
	return p
}

// clockFactor is the fraction of the peak SM clock a unit's figure uses.
func clockFactor(r gpuRates, tensor bool) float64 {
	if tensor && r.tensorClock > 0 {
		return r.tensorClock
	}
	return 1
}
