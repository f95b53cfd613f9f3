//go:build !purego

package peak

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Assembly kernels (kernels_amd64.s). The FMA kernels run `rounds` rounds of
// acc[k] = acc[k]·m + c (one VFMADD213 per register) over fmaAccs independent
// vector accumulators loaded from and stored back to acc.

func fmaF32AVX2(acc *[fmaAccs * 8]float32, m, c float32, rounds int)
func fmaF64AVX2(acc *[fmaAccs * 4]float64, m, c float64, rounds int)
func fmaF32AVX512(acc *[fmaAccs * 16]float32, m, c float32, rounds int)
func fmaF64AVX512(acc *[fmaAccs * 8]float64, m, c float64, rounds int)
func fmaF32XMM(acc *[fmaAccs * 4]float32, m, c float32, rounds int) // units_amd64.s
func fmaF64XMM(acc *[fmaAccs * 2]float64, m, c float64, rounds int)

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

// copyNTF64AVX and copyNTF64AVX512 are the copies with non-temporal stores
// (a aligned to the vector: the carved arrays start on 64 bytes).
func copyNTF64AVX(a, b *float64, n, passes int)
func copyNTF64AVX512(a, b *float64, n, passes int)

// widenNTF64AVX and widenNTF64AVX512 write each line of b to four lines of
// a with non-temporal stores (n a multiple of 32, a aligned to 64 bytes).
func widenNTF64AVX(a, b *float64, n, passes int)
func widenNTF64AVX512(a, b *float64, n, passes int)

// widenF64AVX and widenF64AVX512 are the widens with ordinary stores (n a
// multiple of 32 and 64).
func widenF64AVX(a, b *float64, n, passes int)
func widenF64AVX512(a, b *float64, n, passes int)

// readF64AVX returns passes·Σ b[i] (n elements, a multiple of 32) summed in
// eight ymm accumulators; readF64AVX512 in sixteen zmm, n a multiple of 128.
func readF64AVX(b *float64, n, passes int) float64
func readF64AVX512(b *float64, n, passes int) float64

// The prefetching twins of the stream kernels: the same loops with a
// PREFETCHT0 of each line `ahead` bytes (a multiple of 64) further on in
// every array they read (triad b and c, update a and b, copy and read b).
func triadPFF64AVX(a, b, c *float64, n, passes, ahead int, s float64)
func triadPFF64AVX512(a, b, c *float64, n, passes, ahead int, s float64)
func updatePFF64AVX(a, b *float64, n, passes, ahead int, s float64)
func updatePFF64AVX512(a, b *float64, n, passes, ahead int, s float64)
func copyPFF64AVX(a, b *float64, n, passes, ahead int)
func copyPFF64AVX512(a, b *float64, n, passes, ahead int)
func readPFF64AVX(b *float64, n, passes, ahead int) float64
func readPFF64AVX512(b *float64, n, passes, ahead int) float64

// readStreamsF64AVX returns passes·Σ b[i] (n elements, a multiple of 64)
// read as eight streams side by side, the eight segments of n/8 elements
// (two ymm of each a trip, one accumulator each); readStreamsF64AVX512 with
// zmm, n a multiple of 128.
func readStreamsF64AVX(b *float64, n, passes int) float64
func readStreamsF64AVX512(b *float64, n, passes int) float64

// addChainAMD64 returns x + 100·n·step through n iterations of 100 dependent
// ADDQ (one cycle latency each on every x86 core since the P6).
func addChainAMD64(n int, x, step uint64) uint64

// What the assembly needs; x/sys/cpu masks out what the OS does not enable.
var (
	haveFMA3   = cpu.X86.HasAVX && cpu.X86.HasFMA
	haveAVX    = cpu.X86.HasAVX
	haveAVX512 = cpu.X86.HasAVX512F
)

// asmFMAKernel returns the assembly FMA kernel of dtype at exactly `bits`
// (128, 256 or 512), if this CPU runs that width.
func asmFMAKernel(dtype string, bits int) (fmaKernel, bool) {
	type kern struct {
		reg   string
		lanes int // f32 lanes; f64 has half
		have  bool
		f32   func(acc []float32, m, c float32, rounds int)
		f64   func(acc []float64, m, c float64, rounds int)
	}
	var k kern
	switch bits {
	case 128:
		k = kern{"xmm", 4, haveFMA3,
			func(a []float32, m, c float32, r int) { fmaF32XMM((*[fmaAccs * 4]float32)(a), m, c, r) },
			func(a []float64, m, c float64, r int) { fmaF64XMM((*[fmaAccs * 2]float64)(a), m, c, r) }}
	case 256:
		k = kern{"ymm", 8, haveFMA3,
			func(a []float32, m, c float32, r int) { fmaF32AVX2((*[fmaAccs * 8]float32)(a), m, c, r) },
			func(a []float64, m, c float64, r int) { fmaF64AVX2((*[fmaAccs * 4]float64)(a), m, c, r) }}
	case 512:
		k = kern{"zmm", 16, haveAVX512,
			func(a []float32, m, c float32, r int) { fmaF32AVX512((*[fmaAccs * 16]float32)(a), m, c, r) },
			func(a []float64, m, c float64, r int) { fmaF64AVX512((*[fmaAccs * 8]float64)(a), m, c, r) }}
	}
	if !k.have {
		return fmaKernel{}, false
	}
	switch dtype {
	case "f32":
		return fmaKernel{fmt.Sprintf("fma-%s (12 independent %s accumulators, VFMADD213PS)", k.reg, k.reg), fmaAccs * float64(k.lanes) * 2, func() func(int) float64 {
			acc := make([]float32, fmaAccs*k.lanes)
			fmaStart(acc)
			return func(rounds int) float64 { k.f32(acc, fmaM, fmaC, rounds); return sum(acc) }
		}}, true
	case "f64":
		return fmaKernel{fmt.Sprintf("fma-%s (12 independent %s accumulators, VFMADD213PD)", k.reg, k.reg), fmaAccs * float64(k.lanes/2) * 2, func() func(int) float64 {
			acc := make([]float64, fmaAccs*k.lanes/2)
			fmaStart(acc)
			return func(rounds int) float64 { k.f64(acc, fmaM, fmaC, rounds); return sum(acc) }
		}}, true
	}
	return fmaKernel{}, false
}

func asmStreamKernel(pattern string, simdBits int) (streamKernel, bool) {
	wide := simdBits >= 512 && haveAVX512
	if !wide && !haveFMA3 { // the triad and update fuse their multiply-add
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
		return streamKernel{pattern, name("4 %s per iteration, VFMADD231PD"), checked(pattern, k)}, true
	case PatternUpdate:
		f := updateF64AVX
		if wide {
			f = updateF64AVX512
		}
		return streamKernel{pattern, name("4 %s per iteration, VFMADD231PD, stored in place"), checked(pattern, func(a, b, _ []float64, s float64, passes int) {
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
	case PatternCopyNT:
		f, plain := copyNTF64AVX, copyF64AVX
		if wide {
			f, plain = copyNTF64AVX512, copyF64AVX512
		}
		return streamKernel{pattern, name("4 %s loads and non-temporal stores (VMOVNTPD) per iteration"), checked(pattern, func(a, b, _ []float64, _ float64, passes int) {
			g := f
			if len(a) > 0 && uintptr(unsafe.Pointer(&a[0]))%64 != 0 {
				g = plain // VMOVNTPD faults off alignment; the carved arrays never are
			}
			inSteps(4*vec, a, b, passes, func(a, b *float64, n int) { g(a, b, n, passes) }, copyF64Generic)
		})}, true
	case PatternWiden:
		f, step := widenF64AVX, 32
		if wide {
			f, step = widenF64AVX512, 64
		}
		return streamKernel{pattern, name("one line loaded for four stores of %s"), checked(pattern, func(a, b, _ []float64, _ float64, passes int) {
			widenSteps(a, b, passes, len(a)/step*step, f)
		})}, true
	case PatternWidenNT:
		f := widenNTF64AVX
		if wide {
			f = widenNTF64AVX512
		}
		return streamKernel{pattern, name("one line loaded for four non-temporal (VMOVNTPD) stores of %s"), checked(pattern, func(a, b, _ []float64, _ float64, passes int) {
			n := len(a) &^ 31
			if n > 0 && uintptr(unsafe.Pointer(&a[0]))%64 != 0 { // VMOVNTPD faults off alignment; the carved arrays never are
				n = 0
			}
			widenSteps(a, b, passes, n, f)
		})}, true
	case PatternRead:
		f := readF64AVX
		if wide {
			f = readF64AVX512
		}
		accs := 8
		if wide {
			accs = 16
		}
		return streamKernel{pattern, name(fmt.Sprint(accs) + " %s accumulators, VADDPD from memory"), checked(pattern, readRunner(accs*vec, f))}, true
	}
	return streamKernel{}, false
}

// readRunner runs a read kernel on the largest multiple of step elements
// of b and Go on the rest, storing the total in a[0].
func readRunner(step int, f func(b *float64, n, passes int) float64) func(a, b, c []float64, s float64, passes int) {
	return func(a, b, _ []float64, _ float64, passes int) {
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
	}
}

// asmStreamsKernel returns the read kernel that reads eight streams at
// once (streamKernelsFor says why), if this CPU has one: the read pattern
// only.
func asmStreamsKernel(pattern string, simdBits int) (streamKernel, bool) {
	if pattern != PatternRead || !haveAVX {
		return streamKernel{}, false
	}
	f, isa, reg, step := readStreamsF64AVX, "avx", "ymm", 64
	if simdBits >= 512 && haveAVX512 {
		f, isa, reg, step = readStreamsF64AVX512, "avx512", "zmm", 128
	}
	return streamKernel{pattern, fmt.Sprintf("read-%s-streams (8 streams side by side, 2 %s of each per iteration, VADDPD from memory)", isa, reg),
		checked(pattern, readRunner(step, f))}, true
}

// asmPrefetchKernel returns the prefetching twin of a pattern's kernel
// (asmStreamKernel), if it has one on this CPU: the plain patterns, not
// the non-temporal ones.
func asmPrefetchKernel(pattern string, simdBits int) (streamKernel, bool) {
	wide := simdBits >= 512 && haveAVX512
	if !wide && !haveFMA3 {
		return streamKernel{}, false
	}
	isa, reg, vec := "avx", "ymm", 4
	if wide {
		isa, reg, vec = "avx512", "zmm", 8
	}
	name := func(how string) string {
		return fmt.Sprintf("%s-%s-pf (%s, PREFETCHT0 %d B ahead)", pattern, isa, fmt.Sprintf(how, reg), streamAhead)
	}
	switch pattern {
	case PatternTriad:
		f := triadPFF64AVX
		if wide {
			f = triadPFF64AVX512
		}
		return streamKernel{pattern, name("4 %s per iteration, VFMADD231PD"), checked(pattern, func(a, b, c []float64, s float64, passes int) {
			n := len(a) / (4 * vec) * (4 * vec)
			if n > 0 && passes > 0 {
				f(&a[0], &b[0], &c[0], n, passes, streamAhead, s)
			}
			triadGenericTail(a, b, c, s, passes, n)
		})}, true
	case PatternUpdate:
		f := updatePFF64AVX
		if wide {
			f = updatePFF64AVX512
		}
		return streamKernel{pattern, name("4 %s per iteration, VFMADD231PD, stored in place"), checked(pattern, func(a, b, _ []float64, s float64, passes int) {
			inSteps(4*vec, a, b, passes, func(a, b *float64, n int) { f(a, b, n, passes, streamAhead, s) },
				func(a, b []float64) { updateF64Generic(a, b, s) })
		})}, true
	case PatternCopy:
		f := copyPFF64AVX
		if wide {
			f = copyPFF64AVX512
		}
		return streamKernel{pattern, name("4 %s loads and stores per iteration"), checked(pattern, func(a, b, _ []float64, _ float64, passes int) {
			inSteps(4*vec, a, b, passes, func(a, b *float64, n int) { f(a, b, n, passes, streamAhead) }, copyF64Generic)
		})}, true
	case PatternRead:
		f, accs := readPFF64AVX, 8
		if wide {
			f, accs = readPFF64AVX512, 16
		}
		return streamKernel{pattern, name(fmt.Sprint(accs) + " %s accumulators, VADDPD from memory"), checked(pattern, readRunner(accs*vec, func(b *float64, n, passes int) float64 {
			return f(b, n, passes, streamAhead)
		}))}, true
	}
	return streamKernel{}, false
}

func asmClockKernel() (clockKernel, bool) {
	return clockKernel{"add-chain-amd64 (100 dependent ADDQ per iteration)", 100, addChainAMD64}, true
}

// clockUnderXMM, clockUnderYMM and clockUnderZMM return x + 16·n·step
// through n iterations of 16 dependent ADDQ beside 12 independent FMAs of
// their width (units_amd64.s).
func clockUnderXMM(n int, x, step uint64) uint64
func clockUnderYMM(n int, x, step uint64) uint64
func clockUnderZMM(n int, x, step uint64) uint64

// asmClockUnderKernel returns the clock kernel that runs FMAs of `bits`
// beside its add chain, if this CPU runs that width.
func asmClockUnderKernel(bits int) (clockKernel, bool) {
	var run func(n int, x, step uint64) uint64
	reg := ""
	switch {
	case bits == 128 && haveFMA3:
		run, reg = clockUnderXMM, "xmm"
	case bits == 256 && haveFMA3:
		run, reg = clockUnderYMM, "ymm"
	case bits == 512 && haveAVX512:
		run, reg = clockUnderZMM, "zmm"
	default:
		return clockKernel{}, false
	}
	return clockKernel{fmt.Sprintf("add-chain-under-%s (16 dependent ADDQ beside 12 %s VFMADD213PS per iteration)", reg, reg), 16, run}, true
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

// widenSteps runs a widen's assembly on the first n elements of a (a
// multiple of its step) and Go on the rest.
func widenSteps(a, b []float64, passes, n int, asm func(a, b *float64, n, passes int)) {
	if n > 0 && passes > 0 {
		asm(&a[0], &b[0], n, passes)
	}
	if n < len(a) {
		for range passes {
			widenF64Generic(a[n:], b[n/4:])
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
