package peak

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/cpu"

	goisa "github.com/peakbench/peakbench/gobackend/isa"
)

// Where Linux describes the CPU; variables so tests can point them at fixtures.
var (
	procCPUInfo = "/proc/cpuinfo"
	sysCPU      = "/sys/devices/system/cpu"
)

// DetectMachine describes the CPU it runs on, as far as it can be read. It
// never fails: what cannot be read is left zero (Family, ModelID,
// NominalGHz), named "generic" (Microarch) or assumed (caches: 32 KiB L1d and
// 1 MiB L2 per core, 32 MiB L3 shared, when neither sysfs nor CPUID tells).
// Its FP units come from the micro-architecture table until MeasureUnits
// replaces them with what the core does.
func DetectMachine() Machine { return detect(hostView()) }

// view is where detect reads a machine: the one at hand (hostView), or a
// recorded one in tests.
type view struct {
	arch, os    string
	cpus        int
	cpuid       cpuidFunc // nil where there is no CPUID
	isa         isa
	features    []string
	procCPUInfo string // /proc/cpuinfo
	sysCPU      string // /sys/devices/system/cpu
}

func hostView() view {
	return view{
		arch: runtime.GOARCH, os: runtime.GOOS, cpus: runtime.NumCPU(),
		cpuid: hostCPUID, isa: hostISA(), features: hostFeatures(),
		procCPUInfo: procCPUInfo, sysCPU: sysCPU,
	}
}

func detect(v view) Machine {
	m := Machine{Arch: v.arch, OS: v.os, CPUs: v.cpus, Features: v.features}
	info := readCPUInfo(v.procCPUInfo)

	x, haveCPUID := cpuidInfoFrom(v.cpuid)
	if haveCPUID {
		m.Vendor, m.Model, m.Family, m.ModelID = x.vendor, x.brand, x.family, x.model
	} else {
		m.Vendor = info["vendor_id"] // x86 under -tags purego
		m.Model = info["model name"]
		m.Family, _ = strconv.Atoi(info["cpu family"])
		m.ModelID, _ = strconv.Atoi(info["model"])
		if m.Vendor == "" {
			m.Vendor = armImplementer(info["CPU implementer"])
		}
		if m.Model == "" && info["CPU part"] != "" {
			m.Model = m.Vendor + " part " + info["CPU part"]
		}
	}
	if m.Vendor == "" {
		m.Vendor = v.arch
	}
	if m.Model == "" {
		m.Model = "unknown " + v.arch + " CPU"
	}
	if m.Features == nil {
		m.Features = []string{}
	}

	m.Microarch, m.SIMDBits, m.FMAUnits = classify(m.Vendor, m.Family, m.ModelID, v.isa)
	m.Table = UnitClaim{Microarch: m.Microarch, SIMDBits: m.SIMDBits, FMAUnits: m.FMAUnits}
	m.UnitsSource = UnitsFromTable

	m.Caches = sysfsCaches(filepath.Join(v.sysCPU, "cpu0", "cache"))
	if len(m.Caches) == 0 && haveCPUID {
		m.Caches = x.caches
	}
	for i := range m.Caches {
		m.Caches[i].SharedBy = min(m.Caches[i].SharedBy, m.CPUs)
	}
	if len(m.Caches) == 0 {
		m.Caches = []Cache{{1, 32 << 10, 1}, {2, 1 << 20, 1}, {3, defaultLLC, m.CPUs}}
	}
	m.Cores = physicalCores(v.sysCPU, m.CPUs)

	// Nominal (TSC/base) clock: the brand string's "@ 2.40GHz", Intel's CPUID
	// leaf 0x16, cpufreq's base_frequency, then /proc/cpuinfo's "cpu MHz" (on a
	// VM often the TSC; on bare metal the current clock of cpu0).
	m.NominalGHz = brandGHz(m.Model)
	if m.NominalGHz == 0 && x.baseMHz > 0 {
		m.NominalGHz = float64(x.baseMHz) / 1000
	}
	if m.NominalGHz == 0 {
		if khz, err := readInt(filepath.Join(v.sysCPU, "cpu0", "cpufreq", "base_frequency")); err == nil && khz > 0 {
			m.NominalGHz = float64(khz) / 1e6
		}
	}
	if m.NominalGHz == 0 {
		if mhz, err := strconv.ParseFloat(info["cpu MHz"], 64); err == nil && mhz > 0 {
			m.NominalGHz = mhz / 1000
		}
	}
	return m
}

// cpuidResult is what CPUID tells (amd64 only).
type cpuidResult struct {
	vendor, brand string
	family, model int
	baseMHz       int     // leaf 0x16 (Intel), 0 if absent
	caches        []Cache // leaf 4 (Intel) or 0x8000001D (AMD)
}

// displayFamilyModel decodes CPUID leaf 1 EAX into the display family and
// model: the extended family is added only when the base family is 0xF; the
// extended model is prepended when the base family is 0xF, or 6 on Intel.
func displayFamilyModel(vendor string, eax uint32) (family, model int) {
	baseFamily := int(eax>>8) & 0xF
	baseModel := int(eax>>4) & 0xF
	extFamily := int(eax>>20) & 0xFF
	extModel := int(eax>>16) & 0xF
	family, model = baseFamily, baseModel
	if baseFamily == 0xF {
		family += extFamily
	}
	if baseFamily == 0xF || (baseFamily == 6 && vendor == intel) {
		model += extModel << 4
	}
	return family, model
}

// brandString cleans the 48 bytes of CPUID 0x80000002..4: NULs dropped, runs of
// spaces collapsed (Intel pads on the left).
func brandString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

var ghzRE = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*([GM])Hz`)

// brandGHz reads the nominal clock from a brand string such as
// "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"; 0 if there is none.
func brandGHz(brand string) float64 {
	s := ghzRE.FindStringSubmatch(brand)
	if s == nil {
		return 0
	}
	v, err := strconv.ParseFloat(s[1], 64)
	if err != nil {
		return 0
	}
	if s[2] == "M" {
		v /= 1000
	}
	return v
}

// readCPUInfo returns the "key : value" pairs of the first processor in
// /proc/cpuinfo (arm64 lists the implementer/part per processor too), or an
// empty map.
func readCPUInfo(path string) map[string]string {
	kv := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return kv
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			if _, ok := kv["processor"]; ok && len(kv) > 1 {
				break // end of the first processor's block
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, dup := kv[k]; !dup {
			kv[k] = v
		}
	}
	return kv
}

// armImplementer names the implementer code of an arm64 MIDR ("0x41"), "" if unknown.
func armImplementer(code string) string {
	v, err := strconv.ParseUint(code, 0, 8)
	if err != nil {
		return ""
	}
	switch v {
	case 0x41:
		return "ARM"
	case 0x42:
		return "Broadcom"
	case 0x43:
		return "Cavium"
	case 0x46:
		return "Fujitsu"
	case 0x48:
		return "HiSilicon"
	case 0x4E:
		return "NVIDIA"
	case 0x51:
		return "Qualcomm"
	case 0x61:
		return "Apple"
	case 0xC0:
		return "Ampere"
	}
	return ""
}

// sysfsCaches reads dir/index*/{level,type,size,shared_cpu_list}, skipping
// instruction caches, sorted by level; nil if there is nothing to read.
func sysfsCaches(dir string) []Cache {
	idx, _ := filepath.Glob(filepath.Join(dir, "index[0-9]*"))
	var cs []Cache
	for _, d := range idx {
		typ, err := os.ReadFile(filepath.Join(d, "type"))
		if err != nil || strings.TrimSpace(string(typ)) == "Instruction" {
			continue
		}
		level, err := readInt(filepath.Join(d, "level"))
		if err != nil {
			continue
		}
		sz, err := os.ReadFile(filepath.Join(d, "size"))
		if err != nil {
			continue
		}
		bytes := parseSize(strings.TrimSpace(string(sz)))
		if bytes <= 0 {
			continue
		}
		shared := 0
		if l, err := os.ReadFile(filepath.Join(d, "shared_cpu_list")); err == nil {
			shared = goisa.CountCPUList(strings.TrimSpace(string(l)))
		}
		cs = append(cs, Cache{Level: level, Bytes: bytes, SharedBy: shared})
	}
	slices.SortStableFunc(cs, func(a, b Cache) int { return a.Level - b.Level })
	return cs
}

// parseSize parses sysfs sizes such as "32K", "1024K", "32M" (or plain bytes); 0 if malformed.
func parseSize(s string) int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0
	}
	return v * mult
}

// physicalCores estimates the physical cores among `cpus` usable logical CPUs:
// sysfs names each CPU's SMT siblings (core_cpus_list, formerly
// thread_siblings_list); logical/distinct lists is the SMT width, and cpus is
// divided by it, rounding up. cpus when sysfs does not tell.
func physicalCores(sys string, cpus int) int {
	paths, _ := filepath.Glob(filepath.Join(sys, "cpu[0-9]*", "topology", "core_cpus_list"))
	if len(paths) == 0 {
		paths, _ = filepath.Glob(filepath.Join(sys, "cpu[0-9]*", "topology", "thread_siblings_list"))
	}
	seen := map[string]bool{}
	logical := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		logical++
		seen[strings.TrimSpace(string(b))] = true
	}
	if logical == 0 || cpus <= 0 {
		return cpus
	}
	ways := max((logical+len(seen)/2)/len(seen), 1)
	return max((cpus+ways-1)/ways, 1)
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// hostFeatures lists the SIMD-relevant features golang.org/x/sys/cpu reports
// (already masked by what the OS enables), in a fixed order.
func hostFeatures() []string {
	type feat struct {
		name string
		has  bool
	}
	var fs []feat
	switch runtime.GOARCH {
	case "amd64", "386":
		x := &cpu.X86
		fs = []feat{
			{"sse2", x.HasSSE2}, {"sse3", x.HasSSE3}, {"ssse3", x.HasSSSE3},
			{"sse41", x.HasSSE41}, {"sse42", x.HasSSE42}, {"popcnt", x.HasPOPCNT},
			{"avx", x.HasAVX}, {"avx2", x.HasAVX2}, {"fma", x.HasFMA}, {"f16c", x.HasF16C},
			{"bmi1", x.HasBMI1}, {"bmi2", x.HasBMI2},
			{"avx512f", x.HasAVX512F}, {"avx512dq", x.HasAVX512DQ}, {"avx512cd", x.HasAVX512CD},
			{"avx512bw", x.HasAVX512BW}, {"avx512vl", x.HasAVX512VL},
			{"avx512ifma", x.HasAVX512IFMA}, {"avx512vbmi", x.HasAVX512VBMI},
			{"avx512vbmi2", x.HasAVX512VBMI2}, {"avx512vnni", x.HasAVX512VNNI},
			{"avx512bf16", x.HasAVX512BF16}, {"avx512bitalg", x.HasAVX512BITALG},
			{"avx512vpopcntdq", x.HasAVX512VPOPCNTDQ},
			{"avxvnni", x.HasAVXVNNI}, {"avxifma", x.HasAVXIFMA},
			{"amxtile", x.HasAMXTile}, {"amxint8", x.HasAMXInt8}, {"amxbf16", x.HasAMXBF16},
		}
	case "arm64":
		a := &cpu.ARM64
		fs = []feat{
			{"fp", a.HasFP}, {"asimd", a.HasASIMD}, {"fphp", a.HasFPHP}, {"asimdhp", a.HasASIMDHP},
			{"asimddp", a.HasASIMDDP}, {"asimdfhm", a.HasASIMDFHM}, {"i8mm", a.HasI8MM},
			{"sve", a.HasSVE}, {"sve2", a.HasSVE2},
		}
	}
	out := []string{}
	for _, f := range fs {
		if f.has {
			out = append(out, f.name)
		}
	}
	return out
}
