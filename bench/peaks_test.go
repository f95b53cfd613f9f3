package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/result"
)

// onDevice is a backend on a device of the test's choosing.
type onDevice struct {
	faultyBackend
	dev platform.Device
}

func (b onDevice) Device() platform.Device { return b.dev }

// TestPlatformsFor: the host's peaks always, a GPU platform's only when a
// backend runs on one of its devices (a worker's kind has none) or -peak
// asks for every platform.
func TestPlatformsFor(t *testing.T) {
	names := func(ps []platform.Platform) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.Name)
		}
		return strings.Join(s, ",")
	}
	host := faultyBackend{}
	cuda := onDevice{dev: platform.Device{Kind: platform.CUDA, Index: 1, Name: "Test GPU"}}
	rocm := onDevice{dev: platform.Device{Kind: platform.HIP}}
	other := onDevice{dev: platform.Device{Kind: "mps"}}
	for _, c := range []struct {
		backends []backend.Backend
		all      bool
		want     string
	}{
		{[]backend.Backend{host}, false, "cpu"},
		{[]backend.Backend{host, other}, false, "cpu"},
		{[]backend.Backend{cuda, host}, false, "cpu,cuda"},
		{[]backend.Backend{rocm, cuda}, false, "cpu,cuda,hip"},
		{[]backend.Backend{rocm}, false, "cpu,hip"},
		{nil, true, "cpu,cuda,hip"},
	} {
		if got := names(platformsFor(c.backends, c.all)); got != c.want {
			t.Errorf("platformsFor(%v, %v) = %s; want %s", c.backends, c.all, got, c.want)
		}
	}
}

// unitsRun is a machine with two low-precision units measured and one
// missing, and their peaks on one thread.
func unitsRun() *result.Run {
	m := peak.Machine{Model: "Test CPU", CPUs: 2, Cores: 2, SIMDBits: 512, FMAUnits: 2, UnitsSource: peak.UnitsMeasured,
		ComputeUnits: []peak.ComputeUnitProbe{
			{Unit: peak.UnitAMXBF16, DTypes: []string{"bf16"}, Instruction: "TDPBF16PS (16×16×32 bf16 products)", OpsPerInstruction: 16384,
				ClockGHz: 4, GOPS: 3700, PerCycle: 0.0565, IssueRate: 1.0 / 16},
			{Unit: peak.UnitAVX512VNNI, DTypes: []string{"i8", "u8s8"}, Instruction: "VPDPBUSD zmm (64 u8×s8 products)", OpsPerInstruction: 128,
				ClockGHz: 3.8, GOPS: 900, PerCycle: 1.85, IssueRate: 2},
			{Unit: peak.UnitAMXFP16, DTypes: []string{"f16"}, Missing: "no AMX-FP16 (CPUID.7.1:EAX[21])"},
		}}
	p := peak.Peaks{Compute: []peak.ComputePeak{
		{DType: "f32", Unit: peak.UnitFMA, Threads: 1, TheoreticalGFLOPS: 243, EmpiricalGFLOPS: 240, ClockGHz: 3.8, FLOPsPerCycle: 64, Formula: "1 thread × 3.80 GHz × 64", Kernel: "fma-zmm"},
		{DType: "bf16", Unit: peak.UnitFMA, Threads: 1, TheoreticalGFLOPS: 243, EmpiricalGFLOPS: 240, ClockGHz: 3.8, FLOPsPerCycle: 64, Formula: "the f32 FMA peak (bf16 inputs converted to f32): …", Kernel: "fma-zmm"},
		{DType: "bf16", Unit: peak.UnitAMXBF16, Threads: 1, TheoreticalGFLOPS: 4096, EmpiricalGFLOPS: 3700, ClockGHz: 4, FLOPsPerCycle: 1024, Formula: "1 thread × 4.00 GHz (integer clock) × 1024 ops/cycle", Kernel: "amx-bf16 (6 independent accumulator tiles, TDPBF16PS)"},
		{DType: "i8", Unit: peak.UnitAVX512VNNI, Threads: 1, TheoreticalGFLOPS: 972.8, EmpiricalGFLOPS: 900, ClockGHz: 3.8, FLOPsPerCycle: 256, Formula: "1 thread × 3.80 GHz × 256 ops/cycle", Kernel: "dpbusd-zmm"},
	}}
	return &result.Run{Machine: m, Peaks: p}
}

// TestWritePeaksUnits: -peak lists each low-precision unit measured, with
// its rate, the units missing with the feature they lack, and a row per
// dtype, unit and thread count with its theoretical and measured figures;
// the JSON form carries the same.
func TestWritePeaksUnits(t *testing.T) {
	var b bytes.Buffer
	if err := writePeaks(&b, unitsRun(), "table"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"amx-bf16 (bf16): TDPBF16PS (16×16×32 bf16 products), 0.0565 per cycle → 1/16 → 1024 ops/cycle/core at 4.00 GHz; 1 thread 3700 GOP/s",
		"avx512-vnni (i8, u8s8): VPDPBUSD zmm (64 u8×s8 products), 1.85 per cycle → 2 → 256 ops/cycle/core",
		"amx-fp16: no AMX-FP16 (CPUID.7.1:EAX[21])",
		"DTYPE  UNIT",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-peak output lacks %q:\n%s", want, out)
		}
	}
	rows := map[string]string{"bf16 amx-bf16": "4096", "bf16 fma": "243", "i8 avx512-vnni": "973"}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 6 && rows[f[0]+" "+f[1]] != "" {
			if f[2] != "1" || f[4] != rows[f[0]+" "+f[1]] || !strings.HasSuffix(f[6], "%") {
				t.Errorf("row %q: want 1 thread, theoretical %s and a measured/theoretical share", line, rows[f[0]+" "+f[1]])
			}
			delete(rows, f[0]+" "+f[1])
		}
	}
	if len(rows) > 0 {
		t.Errorf("compute rows missing: %v\n%s", rows, out)
	}

	b.Reset()
	if err := writePeaks(&b, unitsRun(), "json"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Machine peak.Machine `json:"machine"`
		Peaks   peak.Peaks   `json:"peaks"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if c, ok := got.Peaks.ComputeForUnit("bf16", peak.UnitAMXBF16, 1); !ok || c.TheoreticalGFLOPS != 4096 {
		t.Errorf("JSON: bf16 amx-bf16 peak %+v, %v", c, ok)
	}
	if u, ok := got.Machine.ComputeUnit(peak.UnitAMXFP16); !ok || u.OK() || !strings.Contains(u.Missing, "AMX-FP16") {
		t.Errorf("JSON: amx-fp16 unit %+v, %v; want it missing, with its feature", u, ok)
	}
}
