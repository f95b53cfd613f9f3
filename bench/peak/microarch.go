package peak

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// coreModel is one row of the micro-architecture table: which CPUID display
// family/models it covers and what the FP units of one core can issue.
type coreModel struct {
	vendor           string
	family           int
	modelLo, modelHi int // display model range, inclusive
	name             string
	simdBits         int // widest vector executed at full rate (one µop per pipe per cycle)
	fmaUnits         int // FMA pipes per core; for CPUs without FMA, 1 = one add + one multiply per cycle
}

const (
	intel = "GenuineIntel"
	amd   = "AuthenticAMD"
	hygon = "HygonGenuine"
)

// coreModels maps public CPUID display family/model values (Intel SDM vol. 4
// "Model-Specific Registers" table 2-1, AMD's Processor Programming Reference
// per family, as listed e.g. by Linux arch/x86/include/asm/intel-family.h and
// LLVM's Host.cpp) to the FP resources of one core.
//
// Where a part executes AVX-512 as two 256-bit halves (Zen 4, Zen 5 mobile) or
// has a single 512-bit FMA port (Ice Lake and Tiger Lake client), the row says
// 2 × 256: the FLOP/cycle is the same and a ymm kernel reaches it.
// Skylake-SP/Cascade Lake/Cooper Lake share model 0x55; most of those parts
// have two 512-bit FMA units, but Bronze, Silver and some Gold 5xxx have one,
// for which this table overstates the peak 2× (use -peak-gflops).
// Add a row to extend it; first match wins.
var coreModels = []coreModel{
	// Intel family 6. Sandy/Ivy Bridge have no FMA: one 256-bit add and one multiply per cycle.
	{intel, 6, 0x2A, 0x2A, "Sandy Bridge", 256, 1},
	{intel, 6, 0x2D, 0x2D, "Sandy Bridge-E", 256, 1},
	{intel, 6, 0x3A, 0x3A, "Ivy Bridge", 256, 1},
	{intel, 6, 0x3E, 0x3E, "Ivy Bridge-E", 256, 1},
	{intel, 6, 0x3C, 0x3C, "Haswell", 256, 2},
	{intel, 6, 0x3F, 0x3F, "Haswell-E", 256, 2},
	{intel, 6, 0x45, 0x46, "Haswell", 256, 2},
	{intel, 6, 0x3D, 0x3D, "Broadwell", 256, 2},
	{intel, 6, 0x47, 0x47, "Broadwell", 256, 2},
	{intel, 6, 0x4F, 0x4F, "Broadwell-E", 256, 2},
	{intel, 6, 0x56, 0x56, "Broadwell-DE", 256, 2},
	{intel, 6, 0x4E, 0x4E, "Skylake", 256, 2},
	{intel, 6, 0x5E, 0x5E, "Skylake", 256, 2},
	{intel, 6, 0x8E, 0x8E, "Kaby Lake", 256, 2}, // also Amber/Whiskey/Comet Lake mobile
	{intel, 6, 0x9E, 0x9E, "Coffee Lake", 256, 2},
	{intel, 6, 0xA5, 0xA6, "Comet Lake", 256, 2},
	{intel, 6, 0x55, 0x55, "Skylake-X", 512, 2}, // also Cascade Lake, Cooper Lake (stepping tells them apart)
	{intel, 6, 0x66, 0x66, "Cannon Lake", 256, 2},
	{intel, 6, 0x7D, 0x7E, "Ice Lake", 256, 2},
	{intel, 6, 0x6A, 0x6A, "Ice Lake-SP", 512, 2},
	{intel, 6, 0x6C, 0x6C, "Ice Lake-D", 512, 2},
	{intel, 6, 0x8C, 0x8D, "Tiger Lake", 256, 2},
	{intel, 6, 0xA7, 0xA7, "Rocket Lake", 256, 2},
	{intel, 6, 0x8F, 0x8F, "Sapphire Rapids", 512, 2},
	{intel, 6, 0xCF, 0xCF, "Emerald Rapids", 512, 2},
	{intel, 6, 0xAD, 0xAE, "Granite Rapids", 512, 2},
	{intel, 6, 0x97, 0x97, "Alder Lake", 256, 2}, // P cores; AVX-512 fused off
	{intel, 6, 0x9A, 0x9A, "Alder Lake", 256, 2},
	{intel, 6, 0xB7, 0xB7, "Raptor Lake", 256, 2},
	{intel, 6, 0xBA, 0xBA, "Raptor Lake", 256, 2},
	{intel, 6, 0xBF, 0xBF, "Raptor Lake", 256, 2},
	{intel, 6, 0xAA, 0xAA, "Meteor Lake", 256, 2},
	{intel, 6, 0xAC, 0xAC, "Meteor Lake", 256, 2},
	{intel, 6, 0xBD, 0xBD, "Lunar Lake", 256, 2},
	{intel, 6, 0xC5, 0xC6, "Arrow Lake", 256, 2},
	{intel, 6, 0xAF, 0xAF, "Sierra Forest", 128, 2}, // E cores only: 2 × 128-bit FMA

	// AMD family 0x17 (23): Zen, Zen+ (2 × 128-bit FMA), Zen 2 (2 × 256).
	{amd, 0x17, 0x00, 0x07, "Zen", 128, 2},
	{amd, 0x17, 0x08, 0x08, "Zen+", 128, 2},
	{amd, 0x17, 0x11, 0x11, "Zen", 128, 2},
	{amd, 0x17, 0x18, 0x18, "Zen+", 128, 2},
	{amd, 0x17, 0x20, 0x20, "Zen", 128, 2},
	{amd, 0x17, 0x30, 0x3F, "Zen 2", 256, 2}, // Rome
	{amd, 0x17, 0x47, 0x47, "Zen 2", 256, 2},
	{amd, 0x17, 0x60, 0x6F, "Zen 2", 256, 2}, // Renoir, Lucienne
	{amd, 0x17, 0x70, 0x7F, "Zen 2", 256, 2}, // Matisse
	{amd, 0x17, 0x84, 0x84, "Zen 2", 256, 2},
	{amd, 0x17, 0x90, 0x9F, "Zen 2", 256, 2}, // Van Gogh
	{amd, 0x17, 0xA0, 0xAF, "Zen 2", 256, 2}, // Mendocino
	{hygon, 0x18, 0x00, 0xFF, "Zen (Hygon Dhyana)", 128, 2},

	// AMD family 0x19 (25): Zen 3 and Zen 4. Zen 4 runs AVX-512 as 2 × 256.
	{amd, 0x19, 0x00, 0x0F, "Zen 3", 256, 2},  // Milan, Chagall
	{amd, 0x19, 0x10, 0x1F, "Zen 4", 256, 2},  // Genoa, Storm Peak
	{amd, 0x19, 0x20, 0x2F, "Zen 3", 256, 2},  // Vermeer
	{amd, 0x19, 0x30, 0x3F, "Zen 3", 256, 2},  // Badami
	{amd, 0x19, 0x40, 0x4F, "Zen 3+", 256, 2}, // Rembrandt
	{amd, 0x19, 0x50, 0x5F, "Zen 3", 256, 2},  // Cezanne
	{amd, 0x19, 0x60, 0x6F, "Zen 4", 256, 2},  // Raphael
	{amd, 0x19, 0x70, 0x7F, "Zen 4", 256, 2},  // Phoenix, Hawk Point
	{amd, 0x19, 0xA0, 0xAF, "Zen 4", 256, 2},  // Bergamo, Siena

	// AMD family 0x1A (26): Zen 5. Full 512-bit datapath on server and desktop
	// (and Strix Halo); mobile Strix/Krackan Point run AVX-512 as 2 × 256.
	{amd, 0x1A, 0x00, 0x1F, "Zen 5", 512, 2}, // Turin, Turin dense
	{amd, 0x1A, 0x20, 0x2F, "Zen 5 (mobile)", 256, 2},
	{amd, 0x1A, 0x40, 0x4F, "Zen 5", 512, 2}, // Granite Ridge
	{amd, 0x1A, 0x60, 0x6F, "Zen 5 (mobile)", 256, 2},
	{amd, 0x1A, 0x70, 0x7F, "Zen 5", 512, 2}, // Strix Halo
}

// lookupCoreModel finds the table row for a CPUID vendor, display family and model.
func lookupCoreModel(vendor string, family, model int) (coreModel, bool) {
	for _, r := range coreModels {
		if r.vendor == vendor && r.family == family && model >= r.modelLo && model <= r.modelHi {
			return r, true
		}
	}
	return coreModel{}, false
}

// isa is what software can use on this CPU (hardware support and OS-enabled state).
type isa struct {
	arch    string // runtime.GOARCH
	avx     bool   // 256-bit float vectors (amd64)
	fma     bool   // fused multiply-add
	avx512f bool   // 512-bit vectors (amd64)
}

// usableBits is the widest FP vector software can use: 512 with AVX-512F,
// 256 with AVX, else 128 (SSE2 on amd64, NEON on arm64, assumed elsewhere).
func (f isa) usableBits() int {
	switch {
	case f.avx512f:
		return 512
	case f.avx:
		return 256
	}
	return 128
}

// classify fills Microarch, SIMDBits and FMAUnits from the table, or from the
// usable features when the table has no row ("generic": SIMD width from the
// features, 2 FMA units when FMA exists, else 1).
//
// A table row is clamped to what software can use: a Skylake-X in a VM that
// hides AVX-512 is a 256-bit machine to every library on it, and without FMA
// the pipes still give one add and one multiply per cycle (FMAUnits 1).
func classify(vendor string, family, model int, f isa) (name string, simdBits, fmaUnits int) {
	r, ok := lookupCoreModel(vendor, family, model)
	if !ok {
		fmaUnits = 1
		if f.fma {
			fmaUnits = 2
		}
		return "generic", f.usableBits(), fmaUnits
	}
	simdBits = min(r.simdBits, f.usableBits())
	fmaUnits = r.fmaUnits
	if !f.fma {
		fmaUnits = 1
	}
	return r.name, simdBits, fmaUnits
}

// hostISA reports the features of the running CPU; arm64 always has FMA
// (FMADD/FMLA are base ARMv8).
func hostISA() isa {
	f := isa{arch: runtime.GOARCH}
	switch runtime.GOARCH {
	case "amd64", "386":
		// x/sys/cpu already requires the OS to save the wider registers (XGETBV).
		f.avx, f.fma, f.avx512f = cpu.X86.HasAVX, cpu.X86.HasFMA && cpu.X86.HasAVX, cpu.X86.HasAVX512F
	case "arm64":
		f.fma = true
	}
	return f
}
