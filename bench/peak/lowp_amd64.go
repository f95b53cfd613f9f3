//go:build !purego

package peak

import (
	"encoding/binary"
	"runtime"
)

// The low-precision unit kernels (lowp_amd64.s, amx_amd64.s): `rounds`
// rounds of independent instructions of one unit on accumulators loaded
// from and stored back to acc.

// lowpAccs is the number of independent accumulators of the vector unit
// kernels: as the FMA kernels', enough for latency × issue rate (5 × 2).
const lowpAccs = 12

// int8Groups is the number of independent VPMADDUBSW + VPMADDWD + VPADDD
// groups per round of the AVX2 kernel (each takes two of the 16 ymm).
const int8Groups = 6

func dpbf16Zmm(acc *[lowpAccs * 16]float32, a, b uint32, rounds int)
func fmaPHZmm(acc *[lowpAccs * 32]uint16, m, c uint32, rounds int)
func dpbusdZmm(acc *[lowpAccs * 16]int32, a, b uint32, rounds int)
func dpbusdYmmVEX(acc *[lowpAccs * 8]int32, a, b uint32, rounds int)
func int8GroupsYmm(acc *[int8Groups * 8]int32, a, b uint32, rounds int)

// The AMX kernels load A and B tiles of 16 rows × 64 bytes from a and b,
// run `rounds` rounds of 6 independent tile products into zeroed tiles
// and store the first to c, all under the configuration cfg.
func amxBF16(cfg *[64]byte, a, b, c *[1024]byte, rounds int)
func amxFP16(cfg *[64]byte, a, b, c *[1024]byte, rounds int)
func amxInt8(cfg *[64]byte, a, b, c *[1024]byte, rounds int)

// The operands, each a 32-bit lane of two 16-bit or four 8-bit values.
// None is zero or subnormal, so no hardware shortcut or slow path applies;
// the f32 sums grow slowly and stay finite over any measurement.
const (
	bf16Pair   = 0x3C803C80 // 2⁻⁶ twice
	f16M       = 0x3BFE3BFE // 1 − 2⁻¹⁰: acc = m·acc + c converges to c/(1−m) = 1, as the FMA kernels
	f16C       = 0x14001400 // 2⁻¹⁰
	f16Pair    = 0x24002400 // 2⁻⁶
	u8Quad     = 0x03030303
	s8Quad     = 0x02020202
	amxRows    = 16
	amxRowByte = 64
)

// hasLowpKernel reports whether this build has a kernel for unit.
func hasLowpKernel(unit string) bool {
	_, ok := lowpKernel(unit)
	return ok
}

// lowpKernel returns the kernel of a unit, counted in its operations (two
// per multiply-add). It does not check that the CPU runs it: the caller
// does (probeComputeUnits).
func lowpKernel(unit string) (fmaKernel, bool) {
	const accs = "12 independent"
	switch unit {
	case UnitAVX512BF16:
		return fmaKernel{"dpbf16-zmm (" + accs + " zmm accumulators, VDPBF16PS)", lowpAccs * 64, func() func(int) float64 {
			acc := new([lowpAccs * 16]float32)
			fmaStart(acc[:])
			return func(r int) float64 { dpbf16Zmm(acc, bf16Pair, bf16Pair, r); return sum(acc[:]) }
		}}, true
	case UnitAVX512FP16:
		return fmaKernel{"fma-ph-zmm (" + accs + " zmm f16 accumulators, VFMADD213PH)", lowpAccs * 64, func() func(int) float64 {
			acc := new([lowpAccs * 32]uint16)
			for i := range acc {
				acc[i] = 0x3C00 + uint16(i%16) // 1 + i·2⁻¹⁰
			}
			return func(r int) float64 { fmaPHZmm(acc, f16M, f16C, r); return sum16(acc[:]) }
		}}, true
	case UnitAVX512VNNI:
		return fmaKernel{"dpbusd-zmm (" + accs + " zmm accumulators, VPDPBUSD)", lowpAccs * 128, func() func(int) float64 {
			acc := new([lowpAccs * 16]int32)
			return func(r int) float64 { dpbusdZmm(acc, u8Quad, s8Quad, r); return sum32(acc[:]) }
		}}, true
	case UnitAVXVNNI:
		return fmaKernel{"dpbusd-ymm-vex (" + accs + " ymm accumulators, VEX VPDPBUSD)", lowpAccs * 64, func() func(int) float64 {
			acc := new([lowpAccs * 8]int32)
			return func(r int) float64 { dpbusdYmmVEX(acc, u8Quad, s8Quad, r); return sum32(acc[:]) }
		}}, true
	case UnitInt8FMA:
		return fmaKernel{"int8-ymm (6 independent groups VPMADDUBSW, VPMADDWD, VPADDD)", int8Groups * 64, func() func(int) float64 {
			acc := new([int8Groups * 8]int32)
			return func(r int) float64 { int8GroupsYmm(acc, u8Quad, s8Quad, r); return sum32(acc[:]) }
		}}, true
	case UnitAMXBF16:
		return amxKernel("amx-bf16 (6 independent accumulator tiles, TDPBF16PS)", bf16Pair, bf16Pair, amxBF16), true
	case UnitAMXFP16:
		return amxKernel("amx-fp16 (6 independent accumulator tiles, TDPFP16PS)", f16Pair, f16Pair, amxFP16), true
	case UnitAMXInt8:
		return amxKernel("amx-int8 (6 independent accumulator tiles, TDPBUSD)", u8Quad, s8Quad, amxInt8), true
	}
	return fmaKernel{}, false
}

// amxKernel runs an AMX kernel on A and B tiles filled with a and b
// (32-bit patterns). One AMX instruction multiplies 16×16×(64 bytes of
// pairs or quads): 16384 multiply-adds of 8-bit types, 8192 of 16-bit ones.
func amxKernel(name string, a, b uint32, run func(cfg *[64]byte, a, b, c *[1024]byte, rounds int)) fmaKernel {
	products := 16 * 16 * 32
	if a == u8Quad {
		products = 16 * 16 * 64
	}
	return fmaKernel{name, 6 * float64(products) * 2, func() func(int) float64 {
		cfg := amxConfig()
		ta, tb, tc := new([1024]byte), new([1024]byte), new([1024]byte)
		for i := 0; i < len(ta); i += 4 {
			binary.LittleEndian.PutUint32(ta[i:], a)
			binary.LittleEndian.PutUint32(tb[i:], b)
		}
		return func(r int) float64 {
			onThread(run, cfg, ta, tb, tc, r)
			var s float64
			for _, v := range tc {
				s += float64(v)
			}
			return s
		}
	}}
}

// onThread runs an AMX kernel with its goroutine locked to its thread:
// the tile state is the thread's. The kernel holds the whole tile session
// (LDTILECFG … TILERELEASE) and Go does not preempt inside assembly, so
// nothing can move it mid-session anyway; the lock says so where it is
// called from (the crews lock their threads already: it nests).
func onThread(run func(cfg *[64]byte, a, b, c *[1024]byte, rounds int), cfg *[64]byte, a, b, c *[1024]byte, rounds int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	run(cfg, a, b, c, rounds)
}

// amxConfig is the 64-byte tile configuration (LDTILECFG's palette 1):
// byte 0 the palette, bytes 16–31 each tile's bytes per row (two bytes a
// tile), bytes 48–55 its rows; everything else must be zero. All eight
// tiles are 16 rows × 64 bytes, the largest.
func amxConfig() *[64]byte {
	cfg := new([64]byte)
	cfg[0] = 1
	for t := range 8 {
		binary.LittleEndian.PutUint16(cfg[16+2*t:], amxRowByte)
		cfg[48+t] = amxRows
	}
	return cfg
}

func sum16(x []uint16) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}

func sum32(x []int32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}
