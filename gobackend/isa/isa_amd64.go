//go:build !purego

package isa

import "golang.org/x/sys/cpu"

// detect asks CPUID through x/sys/cpu, which also checks that the OS saves
// the vector registers (XGETBV): a CPU with AVX-512 under an OS that does
// not enable it reports no AVX-512 here.
func detect() Level {
	x := cpu.X86
	switch {
	case x.HasAVX512F && x.HasAVX512CD && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL &&
		x.HasAVX2 && x.HasFMA && x.HasBMI2:
		return AVX512
	case x.HasAVX2 && x.HasFMA && x.HasBMI2:
		return AVX2
	}
	return Generic
}

// detectFeatures asks x/sys/cpu, which checks the OS's register saving
// (XGETBV) for AVX-512 as for the levels.
func detectFeatures() Feature {
	x := cpu.X86
	var f Feature
	for _, h := range []struct {
		has bool
		f   Feature
	}{{x.HasAVX512BF16, AVX512BF16}, {x.HasAVX512VNNI, AVX512VNNI}, {x.HasAVXVNNI, AVXVNNI},
		{x.HasAMXTile && x.HasAMXBF16 && RequestAMX() == nil, AMXBF16}, {x.HasAMXTile && x.HasAMXInt8 && RequestAMX() == nil, AMXInt8}} {
		if h.has {
			f |= h.f
		}
	}
	return f
}
