package peak

import "math"

// Pure-Go kernels: always built, the reference the assembly twins are tested
// against, and what runs where there is no assembly (other GOARCHes, -tags
// purego, CPUs without AVX/FMA).

// fmaAccs is the number of independent accumulators of the FMA kernels: an
// FMA has 4–5 cycles latency and 2 pipes issue one each per cycle, so at least
// latency × pipes = 8–10 must be in flight; 12 leaves headroom.
const fmaAccs = 12

// fma32 is a float32 fused multiply-add through float64: the product of two
// float32 is exact in float64, then rounded twice (to 53, then 24 bits), which
// can differ from a single rounding by one ulp in rare ties.
func fma32(x, y, z float32) float32 {
	return float32(math.FMA(float64(x), float64(y), float64(z)))
}

// fmaF32Generic runs `rounds` rounds of acc[i] = acc[i]·m + c on every
// element, 8 elements at a time in locals so the chains are independent.
func fmaF32Generic(acc []float32, m, c float32, rounds int) {
	for ; len(acc) >= 8; acc = acc[8:] {
		a0, a1, a2, a3, a4, a5, a6, a7 := acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]
		for r := 0; r < rounds; r++ {
			a0 = fma32(a0, m, c)
			a1 = fma32(a1, m, c)
			a2 = fma32(a2, m, c)
			a3 = fma32(a3, m, c)
			a4 = fma32(a4, m, c)
			a5 = fma32(a5, m, c)
			a6 = fma32(a6, m, c)
			a7 = fma32(a7, m, c)
		}
		acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7] = a0, a1, a2, a3, a4, a5, a6, a7
	}
	for i := range acc {
		for r := 0; r < rounds; r++ {
			acc[i] = fma32(acc[i], m, c)
		}
	}
}

// fmaF64Generic is fmaF32Generic for float64; math.FMA rounds once, exactly
// as VFMADD does.
func fmaF64Generic(acc []float64, m, c float64, rounds int) {
	for ; len(acc) >= 8; acc = acc[8:] {
		a0, a1, a2, a3, a4, a5, a6, a7 := acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]
		for r := 0; r < rounds; r++ {
			a0 = math.FMA(a0, m, c)
			a1 = math.FMA(a1, m, c)
			a2 = math.FMA(a2, m, c)
			a3 = math.FMA(a3, m, c)
			a4 = math.FMA(a4, m, c)
			a5 = math.FMA(a5, m, c)
			a6 = math.FMA(a6, m, c)
			a7 = math.FMA(a7, m, c)
		}
		acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7] = a0, a1, a2, a3, a4, a5, a6, a7
	}
	for i := range acc {
		for r := 0; r < rounds; r++ {
			acc[i] = math.FMA(acc[i], m, c)
		}
	}
}

// triadF64Generic computes a[i] = b[i] + s·c[i] for i < len(a), fused (one
// rounding), as the assembly does with VFMADD231PD, so both give identical
// bits.
func triadF64Generic(a, b, c []float64, s float64) {
	b, c = b[:len(a)], c[:len(a)]
	for i := range a {
		a[i] = math.FMA(s, c[i], b[i])
	}
}

// updateF64Generic computes a[i] += s·b[i] for i < len(a), fused, as the
// assembly does.
func updateF64Generic(a, b []float64, s float64) {
	b = b[:len(a)]
	for i := range a {
		a[i] = math.FMA(s, b[i], a[i])
	}
}

// copyF64Generic copies b into a (len(a) elements) with a plain loop: the
// Go compiler does not turn it into a memmove call.
func copyF64Generic(a, b []float64) {
	b = b[:len(a)]
	for i := range a {
		a[i] = b[i]
	}
}

// widenF64Generic writes each line of b (8 elements) to four lines of a:
// a[i] = b[i/32·8 + i%8], len(a) elements (b at least widenSource of it).
func widenF64Generic(a, b []float64) {
	b = b[:widenSource(len(a))]
	for i := range a {
		a[i] = b[i/32*8+i%8]
	}
}

// readF64Generic returns Σ x[i] in eight chains, so that the adds' latency
// does not bound it.
func readF64Generic(x []float64) float64 {
	var acc [8]float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		acc[0] += x[i]
		acc[1] += x[i+1]
		acc[2] += x[i+2]
		acc[3] += x[i+3]
		acc[4] += x[i+4]
		acc[5] += x[i+5]
		acc[6] += x[i+6]
		acc[7] += x[i+7]
	}
	for ; i < len(x); i++ {
		acc[0] += x[i]
	}
	return (acc[0] + acc[1]) + (acc[2] + acc[3]) + (acc[4] + acc[5]) + (acc[6] + acc[7])
}

// addChainGenericAdds is the number of dependent one-cycle operations per
// iteration of addChainGeneric.
const addChainGenericAdds = 16

// addChainGeneric runs n iterations of 16 dependent operations, adds and xors
// alternating: the compiler merges a run of plain adds of one value into LEAs
// (x + 2·step) but cannot merge across an xor. With step unknown at compile
// time nothing folds, but Go promises nothing about the instructions: clocks
// measured with it are approximate (one cycle per add and per xor on common
// cores; the loop counter runs in parallel on any out-of-order core).
func addChainGeneric(n int, x, step uint64) uint64 {
	mask := step << 7
	for i := 0; i < n; i++ {
		x = (x + step) ^ mask
		x = (x + step) ^ mask
		x = (x + step) ^ mask
		x = (x + step) ^ mask
		x = (x + step) ^ mask
		x = (x + step) ^ mask
		x = (x + step) ^ mask
		x = (x + step) ^ mask
	}
	return x
}
