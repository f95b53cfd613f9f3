package peak

import "fmt"

// cpuFeatures are the CPUID bits and OS state the low-precision units
// need, read from CPUID and XCR0 directly: golang.org/x/sys/cpu lacks
// AVX512-FP16, AMX-FP16 and the OS's AMX state.
type cpuFeatures struct {
	x86        bool   // CPUID ran at all
	osxsave    bool   // CPUID.1:ECX[27]: XGETBV may run, XCR0 is meaningful
	xcr0       uint64 // the register states the OS enables
	avx        bool   // CPUID.1:ECX[28]
	avx2       bool   // CPUID.7.0:EBX[5]
	avx512f    bool   // CPUID.7.0:EBX[16]
	avx512vnni bool   // CPUID.7.0:ECX[11]
	avx512fp16 bool   // CPUID.7.0:EDX[23]
	amxBF16    bool   // CPUID.7.0:EDX[22]
	amxTile    bool   // CPUID.7.0:EDX[24]
	amxInt8    bool   // CPUID.7.0:EDX[25]
	avxVNNI    bool   // CPUID.7.1:EAX[4]
	avx512bf16 bool   // CPUID.7.1:EAX[5]
	amxFP16    bool   // CPUID.7.1:EAX[21]
}

// XCR0 state components.
const (
	xcr0YMM = 1<<1 | 1<<2                 // SSE and AVX state
	xcr0ZMM = 1<<5 | 1<<6 | 1<<7          // opmask, ZMM_Hi256, Hi16_ZMM
	xcr0AMX = 1<<17 | 1<<18               // XTILECFG, XTILEDATA
	xcr0All = xcr0YMM | xcr0ZMM | xcr0AMX // what a fake machine's OS enables in tests
)

// readFeatures reads the features through a CPUID function and XCR0
// (the host's, or fakes in tests); nil cpuid is a CPU without CPUID.
func readFeatures(cpuid cpuidFunc, xcr0 func() uint64) cpuFeatures {
	var f cpuFeatures
	if cpuid == nil {
		return f
	}
	f.x86 = true
	bit := func(r uint32, n uint) bool { return r&(1<<n) != 0 }
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf >= 1 {
		_, _, c, _ := cpuid(1, 0)
		f.osxsave, f.avx = bit(c, 27), bit(c, 28)
	}
	if maxLeaf >= 7 {
		sub, b, c, d := cpuid(7, 0)
		f.avx2, f.avx512f = bit(b, 5), bit(b, 16)
		f.avx512vnni = bit(c, 11)
		f.amxBF16, f.avx512fp16, f.amxTile, f.amxInt8 = bit(d, 22), bit(d, 23), bit(d, 24), bit(d, 25)
		if sub >= 1 {
			a, _, _, _ := cpuid(7, 1)
			f.avxVNNI, f.avx512bf16, f.amxFP16 = bit(a, 4), bit(a, 5), bit(a, 21)
		}
	}
	if f.osxsave && xcr0 != nil {
		f.xcr0 = xcr0()
	}
	return f
}

// requirement is one thing a unit needs: a CPUID bit, or state the OS
// enables. why says what is missing when it is not there.
type requirement struct {
	why string
	has func(f cpuFeatures) bool
}

func cpuidBit(name, where string, has func(f cpuFeatures) bool) requirement {
	return requirement{fmt.Sprintf("no %s (%s)", name, where), has}
}

var (
	needAVX2       = cpuidBit("AVX2", "CPUID.7.0:EBX[5]", func(f cpuFeatures) bool { return f.avx && f.avx2 })
	needAVX512F    = cpuidBit("AVX-512F", "CPUID.7.0:EBX[16]", func(f cpuFeatures) bool { return f.avx512f })
	needAVX512VNNI = cpuidBit("AVX512-VNNI", "CPUID.7.0:ECX[11]", func(f cpuFeatures) bool { return f.avx512vnni })
	needAVX512BF16 = cpuidBit("AVX512-BF16", "CPUID.7.1:EAX[5]", func(f cpuFeatures) bool { return f.avx512bf16 })
	needAVX512FP16 = cpuidBit("AVX512-FP16", "CPUID.7.0:EDX[23]", func(f cpuFeatures) bool { return f.avx512fp16 })
	needAVXVNNI    = cpuidBit("AVX-VNNI", "CPUID.7.1:EAX[4]", func(f cpuFeatures) bool { return f.avx && f.avxVNNI })
	needAMXTile    = cpuidBit("AMX-TILE", "CPUID.7.0:EDX[24]", func(f cpuFeatures) bool { return f.amxTile })
	needAMXBF16    = cpuidBit("AMX-BF16", "CPUID.7.0:EDX[22]", func(f cpuFeatures) bool { return f.amxBF16 })
	needAMXInt8    = cpuidBit("AMX-INT8", "CPUID.7.0:EDX[25]", func(f cpuFeatures) bool { return f.amxInt8 })
	needAMXFP16    = cpuidBit("AMX-FP16", "CPUID.7.1:EAX[21]", func(f cpuFeatures) bool { return f.amxFP16 })

	// A feature bit the OS does not back with saved state faults (#UD) on
	// first use: XCR0 is the check that cannot kill the process.
	osYMM = requirement{"the OS does not enable AVX state (XCR0 bits 1–2)", func(f cpuFeatures) bool {
		return f.osxsave && f.xcr0&xcr0YMM == xcr0YMM
	}}
	osZMM = requirement{"the OS does not enable AVX-512 state (XCR0 bits 5–7)", func(f cpuFeatures) bool {
		return f.osxsave && f.xcr0&(xcr0YMM|xcr0ZMM) == xcr0YMM|xcr0ZMM
	}}
	osAMX = requirement{"the OS does not enable AMX tile state (XCR0 bits 17–18)", func(f cpuFeatures) bool {
		return f.osxsave && f.xcr0&xcr0AMX == xcr0AMX
	}}
)

// missing returns why f lacks one of reqs, the first in their order (the
// unit's own instruction first), or "" when it has them all.
func missing(f cpuFeatures, reqs []requirement) string {
	if !f.x86 {
		return "no CPUID to read (not amd64, or built with -tags purego)"
	}
	for _, r := range reqs {
		if !r.has(f) {
			return r.why
		}
	}
	return ""
}
