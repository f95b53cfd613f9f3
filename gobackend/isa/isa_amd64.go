//go:build !purego

package isa

import "golang.org/x/sys/cpu"

//go:generate go run -C ../_asm . -pkg isa

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

// detectSplit512 reports an AMD family 19h core (Zen 3 and Zen 4; only Zen
// 4 has AVX-512), which executes each 512-bit instruction as two 256-bit
// halves on its 256-bit units.
func detectSplit512() bool {
	_, b, c, d := cpuid(0, 0)
	vendor := string(le(b)) + string(le(d)) + string(le(c))
	if vendor != "AuthenticAMD" {
		return false
	}
	a, _, _, _ := cpuid(1, 0)
	family := a >> 8 & 0xf
	if family == 0xf {
		family += a >> 20 & 0xff
	}
	return family == 0x19
}

func le(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
