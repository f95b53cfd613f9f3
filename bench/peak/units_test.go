package peak

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// recordMachine, when set, makes TestRecordMachine write the machine at
// hand (CPUID leaves, /proc/cpuinfo, sysfs, unit probes) as a fixture:
//
//	go test ./bench/peak -run TestRecordMachine -record-machine=NAME
var recordMachine = flag.String("record-machine", "", "write this machine as testdata/machines/NAME.json")

// fixtureMachine is a machine as recorded (or written from public CPUID and
// sysfs values): what detect reads, and what its unit probes measured.
type fixtureMachine struct {
	Name    string            `json:"name"`
	Source  string            `json:"source"`
	Arch    string            `json:"arch"`
	CPUs    int               `json:"cpus"`
	CPUID   []cpuidLeaf       `json:"cpuid,omitempty"`
	CPUInfo string            `json:"cpuinfo"`
	Sysfs   map[string]string `json:"sysfs"` // path under /sys/devices/system/cpu → content
	Probes  []WidthUnits      `json:"probes"`
}

type cpuidLeaf struct {
	EAX, ECX uint32
	Out      [4]uint32 // eax, ebx, ecx, edx
}

// A leaf is written in JSON as one line of hex: "leaf/subleaf: eax ebx ecx edx".
func (l cpuidLeaf) MarshalText() ([]byte, error) {
	return fmt.Appendf(nil, "%08x/%x: %08x %08x %08x %08x", l.EAX, l.ECX, l.Out[0], l.Out[1], l.Out[2], l.Out[3]), nil
}

func (l *cpuidLeaf) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "%x/%x: %x %x %x %x", &l.EAX, &l.ECX, &l.Out[0], &l.Out[1], &l.Out[2], &l.Out[3])
	return err
}

// cpuid answers from the recorded leaves; a leaf not recorded reads as zeros,
// as CPUID answers a leaf above its maximum with (nearly) nothing.
func (f fixtureMachine) cpuid() cpuidFunc {
	if len(f.CPUID) == 0 {
		return nil
	}
	return func(eax, ecx uint32) (uint32, uint32, uint32, uint32) {
		for _, l := range f.CPUID {
			if l.EAX == eax && l.ECX == ecx {
				return l.Out[0], l.Out[1], l.Out[2], l.Out[3]
			}
		}
		return 0, 0, 0, 0
	}
}

// view writes the fixture's files under dir and returns what detect reads.
func (f fixtureMachine) view(t *testing.T, dir string) view {
	t.Helper()
	files := map[string]string{"cpuinfo": f.CPUInfo}
	for p, c := range f.Sysfs {
		files[filepath.Join("sys", p)] = c
	}
	writeFixture(t, dir, files)
	v := view{arch: f.Arch, os: "linux", cpus: f.CPUs, cpuid: f.cpuid(),
		procCPUInfo: filepath.Join(dir, "cpuinfo"), sysCPU: filepath.Join(dir, "sys")}
	switch f.Arch {
	case "amd64":
		v.isa, v.features = isaFromCPUID(v.cpuid)
	case "arm64":
		v.isa = isa{arch: "arm64", fma: true}
		v.features = strings.Fields(readCPUInfo(v.procCPUInfo)["Features"])
	}
	return v
}

// fixedProber answers with a fixture's probes; a width with Error fails.
type fixedProber []WidthUnits

func (p fixedProber) widths() []int {
	var ws []int
	for _, w := range p {
		ws = append(ws, w.Bits)
	}
	return ws
}

func (p fixedProber) probe(bits int) (WidthUnits, error) {
	for _, w := range p {
		if w.Bits == bits {
			if w.Error != "" {
				return WidthUnits{}, errors.New(w.Error)
			}
			return w, nil
		}
	}
	return WidthUnits{}, errNoProbe
}

// leavesX86 writes the CPUID leaves detect and isaFromCPUID read, from a
// vendor, the leaf 1 signature (EAX) and feature bits, and a brand string.
func leavesX86(vendor string, signature, ecx1, ebx7 uint32, brand string) []cpuidLeaf {
	v := []byte(vendor)
	le := binary.LittleEndian.Uint32
	ls := []cpuidLeaf{
		{0, 0, [4]uint32{7, le(v[0:4]), le(v[8:12]), le(v[4:8])}},
		{1, 0, [4]uint32{signature, 0, ecx1, 0}},
		{7, 0, [4]uint32{0, ebx7, 0, 0}},
		{0x80000000, 0, [4]uint32{0x80000004, 0, 0, 0}},
	}
	b := make([]byte, 48)
	copy(b, brand)
	for i := range uint32(3) {
		var out [4]uint32
		for j := range out {
			out[j] = le(b[16*i+4*uint32(j):])
		}
		ls = append(ls, cpuidLeaf{0x80000002 + i, 0, out})
	}
	return ls
}

// CPUID feature bits the fixtures set.
const (
	ecxFMA     = 1 << 12
	ecxAVX     = 1 << 28
	ebxAVX2    = 1 << 5
	ebxAVX512F = 1 << 16
)

// sysfsCachesOf writes cpu0's cache entries (level, type, size, CPUs sharing
// it) and each CPU's core siblings (one core per CPU).
func sysfsCachesOf(cpus int, caches ...[4]string) map[string]string {
	fs := map[string]string{}
	for i, c := range caches {
		d := fmt.Sprintf("cpu0/cache/index%d/", i)
		fs[d+"level"], fs[d+"type"], fs[d+"size"], fs[d+"shared_cpu_list"] = c[0], c[1], c[2], c[3]
	}
	for cpu := range cpus {
		fs[fmt.Sprintf("cpu%d/topology/core_cpus_list", cpu)] = fmt.Sprint(cpu)
	}
	return fs
}

// probesAt writes the probes of a core with `pipes` FMA pipes per width (0:
// the width is absent) at the given clocks: what an ideal probe measures.
func probesAt(widths map[int][2]float64) []WidthUnits {
	var ws []WidthUnits
	for _, bits := range []int{512, 256, 128} {
		pc, ok := widths[bits]
		if !ok {
			continue
		}
		pipes, ghz := pc[0], pc[1]
		lanes := float64(bits / 32)
		ws = append(ws, WidthUnits{Bits: bits, ClockGHz: ghz, F32GFLOPS: pipes * lanes * 2 * ghz, F64GFLOPS: pipes * lanes * ghz})
	}
	return ws
}

// fixtureMachines are the machines peakbench has met, and two it must
// understand without having met them: each with what detect and the unit
// model must make of it.
func fixtureMachines(t *testing.T) []struct {
	f                     fixtureMachine
	microarch, tableUnits string // the table's claim
	bits, pipes           int    // the model's units
	f32                   float64
	note                  string // a substring of UnitsNote; "" for none
} {
	recorded := func(name string) fixtureMachine {
		b, err := os.ReadFile(filepath.Join("testdata", "machines", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var f fixtureMachine
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return f
	}
	l3 := func(size, shared string) [4]string { return [4]string{"3", "Unified", size, shared} }
	return []struct {
		f                     fixtureMachine
		microarch, tableUnits string
		bits, pipes           int
		f32                   float64
		note                  string
	}{
		{
			// The Intel Xeon VM whose hypervisor says Rocket Lake: two 512-bit
			// FMA units, slower while they run (recorded by TestRecordMachine).
			f: recorded("intel-xeon-vm"), microarch: "Rocket Lake", tableUnits: "2 × 256",
			bits: 512, pipes: 2, f32: 64,
			note: "CPUID says Rocket Lake (2 × 256-bit FMA pipes), the core issues 2 × 512-bit FMAs per cycle: using the measurement",
		},
		{
			f: fixtureMachine{Name: "amd-zen3", Arch: "amd64", CPUs: 2,
				CPUID:   leavesX86("AuthenticAMD", 0x00A00F11, ecxFMA|ecxAVX, ebxAVX2, "AMD EPYC 7B13 64-Core Processor"),
				CPUInfo: "processor\t: 0\nvendor_id\t: AuthenticAMD\n",
				Sysfs:   sysfsCachesOf(2, [4]string{"1", "Data", "32K", "0"}, [4]string{"2", "Unified", "512K", "0"}, l3("32768K", "0-1")),
				Probes:  probesAt(map[int][2]float64{256: {2, 3.05}, 128: {2, 3.05}})},
			microarch: "Zen 3", tableUnits: "2 × 256", bits: 256, pipes: 2, f32: 32,
		},
		{
			// AVX-512 as two 256-bit halves: one zmm FMA per cycle, the same
			// FLOP/cycle as two ymm; the narrower width names the units.
			f: fixtureMachine{Name: "amd-zen4", Arch: "amd64", CPUs: 2,
				CPUID:   leavesX86("AuthenticAMD", 0x00A10F11, ecxFMA|ecxAVX, ebxAVX2|ebxAVX512F, "AMD EPYC 9B14"),
				CPUInfo: "processor\t: 0\n",
				Sysfs:   sysfsCachesOf(2, [4]string{"1", "Data", "32K", "0"}, [4]string{"2", "Unified", "1024K", "0"}, l3("32768K", "0-1")),
				Probes:  probesAt(map[int][2]float64{512: {1, 3.65}, 256: {2, 3.65}, 128: {2, 3.66}})},
			microarch: "Zen 4", tableUnits: "2 × 256", bits: 256, pipes: 2, f32: 32,
		},
		{
			// A Xeon Silver 4114: Skylake-SP with one 512-bit FMA unit (port
			// 0+1 fused; no port-5 FMA), slower under zmm. The table, which
			// cannot tell it from a Gold, says two.
			f: fixtureMachine{Name: "intel-skylake-sp-1fma", Arch: "amd64", CPUs: 2,
				CPUID:   leavesX86("GenuineIntel", 0x00050654, ecxFMA|ecxAVX, ebxAVX2|ebxAVX512F, "Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz"),
				CPUInfo: "processor\t: 0\n",
				Sysfs:   sysfsCachesOf(2, [4]string{"1", "Data", "32K", "0"}, [4]string{"2", "Unified", "1024K", "0"}, l3("14080K", "0-1")),
				Probes:  probesAt(map[int][2]float64{512: {1, 2.0}, 256: {2, 2.2}, 128: {2, 2.2}})},
			microarch: "Skylake-X", tableUnits: "2 × 512", bits: 256, pipes: 2, f32: 32,
			note: "CPUID says Skylake-X (2 × 512-bit FMA pipes), the core issues 2 × 256-bit FMAs per cycle",
		},
		{
			// An Arm Neoverse N1 (Graviton 2, Ampere Altra): two 128-bit NEON
			// FMA pipes; no table row, so the units are the probes' alone.
			f: fixtureMachine{Name: "arm-neoverse-n1", Arch: "arm64", CPUs: 2,
				CPUInfo: "processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\n" +
					"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n",
				Sysfs:  sysfsCachesOf(2, [4]string{"1", "Data", "64K", "0"}, [4]string{"2", "Unified", "1024K", "0"}, l3("32768K", "0-1")),
				Probes: probesAt(map[int][2]float64{128: {2, 3.0}})},
			microarch: "generic", tableUnits: "2 × 128", bits: 128, pipes: 2, f32: 16,
			note: "is not in the table: the core issues 2 × 128-bit FMAs per cycle, from measurement alone",
		},
		{
			// A CPU no table knows yet (an Intel family 6 model 0xFE) with one
			// 512-bit FMA pipe: measured, never guessed.
			f: fixtureMachine{Name: "intel-unknown", Arch: "amd64", CPUs: 2,
				CPUID:   leavesX86("GenuineIntel", 0x000F06E0, ecxFMA|ecxAVX, ebxAVX2|ebxAVX512F, "Genuine Intel(R) CPU 0000"),
				CPUInfo: "processor\t: 0\n",
				Sysfs:   sysfsCachesOf(2, [4]string{"1", "Data", "48K", "0"}, [4]string{"2", "Unified", "2048K", "0"}),
				Probes:  probesAt(map[int][2]float64{512: {1, 3.0}, 256: {1, 3.2}, 128: {2, 3.2}})},
			microarch: "generic", tableUnits: "2 × 512", bits: 512, pipes: 1, f32: 32,
			note: "is not in the table: the core issues 1 × 512-bit FMAs per cycle, from measurement alone",
		},
	}
}

// TestFixtureMachines reads each fixture machine as detect does, models its
// units from its probes, and checks the table's claim, the units, the
// FLOP/cycle and the note that says where they disagree.
func TestFixtureMachines(t *testing.T) {
	for _, tc := range fixtureMachines(t) {
		t.Run(tc.f.Name, func(t *testing.T) {
			m := detect(tc.f.view(t, t.TempDir()))
			if m.Microarch != tc.microarch || m.UnitsSource != UnitsFromTable {
				t.Errorf("detect: Microarch %q (%s), want %q from the table", m.Microarch, m.UnitsSource, tc.microarch)
			}
			if got := fmt.Sprintf("%d × %d", m.Table.FMAUnits, m.Table.SIMDBits); got != tc.tableUnits {
				t.Errorf("table claims %s, want %s", got, tc.tableUnits)
			}
			m = applyUnits(m, probeUnits(fixedProber(tc.f.Probes)))
			if m.UnitsSource != UnitsMeasured || m.SIMDBits != tc.bits || m.FMAUnits != tc.pipes {
				t.Errorf("units %d × %d-bit (%s), want %d × %d-bit measured", m.FMAUnits, m.SIMDBits, m.UnitsSource, tc.pipes, tc.bits)
			}
			if got := m.FLOPsPerCycle("f32"); got != tc.f32 || m.FLOPsPerCycle("f64") != tc.f32/2 {
				t.Errorf("FLOP/cycle f32 %g, f64 %g; want %g, %g", got, m.FLOPsPerCycle("f64"), tc.f32, tc.f32/2)
			}
			if tc.note == "" && m.UnitsNote != "" || !strings.Contains(m.UnitsNote, tc.note) {
				t.Errorf("UnitsNote = %q, want %q", m.UnitsNote, tc.note)
			}
			if len(m.Caches) < 2 || m.CacheBytes(1) <= 0 {
				t.Errorf("reported caches %+v", m.Caches)
			}
		})
	}
}

// TestUnitsDegrade: a width whose probe cannot run, or measures nothing
// usable, is named and the model falls back to the next narrower one; with
// no width left the table's units stay, and the note says why.
func TestUnitsDegrade(t *testing.T) {
	table := Machine{Microarch: "Sapphire Rapids", SIMDBits: 512, FMAUnits: 2,
		Table: UnitClaim{"Sapphire Rapids", 512, 2}, UnitsSource: UnitsFromTable}
	ok := probesAt(map[int][2]float64{256: {2, 4.0}, 128: {2, 4.0}})
	for _, tc := range []struct {
		name   string
		probes []WidthUnits
		bits   int    // the model's width; 512 and "table" when nothing was measured
		source string // UnitsSource
		note   []string
	}{
		{"zmm forbidden", append([]WidthUnits{{Bits: 512, Error: "SIGILL: AVX-512 disabled in this sandbox"}}, ok...), 256, UnitsMeasured,
			[]string{"512-bit probe skipped: SIGILL: AVX-512 disabled in this sandbox", "CPUID says Sapphire Rapids (2 × 512-bit FMA pipes), the core issues 2 × 256-bit FMAs per cycle"}},
		{"zmm measured nothing", append([]WidthUnits{{Bits: 512, ClockGHz: 3.8}}, ok...), 256, UnitsMeasured,
			[]string{"512-bit probe skipped: 512-bit probe measured clock 3.8 GHz, 0 / 0 GFLOP/s: not a usable figure"}},
		{"zmm paced by its FMAs", append([]WidthUnits{{Bits: 512, ClockGHz: 2, F32GFLOPS: 20, F64GFLOPS: 10}}, ok...), 256, UnitsMeasured,
			[]string{"512-bit FMAs ran at 0.31 per cycle"}},
		{"noisy probe", []WidthUnits{{Bits: 256, ClockGHz: 4, F32GFLOPS: 4 * 8 * 2 * 1.6, F64GFLOPS: 4 * 4 * 2 * 1.6}}, 256, UnitsMeasured,
			[]string{"256-bit FMAs ran at 1.60 per cycle, counted as 2 pipes (a noisy probe?)"}},
		{"every probe failed", []WidthUnits{{Bits: 512, Error: "no"}, {Bits: 256, Error: "no"}}, 512, UnitsFromTable,
			[]string{"no unit probe ran: FP units from the table (Sapphire Rapids, 2 × 512-bit FMA pipes)"}},
		{"no probe (other GOARCH, purego)", nil, 512, UnitsFromTable,
			[]string{"no unit probe for this CPU and build: FP units from the table"}},
	} {
		m := applyUnits(table, probeUnits(fixedProber(tc.probes)))
		if m.SIMDBits != tc.bits || m.UnitsSource != tc.source {
			t.Errorf("%s: %d-bit from %s, want %d-bit from %s", tc.name, m.SIMDBits, m.UnitsSource, tc.bits, tc.source)
		}
		for _, n := range tc.note {
			if !strings.Contains(m.UnitsNote, n) {
				t.Errorf("%s: UnitsNote = %q, want it to say %q", tc.name, m.UnitsNote, n)
			}
		}
	}
}

// TestMeasureUnitsHere probes the CPU at hand: every width it offers either
// yields a whole pipe count or says why not, and the model's units are one
// of them.
func TestMeasureUnitsHere(t *testing.T) {
	m := MeasureUnits(DetectMachine(), true)
	t.Logf("%s: %d × %d-bit (%s); %s", m.Microarch, m.FMAUnits, m.SIMDBits, m.UnitsSource, m.UnitsNote)
	if len(hostProber{}.widths()) == 0 {
		if m.UnitsSource != UnitsFromTable || m.UnitsNote == "" {
			t.Errorf("no probe here, yet units from %s, note %q", m.UnitsSource, m.UnitsNote)
		}
		return
	}
	if m.UnitsSource != UnitsMeasured {
		t.Fatalf("units from %s: %s", m.UnitsSource, m.UnitsNote)
	}
	found := false
	for _, u := range m.Units {
		t.Logf("%+v", u)
		if u.OK() && u.Bits == m.SIMDBits && u.Pipes == m.FMAUnits {
			found = true
		}
	}
	if !found {
		t.Errorf("units %d × %d-bit are none of the probed widths %+v", m.FMAUnits, m.SIMDBits, m.Units)
	}
}

// TestRecordMachine writes the machine at hand as a fixture (see
// recordMachine); without the flag it does nothing.
func TestRecordMachine(t *testing.T) {
	if *recordMachine == "" {
		t.Skip("set -record-machine=NAME to record this machine")
	}
	if hostCPUID == nil {
		t.Skip("records amd64 machines (CPUID) only")
	}
	f := fixtureMachine{Name: *recordMachine, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Sysfs: map[string]string{},
		Source: "recorded by TestRecordMachine on " + time.Now().Format(time.DateOnly)}
	add := func(eax, ecx uint32) {
		a, b, c, d := hostCPUID(eax, ecx)
		f.CPUID = append(f.CPUID, cpuidLeaf{eax, ecx, [4]uint32{a, b, c, d}})
	}
	maxLeaf, _, _, _ := hostCPUID(0, 0)
	for leaf := uint32(0); leaf <= min(maxLeaf, 0x20); leaf++ {
		add(leaf, 0)
	}
	for sub := uint32(1); sub < 8; sub++ {
		add(4, sub)
	}
	add(7, 1)
	maxExt, _, _, _ := hostCPUID(0x80000000, 0)
	for leaf := uint32(0x80000000); leaf <= min(maxExt, 0x80000021); leaf++ {
		add(leaf, 0)
	}
	for sub := uint32(1); sub < 8; sub++ {
		add(0x8000001D, sub)
	}
	info, err := os.ReadFile(procCPUInfo)
	if err == nil {
		first, _, _ := strings.Cut(string(info), "\n\n")
		f.CPUInfo = first + "\n"
	}
	paths, _ := filepath.Glob(filepath.Join(sysCPU, "cpu[0-9]*", "cache", "index[0-9]*", "*"))
	more, _ := filepath.Glob(filepath.Join(sysCPU, "cpu[0-9]*", "topology", "core_cpus_list"))
	for _, p := range append(paths, more...) {
		if !slices.Contains([]string{"level", "type", "size", "shared_cpu_list", "core_cpus_list"}, filepath.Base(p)) {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			rel, _ := filepath.Rel(sysCPU, p)
			f.Sysfs[rel] = strings.TrimSpace(string(b))
		}
	}
	f.Probes = probeUnits(hostProber{budgetFor(false)})
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("testdata", "machines", *recordMachine+".json")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
}

// TestUnitsBetweenCounts: a rate between two whole pipe counts takes the
// count CPUID names for that width where it is one of the two, else it
// rounds; a rate near a whole count is taken as measured.
func TestUnitsBetweenCounts(t *testing.T) {
	zmm := func(perCycle float64) WidthUnits {
		return WidthUnits{Bits: 512, ClockGHz: 3, F32GFLOPS: 3 * 16 * 2 * perCycle, F64GFLOPS: 3 * 8 * 2 * perCycle}
	}
	ymm := WidthUnits{Bits: 256, ClockGHz: 3.2, F32GFLOPS: 3.2 * 8 * 2 * 2, F64GFLOPS: 3.2 * 4 * 2 * 2}
	for _, tc := range []struct {
		name        string
		claim       UnitClaim
		zmmRate     float64
		pipes, bits int
		note        string
	}{
		{"two pipes, a noisy probe", UnitClaim{"Ice Lake-SP", 512, 2}, 1.49, 2, 512, "512-bit FMAs ran at 1.49 per cycle, between two pipe counts: counted as 2, CPUID's"},
		{"one pipe claimed", UnitClaim{"Rocket Lake", 512, 1}, 1.3, 2, 256, "512-bit FMAs ran at 1.30 per cycle, between two pipe counts: counted as 1, CPUID's"}, // 2 × 256 at a faster clock: the model's width
		{"near one, two claimed", UnitClaim{"Ice Lake-SP", 512, 2}, 1.08, 2, 256, "CPUID says Ice Lake-SP (2 × 512-bit FMA pipes), the core issues 2 × 256-bit FMAs per cycle"},
		{"claim at another width", UnitClaim{"Zen 4", 256, 2}, 1.49, 2, 256, "512-bit FMAs ran at 1.49 per cycle, counted as 1 pipes (a noisy probe?)"},
	} {
		m := Machine{Table: tc.claim, SIMDBits: tc.claim.SIMDBits, FMAUnits: tc.claim.FMAUnits, Microarch: tc.claim.Microarch}
		m = applyUnits(m, probeUnits(fixedProber([]WidthUnits{zmm(tc.zmmRate), ymm})))
		if m.FMAUnits != tc.pipes || m.SIMDBits != tc.bits || !strings.Contains(m.UnitsNote, tc.note) {
			t.Errorf("%s: %d × %d-bit, note %q; want %d × %d-bit, a note saying %q", tc.name, m.FMAUnits, m.SIMDBits, m.UnitsNote, tc.pipes, tc.bits, tc.note)
		}
	}
}

// TestEmpiricalRetries: a throughput figure under three quarters of what
// its threads and clock allow is measured again, at most twice, and the
// best kept; one at or above it, or without an expectation, is not.
func TestEmpiricalRetries(t *testing.T) {
	runs := 0
	k := fmaKernel{name: "spin", flopsPerRound: 1, newRunner: func() func(int) float64 {
		runs++
		slow := 1 + 3*btoi(runs == 1) // the first measurement's runner does four times the work
		return func(rounds int) float64 {
			x := 1.0
			for i := 0; i < rounds*slow; i++ {
				x = x*0.999999 + 1e-9
			}
			return x
		}
	}}
	c := newCrew(1)
	defer c.close()
	b := budgetFor(true)
	first := empiricalGFLOPS(c, k, b, 0)
	if runs != 1 {
		t.Fatalf("no expectation: %d measurements, want 1", runs)
	}
	runs = 0
	if g := empiricalGFLOPS(c, k, b, first/2); runs != 1 || g > 2*first {
		t.Errorf("a figure above its expectation: %d measurements (%.3g, first %.3g), want 1", runs, g, first)
	}
	runs = 0
	g := empiricalGFLOPS(c, k, b, 1e12)
	if runs != 1+lowRetries || g < 2*first {
		t.Errorf("a figure far under its expectation: %d measurements, best %.3g against a slow first %.3g; want %d and the faster retries' figure", runs, g, first, 1+lowRetries)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
