package peak

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestClassifyTable(t *testing.T) {
	avx2 := isa{arch: "amd64", avx: true, fma: true}
	avx512 := isa{arch: "amd64", avx: true, fma: true, avx512f: true}
	for _, tc := range []struct {
		vendor        string
		family, model int
		f             isa
		name          string
		simd, fma     int
		f32, f64      float64 // FLOP/cycle/core
	}{
		{amd, 25, 0x01, avx2, "Zen 3", 256, 2, 32, 16}, // EPYC 7B13 (Milan), this project's machine
		{amd, 25, 0x21, avx2, "Zen 3", 256, 2, 32, 16},
		{amd, 25, 0x11, avx512, "Zen 4", 256, 2, 32, 16}, // AVX-512 as 2 × 256
		{amd, 26, 0x02, avx512, "Zen 5", 512, 2, 64, 32},
		{amd, 26, 0x24, avx512, "Zen 5 (mobile)", 256, 2, 32, 16},
		{amd, 23, 0x01, avx2, "Zen", 128, 2, 16, 8},
		{amd, 23, 0x31, avx2, "Zen 2", 256, 2, 32, 16},
		{intel, 6, 0x55, avx512, "Skylake-X", 512, 2, 64, 32},
		{intel, 6, 0x55, avx2, "Skylake-X", 256, 2, 32, 16}, // AVX-512 hidden (VM): 256 is all software gets
		{intel, 6, 0x8F, avx512, "Sapphire Rapids", 512, 2, 64, 32},
		{intel, 6, 0x7E, avx512, "Ice Lake", 256, 2, 32, 16}, // one 512-bit FMA port = 2 × 256
		{intel, 6, 0x97, avx2, "Alder Lake", 256, 2, 32, 16},
		{intel, 6, 0x3C, avx2, "Haswell", 256, 2, 32, 16},
		{intel, 6, 0x2A, isa{avx: true}, "Sandy Bridge", 256, 1, 16, 8},
		{intel, 6, 0x3C, isa{avx: true}, "Haswell", 256, 1, 16, 8}, // FMA hidden: add + multiply
		{intel, 6, 0xFE, avx2, "generic", 256, 2, 32, 16},
		{amd, 99, 0x00, avx512, "generic", 512, 2, 64, 32},
		{"ARM", 0, 0, isa{arch: "arm64", fma: true}, "generic", 128, 2, 16, 8},
		{"riscv64", 0, 0, isa{arch: "riscv64"}, "generic", 128, 1, 8, 4},
	} {
		name, simd, fma := classify(tc.vendor, tc.family, tc.model, tc.f)
		if name != tc.name || simd != tc.simd || fma != tc.fma {
			t.Errorf("classify(%s, %d, %#x, %+v) = %q, %d, %d; want %q, %d, %d",
				tc.vendor, tc.family, tc.model, tc.f, name, simd, fma, tc.name, tc.simd, tc.fma)
		}
		m := Machine{SIMDBits: simd, FMAUnits: fma}
		if g := m.FLOPsPerCycle("f32"); g != tc.f32 {
			t.Errorf("%s: FLOPsPerCycle(f32) = %g, want %g", tc.name, g, tc.f32)
		}
		if g := m.FLOPsPerCycle("f64"); g != tc.f64 {
			t.Errorf("%s: FLOPsPerCycle(f64) = %g, want %g", tc.name, g, tc.f64)
		}
	}
	if g := (Machine{SIMDBits: 256, FMAUnits: 2}).FLOPsPerCycle("bf16"); g != 0 {
		t.Errorf("FLOPsPerCycle(bf16) = %g, want 0 (not modelled)", g)
	}
}

// TestCoreModelsWellFormed guards the table against typos: ranges the right
// way round, widths and unit counts that exist, no two rows for one model.
func TestCoreModelsWellFormed(t *testing.T) {
	for i, r := range coreModels {
		if r.name == "" || r.modelLo > r.modelHi || r.modelHi > 0xFF {
			t.Errorf("row %d %+v: bad name or model range", i, r)
		}
		if r.simdBits != 128 && r.simdBits != 256 && r.simdBits != 512 {
			t.Errorf("row %d %+v: simdBits %d", i, r, r.simdBits)
		}
		if r.fmaUnits < 1 || r.fmaUnits > 2 {
			t.Errorf("row %d %+v: fmaUnits %d", i, r, r.fmaUnits)
		}
		for j, s := range coreModels[:i] {
			if s.vendor == r.vendor && s.family == r.family && s.modelLo <= r.modelHi && r.modelLo <= s.modelHi {
				t.Errorf("rows %d and %d overlap: %+v, %+v", j, i, s, r)
			}
		}
	}
}

func TestDisplayFamilyModel(t *testing.T) {
	for _, tc := range []struct {
		vendor        string
		eax           uint32
		family, model int
	}{
		{amd, 0x00A00F11, 25, 0x01},   // EPYC 7B13 (Milan)
		{amd, 0x00A10F11, 25, 0x11},   // EPYC 9B14 (Genoa)
		{amd, 0x00B00F21, 26, 0x02},   // EPYC 9005 (Turin)
		{amd, 0x00830F10, 23, 0x31},   // EPYC 7002 (Rome)
		{intel, 0x00050654, 6, 0x55},  // Xeon Skylake-SP
		{intel, 0x000306C3, 6, 0x3C},  // Haswell
		{intel, 0x000806F8, 6, 0x8F},  // Sapphire Rapids
		{intel, 0x00000F29, 15, 0x02}, // Pentium 4
		{amd, 0x00010661, 6, 0x06},    // AMD family 6: the extended model is Intel's rule only
	} {
		f, m := displayFamilyModel(tc.vendor, tc.eax)
		if f != tc.family || m != tc.model {
			t.Errorf("displayFamilyModel(%s, %#x) = %d, %#x; want %d, %#x", tc.vendor, tc.eax, f, m, tc.family, tc.model)
		}
	}
}

func testMachine() Machine {
	return Machine{CPUs: 2, Cores: 2, SIMDBits: 256, FMAUnits: 2, Caches: []Cache{
		{Level: 1, Bytes: 32 << 10, SharedBy: 1},
		{Level: 2, Bytes: 1 << 20, SharedBy: 1},
		{Level: 3, Bytes: 32 << 20, SharedBy: 2},
	}}
}

func TestLevelFor(t *testing.T) {
	m := testMachine()
	for _, tc := range []struct {
		bytes   float64
		threads int
		want    string
	}{
		{0, 1, "L1"},
		{32 << 10, 1, "L1"}, // a private cache counts whole
		{32<<10 + 1, 1, "L2"},
		{64 << 10, 2, "L1"}, // private: one L1 per thread
		{64<<10 + 1, 2, "L2"},
		{1 << 20, 1, "L2"},
		{1<<20 + 1, 1, "L3"},
		{2 << 20, 2, "L2"},
		{16 << 20, 1, "L3"}, // shared: half of one instance for both
		{16 << 20, 2, "L3"},
		{16<<20 + 1, 2, "DRAM"},
		{1 << 30, 1, "DRAM"},
	} {
		if got := m.LevelFor(tc.bytes, tc.threads); got != tc.want {
			t.Errorf("LevelFor(%g, %d) = %s, want %s", tc.bytes, tc.threads, got, tc.want)
		}
	}

	// SMT 2: L1/L2 shared by sibling pairs (a core's own: whole), 4 CPUs on 2
	// cores, unknown L3 sharing (all CPUs: half), caches listed out of order.
	// Two threads spread over two cores.
	u := Machine{CPUs: 4, Cores: 2, Caches: []Cache{{Level: 3, Bytes: 8 << 20}, {Level: 2, Bytes: 1 << 20, SharedBy: 2}, {Level: 1, Bytes: 48 << 10, SharedBy: 2}}}
	for _, tc := range []struct {
		bytes   float64
		threads int
		want    string
	}{
		{96 << 10, 2, "L1"}, // two L1 instances
		{96<<10 + 1, 2, "L2"},
		{96 << 10, 8, "L1"}, // oversubscribed: still two instances
		{96<<10 + 1, 8, "L2"},
		{48 << 10, 1, "L1"},
		{2 << 20, 2, "L2"},
		{2<<20 + 1, 4, "L3"},
		{4 << 20, 4, "L3"}, // one L3
		{4<<20 + 1, 4, "DRAM"},
	} {
		if got := u.LevelFor(tc.bytes, tc.threads); got != tc.want {
			t.Errorf("SMT machine: LevelFor(%g, %d) = %s, want %s", tc.bytes, tc.threads, got, tc.want)
		}
	}
	// Cores unknown: a cache shared by two CPUs may be shared by two cores,
	// and counts half.
	u.Cores = 0
	if got := u.LevelFor(24<<10+1, 1); got != "L2" {
		t.Errorf("SMT machine, cores unknown: LevelFor(24 KiB + 1, 1) = %s, want L2", got)
	}
	// CPUs unknown: private caches count once per thread.
	if got := (Machine{Caches: []Cache{{1, 32 << 10, 1}}}).LevelFor(128<<10, 4); got != "L1" {
		t.Errorf("CPUs unknown: got %s, want L1", got)
	}
	// An L3 of unknown sharing counts half even on one CPU.
	if got := (Machine{CPUs: 1, Caches: []Cache{{3, 8 << 20, 0}}}).LevelFor(4<<20+1, 1); got != "DRAM" {
		t.Errorf("one CPU, L3 of unknown sharing: got %s, want DRAM", got)
	}
	if got := (Machine{}).LevelFor(1, 1); got != "DRAM" {
		t.Errorf("no caches: got %s, want DRAM", got)
	}
}

func TestCacheBytes(t *testing.T) {
	m := testMachine()
	if m.CacheBytes(2) != 1<<20 || m.CacheBytes(4) != 0 {
		t.Errorf("CacheBytes(2), (4) = %d, %d", m.CacheBytes(2), m.CacheBytes(4))
	}
	if m.LastLevelCacheBytes() != 32<<20 {
		t.Errorf("LastLevelCacheBytes = %d", m.LastLevelCacheBytes())
	}
	if (Machine{}).LastLevelCacheBytes() != defaultLLC {
		t.Errorf("LastLevelCacheBytes of no caches = %d, want the default", (Machine{}).LastLevelCacheBytes())
	}
}

func TestParsers(t *testing.T) {
	for s, want := range map[string]int{"32K": 32 << 10, "1024K": 1 << 20, "32M": 32 << 20, "4096": 4096, "": 0, "xK": 0} {
		if got := parseSize(s); got != want {
			t.Errorf("parseSize(%q) = %d, want %d", s, got, want)
		}
	}
	for s, want := range map[string]float64{
		"Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz": 2.5,
		"Intel(R) Pentium(R) III CPU 800MHz":       0.8,
		"AMD EPYC 7B13 64-Core Processor":          0,
	} {
		if got := brandGHz(s); got != want {
			t.Errorf("brandGHz(%q) = %g, want %g", s, got, want)
		}
	}
	b := make([]byte, 48)
	copy(b, "       Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz")
	if got := brandString(b); got != "Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz" {
		t.Errorf("brandString = %q", got)
	}
	if armImplementer("0x41") != "ARM" || armImplementer("0x99") != "" || armImplementer("") != "" {
		t.Error("armImplementer")
	}
}

// writeFixture creates files under dir from a map of relative path → content.
func writeFixture(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDetectFromFixtures runs DetectMachine against a fake /proc and /sys: a
// 4-CPU, 2-core (SMT 2) Zen 3. With CPUID (amd64) the identity comes from the
// real CPU; without it (-tags purego, other GOARCHes) from the fixture.
func TestDetectFromFixtures(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"cpuinfo": "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n" +
			"model name\t: AMD EPYC 7B13 64-Core Processor\ncpu MHz\t\t: 2445.406\n\n" +
			"processor\t: 1\nvendor_id\t: GenuineIntel\nmodel name\t: wrong block\n\n",
	}
	idx := []struct{ level, typ, size, shared string }{
		{"1", "Data", "32K", "0,2"}, {"1", "Instruction", "32K", "0,2"},
		{"2", "Unified", "512K", "0,2"}, {"3", "Unified", "32768K", "0-3"},
	}
	for i, c := range idx {
		d := filepath.Join("sys", "cpu0", "cache", "index"+string(rune('0'+i)))
		files[filepath.Join(d, "level")] = c.level + "\n"
		files[filepath.Join(d, "type")] = c.typ + "\n"
		files[filepath.Join(d, "size")] = c.size + "\n"
		files[filepath.Join(d, "shared_cpu_list")] = c.shared + "\n"
	}
	for cpu, sib := range []string{"0,2", "1,3", "0,2", "1,3"} {
		files[filepath.Join("sys", "cpu"+string(rune('0'+cpu)), "topology", "core_cpus_list")] = sib + "\n"
	}
	writeFixture(t, dir, files)

	if got := physicalCores(filepath.Join(dir, "sys"), 4); got != 2 {
		t.Errorf("physicalCores(4 CPUs, SMT 2) = %d, want 2", got)
	}
	if got := physicalCores(filepath.Join(dir, "sys"), 3); got != 2 {
		t.Errorf("physicalCores(3 CPUs, SMT 2) = %d, want 2", got)
	}
	if got := physicalCores(filepath.Join(dir, "nothing"), 3); got != 3 {
		t.Errorf("physicalCores without sysfs = %d, want 3", got)
	}
	info := readCPUInfo(filepath.Join(dir, "cpuinfo"))
	if info["vendor_id"] != "AuthenticAMD" || info["model name"] != "AMD EPYC 7B13 64-Core Processor" {
		t.Errorf("readCPUInfo = %v", info)
	}

	defer func(p, s string) { procCPUInfo, sysCPU = p, s }(procCPUInfo, sysCPU)
	procCPUInfo, sysCPU = filepath.Join(dir, "cpuinfo"), filepath.Join(dir, "sys")
	m := DetectMachine()
	want := []Cache{{1, 32 << 10, 2}, {2, 512 << 10, 2}, {3, 32 << 20, 4}}
	for i := range want {
		want[i].SharedBy = min(want[i].SharedBy, runtime.NumCPU())
	}
	if len(m.Caches) != 3 || m.Caches[0] != want[0] || m.Caches[1] != want[1] || m.Caches[2] != want[2] {
		t.Errorf("Caches = %+v, want %+v", m.Caches, want)
	}
	if _, ok := cpuidInfo(); !ok {
		if m.Vendor != amd || m.Family != 25 || m.ModelID != 1 || m.Model != "AMD EPYC 7B13 64-Core Processor" {
			t.Errorf("identity from cpuinfo: %+v", m)
		}
		if math.Abs(m.NominalGHz-2.445406) > 1e-9 {
			t.Errorf("NominalGHz = %g, want the cpu MHz line", m.NominalGHz)
		}
		if runtime.GOARCH == "amd64" && m.Microarch != "Zen 3" {
			t.Errorf("Microarch = %q, want Zen 3", m.Microarch)
		}
	}
}

func TestDetectMachine(t *testing.T) {
	m := DetectMachine()
	j, _ := json.Marshal(m)
	t.Logf("%s", j)
	if m.Arch != runtime.GOARCH || m.OS != runtime.GOOS || m.CPUs != runtime.NumCPU() {
		t.Errorf("Arch, OS, CPUs = %s, %s, %d", m.Arch, m.OS, m.CPUs)
	}
	if m.Vendor == "" || m.Model == "" || m.Microarch == "" {
		t.Errorf("empty identity: %+v", m)
	}
	if m.Cores < 1 || m.Cores > m.CPUs {
		t.Errorf("Cores = %d with %d CPUs", m.Cores, m.CPUs)
	}
	if m.SIMDBits != 128 && m.SIMDBits != 256 && m.SIMDBits != 512 || m.FMAUnits < 1 {
		t.Errorf("SIMDBits, FMAUnits = %d, %d", m.SIMDBits, m.FMAUnits)
	}
	if len(m.Caches) == 0 || m.CacheBytes(1) <= 0 {
		t.Errorf("Caches = %+v", m.Caches)
	}
	if m.Features == nil {
		t.Error("Features is nil; want a (possibly empty) list")
	}
	// The JSON names are part of the API (other packages and baselines read them).
	for _, key := range []string{`"vendor"`, `"model_id"`, `"microarch"`, `"simd_bits"`, `"fma_units"`, `"shared_by"`, `"nominal_ghz"`} {
		if !strings.Contains(string(j), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func TestThreadCountsText(t *testing.T) {
	for _, c := range []struct {
		threads []int
		want    string
	}{{[]int{1}, "1 thread"}, {[]int{2}, "2 threads"}, {[]int{1, 2}, "1,2 threads"}} {
		if got := ThreadCountsText(c.threads); got != c.want {
			t.Errorf("ThreadCountsText(%v) = %q; want %q", c.threads, got, c.want)
		}
	}
}
