package peak

import (
	"fmt"
	"math"
	"sync/atomic"
)

// sink receives every kernel's result so no measured work is dead.
var sink atomic.Uint64

// fmaKernel is one implementation of the empirical FMA-throughput loop.
type fmaKernel struct {
	name          string
	flopsPerRound float64 // fmaAccs × lanes × 2
	// newRunner returns a runner with its own accumulators (one per thread);
	// a call runs `rounds` rounds and returns the sum of the accumulators.
	newRunner func() func(rounds int) float64
}

// triadKernel computes a[i] = b[i] + s·c[i] for i < len(a), `passes` times.
type triadKernel struct {
	name string
	run  func(a, b, c []float64, s float64, passes int)
}

// clockKernel runs n iterations of `adds` dependent one-cycle integer adds.
type clockKernel struct {
	name string
	adds int
	run  func(n int, x, step uint64) uint64
}

// The FMA kernels compute acc = acc·m + c: with |m| < 1 every lane converges to
// c/(1−m) = 1 from its start value, never overflowing nor reaching subnormals
// (which would slow some CPUs down).
const (
	fmaM = 0.9990234375 // 1 − 2⁻¹⁰
	fmaC = 1 - fmaM
)

// fmaStart fills acc with distinct values near 1.
func fmaStart[F float32 | float64](acc []F) {
	for i := range acc {
		acc[i] = F(1 + float64(i)/64)
	}
}

// fmaKernelFor picks the fastest FMA kernel for dtype on a core whose FP units
// run simdBits-wide vectors at full rate: assembly when there is one, else
// the pure-Go scalar loop.
func fmaKernelFor(dtype string, simdBits int) fmaKernel {
	if k, ok := asmFMAKernel(dtype, simdBits); ok {
		return k
	}
	return goFMAKernel(dtype)
}

// goFMAKernel is the pure-Go FMA kernel: scalar, so on a vector machine it is a
// lower bound, not the peak.
func goFMAKernel(dtype string) fmaKernel {
	name := fmt.Sprintf("fma-go (pure Go scalar, %d independent %s chains; far below the vector peak)", 8, dtype)
	if dtype == "f64" {
		return fmaKernel{name, 8 * 2, func() func(int) float64 {
			acc := make([]float64, 8)
			fmaStart(acc)
			return func(rounds int) float64 {
				fmaF64Generic(acc, fmaM, fmaC, rounds)
				return sum(acc)
			}
		}}
	}
	return fmaKernel{name, 8 * 2, func() func(int) float64 {
		acc := make([]float32, 8)
		fmaStart(acc)
		return func(rounds int) float64 {
			fmaF32Generic(acc, fmaM, fmaC, rounds)
			return sum(acc)
		}
	}}
}

// triadKernelFor picks the triad kernel: assembly when there is one for this
// CPU (512-bit only where simdBits says the core runs it at full rate).
func triadKernelFor(simdBits int) triadKernel {
	if k, ok := asmTriadKernel(simdBits); ok {
		return k
	}
	return goTriadKernel()
}

// goTriadKernel is the pure-Go triad.
func goTriadKernel() triadKernel {
	return triadKernel{"triad-go (pure Go)", triad(func(a, b, c []float64, s float64, passes int) {
		for range passes {
			triadF64Generic(a, b, c, s)
		}
	})}
}

// clockKernelFor picks the dependent-add chain: assembly on amd64 (exactly one
// add per cycle), else pure Go (approximate).
func clockKernelFor() clockKernel {
	if k, ok := asmClockKernel(); ok {
		return k
	}
	return clockKernel{"add-chain-go (pure Go, approximate)", addChainGenericAdds, addChainGeneric}
}

// triad wraps a kernel with the length check every kernel relies on.
func triad(k func(a, b, c []float64, s float64, passes int)) func(a, b, c []float64, s float64, passes int) {
	return func(a, b, c []float64, s float64, passes int) {
		if len(b) < len(a) || len(c) < len(a) {
			panic(fmt.Sprintf("peak: triad: len(a)=%d but len(b)=%d, len(c)=%d", len(a), len(b), len(c)))
		}
		k(a, b, c, s, passes)
	}
}

func sum[F float32 | float64](x []F) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}

// consume keeps a result alive.
func consume(v float64) { sink.Add(math.Float64bits(v)) }
