package isa

import "strings"

// Feature is a set of instruction-set extensions beyond a Level that some
// kernels use: the low-precision dot-product instructions. They are not
// levels because CPUs have them in every combination (Zen 4: AVX512-BF16
// and AVX512-VNNI; Ice Lake: AVX512-VNNI alone; Alder Lake: AVX-VNNI
// without AVX-512).
type Feature uint32

const (
	// AVX512BF16 is VDPBF16PS and the bf16 conversions (needs AVX512).
	AVX512BF16 Feature = 1 << iota
	// AVX512VNNI is VPDPBUSD and VPDPWSSD on EVEX registers (needs AVX512).
	AVX512VNNI
	// AVXVNNI is the VEX-encoded VPDPBUSD on ymm (needs AVX2).
	AVXVNNI
	// AMXBF16 is the AMX tiles with TDPBF16PS (needs AVX512 here, and the
	// OS's permission: EnableAMX).
	AMXBF16
	// AMXInt8 is the AMX tiles with TDPBUSD and TDPBSSD (likewise).
	AMXInt8
)

// AllFeatures is every extension above: what a caller passes to run the
// best kernels this CPU has.
const AllFeatures = AVX512BF16 | AVX512VNNI | AVXVNNI | AMXBF16 | AMXInt8

// Features is what this CPU and OS run of the extensions above (none on
// other architectures and under the purego build tag), computed once.
var Features = detectFeatures() & levelFeatures(Best)

// levelFeatures is the extensions that code at level l may use: the EVEX
// ones need AVX512, the VEX ones AVX2.
func levelFeatures(l Level) Feature {
	switch {
	case l >= AVX512:
		return AllFeatures
	case l >= AVX2:
		return AVXVNNI
	}
	return 0
}

// Has reports whether every extension of f is in s.
func (s Feature) Has(f Feature) bool { return s&f == f }

// For returns the extensions of s that code at level l may run on this
// CPU: s without what the CPU lacks and what needs a level above l. A
// kernel package takes the level and a feature set; tests pass fewer
// features to reach the fallbacks.
func (s Feature) For(l Level) Feature { return s & Features & levelFeatures(l.Clamp()) }

// String lists the extensions: "avx512-bf16+avx512-vnni", "none".
func (s Feature) String() string {
	var names []string
	for _, f := range []struct {
		f    Feature
		name string
	}{{AVX512BF16, "avx512-bf16"}, {AVX512VNNI, "avx512-vnni"}, {AVXVNNI, "avx-vnni"}, {AMXBF16, "amx-bf16"}, {AMXInt8, "amx-int8"}} {
		if s.Has(f.f) {
			names = append(names, f.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}
