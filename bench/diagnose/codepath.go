package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/result"
)

// CodePath is a library's code path as the roofline sees it: the widest
// vector it computes with and whether it fuses multiply and add.
type CodePath struct {
	Name string // as the library names it: "haswell", "SkylakeX", "avx512", "avx512_core_amx"
	Bits int
	FMA  bool
}

// codePaths maps the code path names the CPU libraries report
// (backend.Info.Details["code_path"], lower-cased) to their vectors. The
// names do not collide between libraries: where two use one (haswell, zen,
// sandybridge, avx2, generic) they mean the same instructions.
var codePaths = map[string]CodePath{
	// OpenBLAS cores (openblas_get_corename; driver/others/dynamic*.c).
	"katmai": {Bits: 128}, "coppermine": {Bits: 128}, "northwood": {Bits: 128}, "prescott": {Bits: 128},
	"banias": {Bits: 128}, "atom": {Bits: 128}, "core2": {Bits: 128}, "penryn": {Bits: 128},
	"dunnington": {Bits: 128}, "nehalem": {Bits: 128}, "athlon": {Bits: 128}, "opteron": {Bits: 128},
	"opteron_sse3": {Bits: 128}, "barcelona": {Bits: 128}, "nano": {Bits: 128}, "bobcat": {Bits: 128},
	"sandybridge": {Bits: 256}, // AVX without FMA
	"bulldozer":   {Bits: 256, FMA: true}, "piledriver": {Bits: 256, FMA: true},
	"steamroller": {Bits: 256, FMA: true}, "excavator": {Bits: 256, FMA: true},
	"haswell": {Bits: 256, FMA: true}, "zen": {Bits: 256, FMA: true}, "dhyana": {Bits: 256, FMA: true},
	"skylakex": {Bits: 512, FMA: true}, "cooperlake": {Bits: 512, FMA: true}, "sapphirerapids": {Bits: 512, FMA: true},
	"armv8": {Bits: 128, FMA: true}, "cortexa53": {Bits: 128, FMA: true}, "cortexa55": {Bits: 128, FMA: true},
	"cortexa57": {Bits: 128, FMA: true}, "cortexa72": {Bits: 128, FMA: true}, "cortexa73": {Bits: 128, FMA: true},
	"neoversen1": {Bits: 128, FMA: true}, "neoversen2": {Bits: 128, FMA: true}, "neoversev2": {Bits: 128, FMA: true},
	"neoversev1": {Bits: 256, FMA: true}, "thunderx": {Bits: 128, FMA: true}, "thunderx2t99": {Bits: 128, FMA: true},
	"thunderx3t110": {Bits: 128, FMA: true}, "tsv110": {Bits: 128, FMA: true}, "emag8180": {Bits: 128, FMA: true},
	"falkor": {Bits: 128, FMA: true}, "vortex": {Bits: 128, FMA: true}, "a64fx": {Bits: 512, FMA: true},
	// BLIS configurations (bli_arch_string), beyond those above.
	"skx": {Bits: 512, FMA: true}, "knl": {Bits: 512, FMA: true}, "knc": {Bits: 512, FMA: true},
	"zen2": {Bits: 256, FMA: true}, "zen3": {Bits: 256, FMA: true},
	"zen4": {Bits: 512, FMA: true}, "zen5": {Bits: 512, FMA: true}, // AOCL-BLIS
	"firestorm": {Bits: 128, FMA: true}, "thunderx2": {Bits: 128, FMA: true},
	"cortexa15": {Bits: 128}, "cortexa9": {Bits: 128},
	"power10": {Bits: 128, FMA: true}, "power9": {Bits: 128, FMA: true}, "power7": {Bits: 128, FMA: true},
	"bgq":     {Bits: 256, FMA: true},
	"generic": {Bits: 128}, // reference kernels, as the compiler vectorized them (SSE2 on x86-64)
	// MKL kernel libraries (libmkl_<name>.so).
	"def": {Bits: 128}, "mc": {Bits: 128}, "mc3": {Bits: 128}, "avx": {Bits: 256},
	"avx2": {Bits: 256, FMA: true}, "avx512": {Bits: 512, FMA: true}, "avx512_mic": {Bits: 512, FMA: true},
	// oneDNN ISAs (dnnl_get_effective_cpu_isa).
	"sse41": {Bits: 128}, "avx2_vnni": {Bits: 256, FMA: true}, "avx2_vnni_2": {Bits: 256, FMA: true},
	"avx512_mic_4ops": {Bits: 512, FMA: true}, "avx512_core": {Bits: 512, FMA: true},
	"avx512_core_vnni": {Bits: 512, FMA: true}, "avx512_core_bf16": {Bits: 512, FMA: true},
	"avx512_core_fp16": {Bits: 512, FMA: true}, "avx512_core_amx": {Bits: 512, FMA: true},
	"avx512_core_amx_fp16": {Bits: 512, FMA: true},
}

// ParseCodePath reads a backend's "code_path" detail: the library's name
// for its path, then optionally a note in brackets ("avx512 (libmkl_avx512.so;
// …)"); or, from MKL without a kernel library to name, its processor
// string ("Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2) enabled
// processors"). ok is false for a name it does not know (and for SVE, whose
// width the name does not give).
func ParseCodePath(s string) (CodePath, bool) {
	s = strings.TrimSpace(s)
	name, _, _ := strings.Cut(s, " ")
	if cp, ok := codePaths[strings.ToLower(name)]; ok {
		cp.Name = name
		return cp, true
	}
	for _, p := range []struct {
		text string
		cp   CodePath
	}{ // MKL's processor strings, widest first
		{"Advanced Vector Extensions 512", CodePath{Bits: 512, FMA: true}},
		{"Advanced Vector Extensions 2", CodePath{Bits: 256, FMA: true}},
		{"Advanced Vector Extensions", CodePath{Bits: 256}},
		{"Streaming SIMD Extensions", CodePath{Bits: 128}},
	} {
		if strings.Contains(s, p.text) {
			p.cp.Name = s
			return p.cp, true
		}
	}
	return CodePath{}, false
}

// CodeCodePath is the code of the finding CodePathFinding makes.
const CodeCodePath = "code_path_below_machine"

// CheckCodePaths compares each available CPU backend's code path with the
// widest vector the machine runs at full rate (Machine.SIMDBits) and sets
// its Findings (CodePathFinding), replacing what they held: a run read
// back or resumed is checked again. Call it with the results in: the
// finding names one that went past the path's reach (fasterThanPath).
func CheckCodePaths(run *result.Run) {
	for i := range run.Backends {
		b := &run.Backends[i]
		b.Findings = nil
		f, ok := CodePathFinding(run.Machine, *b)
		if !ok {
			continue
		}
		if r := fasterThanPath(run, *b); r != nil {
			f.Text += fmt.Sprintf(" Not every routine is held to it: %s %s %s on %s reached %s here, so its results are checked one by one.",
				r.Op, r.DType, r.Shape, peak.ThreadsText(r.Threads), units.Percent(r.Share.Roofline))
		}
		b.Findings = append(b.Findings, f)
	}
}

// pathReachMargin is how far above a code path's reach a result must be
// to show that it ran wider code: the reach is a ratio of vector widths,
// "about" what a path allows, and results carry their noise.
const pathReachMargin = 1.25

// PathReach is the share of the compute peak of m that backend b's code
// path allows at most (its vector width over the machine's, halved without
// FMA); ok is false where the path is unknown or no narrower than m's.
func PathReach(m peak.Machine, b result.BackendInfo) (reach float64, ok bool) {
	_, reach, ok = pathReach(m, b)
	return reach, ok
}

// pathReach is PathReach with the code path it read.
func pathReach(m peak.Machine, b result.BackendInfo) (cp CodePath, reach float64, ok bool) {
	if m.SIMDBits <= 0 {
		return cp, 0, false
	}
	if cp, ok = ParseCodePath(b.Details["code_path"]); !ok {
		return cp, 0, false
	}
	machineFMA := m.Arch != "amd64" || slices.Contains(m.Features, "fma")
	noFMA := !cp.FMA && machineFMA
	if cp.Bits >= m.SIMDBits && !noFMA {
		return cp, 0, false
	}
	reach = float64(cp.Bits) / float64(m.SIMDBits)
	if noFMA {
		reach /= 2
	}
	return cp, min(reach, 1), true
}

// BeyondPath reports whether result r went clearly past what its
// backend's code path allows: a library that names one path and runs some
// routines on wider kernels (MKL's def path with its Zen kernels, from
// 2020 Update 1) is not held back by the path on those.
func BeyondPath(m peak.Machine, b result.BackendInfo, r *result.Result) bool {
	reach, ok := PathReach(m, b)
	return ok && fmaBound(r) && r.Share.Roofline > reach*pathReachMargin
}

// fmaBound says whether r is a correct CPU result bound by the FMA peak:
// the one code-path widths are compared with (a bf16 or int8 result's
// share is of another unit's).
func fmaBound(r *result.Result) bool {
	u := r.Peak.ComputeUnit
	return r.Correct() && r.OnCPU() && r.Peak.Bound == "compute" && (u == "" || u == peak.UnitFMA) && codePathCovers(r.Backend, r.Op)
}

// fasterThanPath is b's fastest result in run (by share of the compute
// peak) that went past its code path's reach, or nil.
func fasterThanPath(run *result.Run, b result.BackendInfo) *result.Result {
	var best *result.Result
	for i := range run.Results {
		r := &run.Results[i]
		if r.Backend == b.Name && BeyondPath(run.Machine, b, r) && (best == nil || r.Share.Roofline > best.Share.Roofline) {
			best = r
		}
	}
	return best
}

// CodePathFinding returns a finding when backend b's code path computes
// with narrower vectors than m runs at full rate, or without the FMA m has:
// BLIS's haswell path on a core with two 512-bit FMA units. A 256-bit path
// on a core that splits 512-bit instructions in two (Zen 4: SIMDBits 256)
// is not one. The reference BLAS (netlib), with one path, is left out.
func CodePathFinding(m peak.Machine, b result.BackendInfo) (result.Finding, bool) {
	if !b.Available || !platform.NamesHost(b.Device) || b.Name == "netlib" {
		return result.Finding{}, false
	}
	cp, reach, ok := pathReach(m, b)
	if !ok {
		return result.Finding{}, false
	}
	raw := b.Details["code_path"]
	what := fmt.Sprintf("%d-bit vectors", cp.Bits)
	if !cp.FMA {
		what += " without FMA"
	}
	f := result.Finding{
		Code: CodeCodePath,
		Text: fmt.Sprintf("%s took its %s code path (%s) on a machine whose cores run %d-bit FMAs at full rate: its compute-bound results can reach about %s of the compute peak.",
			b.Name, cp.Name, what, m.SIMDBits, units.Percent(reach)),
		Evidence: fmt.Sprintf("code_path=%s; machine: %d FMA units × %d-bit per core (%s, CPUID family %d model %d, %q)",
			raw, m.FMAUnits, m.SIMDBits, m.Microarch, m.Family, m.ModelID, m.Model),
	}
	amd := m.Vendor == "AuthenticAMD"
	intel := m.Vendor == "GenuineIntel"
	switch b.Name {
	case "blis":
		target, number := blisTarget(m, amd)
		if intel && target == "skx" && strings.EqualFold(cp.Name, "haswell") {
			f.Text += fmt.Sprintf(" BLIS takes skx only when it can tell two FMA units from the model number in the CPU's brand string, which %q does not give.", m.Model)
		}
		if target != "" {
			f.Remedy = fmt.Sprintf("select the %s configuration with BLIS_ARCH_TYPE: upstream BLIS (0.9 to 2.1) takes the configuration's number, BLIS_ARCH_TYPE=%d; AOCL-BLIS and later BLIS take its name, BLIS_ARCH_TYPE=%s. It works in builds with several configurations (the x86_64 family, as Debian's); BLIS_ARCH_DEBUG=1 prints BLIS's choice.",
				target, number, target)
			if number < 0 {
				f.Remedy = fmt.Sprintf("AOCL-BLIS selects its %s configuration with BLIS_ARCH_TYPE=%s (or AOCL_ENABLE_INSTRUCTIONS=avx512); upstream BLIS has none for this core, and its skx configuration (BLIS_ARCH_TYPE=0 up to BLIS 2.1) runs AVX-512 where the build has it.", target, target)
			}
		}
	case "openblas":
		core := openblasTarget(m, amd)
		if core == "" {
			break
		}
		if strings.Contains(b.Details["config"], "DYNAMIC_ARCH") {
			f.Remedy = fmt.Sprintf("OPENBLAS_CORETYPE=%s selects that core's kernels in this DYNAMIC_ARCH build.", core)
		} else {
			f.Remedy = fmt.Sprintf("this build has one target (its config names no DYNAMIC_ARCH), so OPENBLAS_CORETYPE does nothing: use a DYNAMIC_ARCH=1 build, where OPENBLAS_CORETYPE=%s selects the core, or one built with TARGET=%s.", core, strings.ToUpper(core))
		}
	case "mkl":
		if amd || (!intel && m.Arch == "amd64") {
			f.Text += " MKL chooses its code path by CPU vendor: on a non-Intel CPU it takes its generic def path (libmkl_def.so; from 2020 Update 1 with Zen kernels for some routines, such as dgemm, but not all), whatever the vector units."
			f.Remedy = "none that MKL supports: MKL_DEBUG_CPU_TYPE=5 selected the AVX2 path up to MKL 2020.0 and is ignored from 2020 Update 1; on this CPU compare with openblas or blis (AOCL-BLIS)."
		} else {
			f.Remedy = "MKL_ENABLE_INSTRUCTIONS and MKL_CBWR, when set, cap MKL's code path: unset them"
			if br := b.Details["cbwr_auto_branch"]; br != "" {
				f.Remedy += fmt.Sprintf(" (mkl_cbwr_get_auto_branch reads %s)", br)
			}
			f.Remedy += "; otherwise this MKL predates the CPU."
		}
	case "torch":
		// The worker reports ATen's CPU capability: its own element-wise,
		// reduction and softmax kernels. Its matrix products run in its BLAS.
		f.Text += " That is ATen's own kernels' path (element-wise, reductions, softmax); its matrix products run in the BLAS it loaded (the blas detail) and oneDNN."
		f.Remedy = "ATEN_CPU_CAPABILITY=avx512 selects ATen's AVX-512 kernels in builds that have them (torch.__config__.show() lists PERF_WITH_AVX512=1); PyTorch 1.x takes AVX2 by default even where AVX-512 runs."
	case "onednn":
		f.Remedy = "ONEDNN_MAX_CPU_ISA (DNNL_MAX_CPU_ISA in older releases), when set, caps oneDNN's ISA: unset it; otherwise this oneDNN predates the CPU."
	}
	return f, true
}

// blisTarget is the BLIS configuration for m's full-rate vectors and its
// number in upstream BLIS's arch_t (-1: none upstream).
func blisTarget(m peak.Machine, amd bool) (string, int) {
	if m.Arch != "amd64" {
		return "", 0
	}
	switch {
	case m.SIMDBits >= 512 && amd:
		if m.Family >= 26 {
			return "zen5", -1
		}
		return "zen4", -1
	case m.SIMDBits >= 512:
		return "skx", 0
	case amd:
		return "zen3", 6
	}
	return "haswell", 3
}

// openblasTarget is the OpenBLAS core for m's full-rate vectors.
func openblasTarget(m peak.Machine, amd bool) string {
	if m.Arch != "amd64" {
		return ""
	}
	switch {
	case m.SIMDBits >= 512:
		return "SkylakeX"
	case amd:
		return "Zen"
	}
	return "Haswell"
}
