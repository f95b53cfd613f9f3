//go:build !purego

package peak

import (
	"fmt"

	"golang.org/x/sys/cpu"
)

// Assembly kernels (kernels_amd64.s). The FMA kernels run `rounds` rounds of
// acc[k] = acc[k]·m + c (one VFMADD213 per register) over fmaAccs independent
// vector accumulators loaded from and stored back to acc.

func fmaF32AVX2(acc *[fmaAccs * 8]float32, m, c float32, rounds int)
func fmaF64AVX2(acc *[fmaAccs * 4]float64, m, c float64, rounds int)
func fmaF32AVX512(acc *[fmaAccs * 16]float32, m, c float32, rounds int)
func fmaF64AVX512(acc *[fmaAccs * 8]float64, m, c float64, rounds int)

// triadF64AVX computes a[i] = b[i] + s·c[i] for i < n, `passes` times, n a
// multiple of 16, four ymm per iteration; triadF64AVX512 the same with zmm, n
// a multiple of 32. The passes loop in assembly so that an L1-sized pass is
// not dwarfed by the cost of a call.
func triadF64AVX(a, b, c *float64, n, passes int, s float64)
func triadF64AVX512(a, b, c *float64, n, passes int, s float64)

// updateF64AVX computes a[i] += s·b[i] (n elements, a multiple of 16),
// `passes` times, four ymm per iteration; updateF64AVX512 with zmm, n a
// multiple of 32.
func updateF64AVX(a, b *float64, n, passes int, s float64)
func updateF64AVX512(a, b *float64, n, passes int, s float64)

// copyF64AVX copies b into a (n elements, a multiple of 16), `passes` times,
// four ymm per iteration; copyF64AVX512 with zmm, n a multiple of 32.
func copyF64AVX(a, b *float64, n, passes int)
func copyF64AVX512(a, b *float64, n, passes int)

// readF64AVX returns passes·Σ b[i] (n elements, a multiple of 32) summed in
// eight ymm accumulators; readF64AVX512 with zmm, n a multiple of 64.
func readF64AVX(b *float64, n, passes int) float64
func readF64AVX512(b *float64, n, passes int) float64

// addChainAMD64 returns x + 100·n·step through n iterations of 100 dependent
// ADDQ (one cycle latency each on every x86 core since the P6).
func addChainAMD64(n int, x, step uint64) uint64

// What the assembly needs; x/sys/cpu masks out what the OS does not enable.
var (
	haveFMA3   = cpu.X86.HasAVX && cpu.X86.HasFMA
	haveAVX    = cpu.X86.HasAVX
	haveAVX512 = cpu.X86.HasAVX512F
)

func asmFMAKernel(dtype string, simdBits int) (fmaKernel, bool) {
	wide := simdBits >= 512 && haveAVX512
	switch {
	case wide && dtype == "f32":
		return fmaKernel{"fma-avx512 (12 independent zmm accumulators, VFMADD213PS)", fmaAccs * 16 * 2, func() func(int) float64 {
			acc := new([fmaAccs * 16]float32)
			fmaStart(acc[:])
			return func(rounds int) float64 { fmaF32AVX512(acc, fmaM, fmaC, rounds); return sum(acc[:]) }
		}}, true
	case wide && dtype == "f64":
		return fmaKernel{"fma-avx512 (12 independent zmm accumulators, VFMADD213PD)", fmaAccs * 8 * 2, func() func(int) float64 {
			acc := new([fmaAccs * 8]float64)
			fmaStart(acc[:])
			return func(rounds int) float64 { fmaF64AVX512(acc, fmaM, fmaC, rounds); return sum(acc[:]) }
		}}, true
	case haveFMA3 && dtype == "f32":
		return fmaKernel{"fma-avx2 (12 independent ymm accumulators, VFMADD213PS)", fmaAccs * 8 * 2, func() func(int) float64 {
			acc := new([fmaAccs * 8]float32)
			fmaStart(acc[:])
			return func(rounds int) float64 { fmaF32AVX2(acc, fmaM, fmaC, rounds); return sum(acc[:]) }
		}}, true
	case haveFMA3 && dtype == "f64":
		return fmaKernel{"fma-avx2 (12 independent ymm accumulators, VFMADD213PD)", fmaAccs * 4 * 2, func() func(int) float64 {
			acc := new([fmaAccs * 4]float64)
			fmaStart(acc[:])
			return func(rounds int) float64 { fmaF64AVX2(acc, fmaM, fmaC, rounds); return sum(acc[:]) }
		}}, true
	}
	return fmaKernel{}, false
}

func asmStreamKernel(pattern string, simdBits int) (streamKernel, bool) {
	wide := simdBits >= 512 && haveAVX512
	if !wide && !haveAVX {
		return streamKernel{}, false
	}
	isa, reg, vec := "avx", "ymm", 4
	if wide {
		isa, reg, vec = "avx512", "zmm", 8
	}
	name := func(how string) string { return fmt.Sprintf("%s-%s (%s)", pattern, isa, fmt.Sprintf(how, reg)) }
	switch pattern {
	case PatternTriad:
		k := triadAVX
		if wide {
			k = triadAVX512
		}
		return streamKernel{pattern, name("4 %s per iteration, VMULPD+VADDPD"), checked(pattern, k)}, true
	case PatternUpdate:
		f := updateF64AVX
		if wide {
			f = updateF64AVX512
		}
		return streamKernel{pattern, name("4 %s per iteration, VMULPD+VADDPD, stored in place"), checked(pattern, func(a, b, _ []float64, s float64, passes int) {
			inSteps(4*vec, a, b, passes, func(a, b *float64, n int) { f(a, b, n, passes, s) },
				func(a, b []float64) { updateF64Generic(a, b, s) })
		})}, true
	case PatternCopy:
		f := copyF64AVX
		if wide {
			f = copyF64AVX512
		}
		return streamKernel{pattern, name("4 %s loads and stores per iteration"), checked(pattern, func(a, b, _ []float64, _ float64, passes int) {
			inSteps(4*vec, a, b, passes, func(a, b *float64, n int) { f(a, b, n, passes) }, copyF64Generic)
		})}, true
	case PatternRead:
		f := readF64AVX
		if wide {
			f = readF64AVX512
		}
		step := 8 * vec
		return streamKernel{pattern, name("8 %s accumulators, VADDPD from memory"), checked(pattern, func(a, b, _ []float64, _ float64, passes int) {
			if len(a) == 0 || passes <= 0 {
				return
			}
			n := len(b) / step * step
			var t float64
			if n > 0 {
				t = f(&b[0], n, passes)
			}
			if n < len(b) {
				for range passes {
					t += readF64Generic(b[n:])
				}
			}
			a[0] = t
		})}, true
	}
	return streamKernel{}, false
}

func asmClockKernel() (clockKernel, bool) {
	return clockKernel{"add-chain-amd64 (100 dependent ADDQ per iteration)", 100, addChainAMD64}, true
}

// inSteps runs a two-array kernel `passes` times over len(a) elements: asm
// (which loops over the passes itself) on the largest multiple of step, the
// Go twin on the rest.
func inSteps(step int, a, b []float64, passes int, asm func(a, b *float64, n int), generic func(a, b []float64)) {
	n := len(a) / step * step
	if n > 0 && passes > 0 {
		asm(&a[0], &b[0], n)
	}
	if n < len(a) {
		for range passes {
			generic(a[n:], b[n:])
		}
	}
}

// triadAVX runs the assembly on the largest multiple of 16 elements and Go on
// the rest (passes are independent, so their order does not matter).
func triadAVX(a, b, c []float64, s float64, passes int) {
	n := len(a) &^ 15
	if n > 0 && passes > 0 {
		triadF64AVX(&a[0], &b[0], &c[0], n, passes, s)
	}
	triadGenericTail(a, b, c, s, passes, n)
}

// triadAVX512 runs the assembly on the largest multiple of 32 elements and Go on the rest.
func triadAVX512(a, b, c []float64, s float64, passes int) {
	n := len(a) &^ 31
	if n > 0 && passes > 0 {
		triadF64AVX512(&a[0], &b[0], &c[0], n, passes, s)
	}
	triadGenericTail(a, b, c, s, passes, n)
}

func triadGenericTail(a, b, c []float64, s float64, passes, from int) {
	if from < len(a) {
		for range passes {
			triadF64Generic(a[from:], b[from:], c[from:], s)
		}
	}
}
