package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// Benchmarks report GFLOP/s (2·m·n·k per call) and GB/s (GEMV: A read once),
// for each level this CPU runs: compare levels with benchstat on
// interleaved runs (-count ≥ 5), as the machine is shared.

func benchGemm[T Float](b *testing.B, lvl isa.Level, n, threads int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	a := numtest.New[T](n*n, rnd).Data
	bb := numtest.New[T](n*n, rnd).Data
	c := numtest.New[T](n*n, rnd).Data
	for b.Loop() {
		Gemm(lvl, false, false, n, n, n, 1, a, n, bb, n, 0, c, n, threads)
	}
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkGemm(b *testing.B) {
	for _, lvl := range isa.Levels() {
		sizes := []int{256, 512, 1024, 2048}
		if lvl == isa.Generic {
			sizes = []int{256, 512}
		}
		for _, n := range sizes {
			for _, th := range []int{1, 2} {
				b.Run(fmt.Sprintf("%v/f32/n=%d/t=%d", lvl, n, th), func(b *testing.B) { benchGemm[float32](b, lvl, n, th) })
				b.Run(fmt.Sprintf("%v/f64/n=%d/t=%d", lvl, n, th), func(b *testing.B) { benchGemm[float64](b, lvl, n, th) })
			}
		}
	}
}

// BenchmarkMicroKernel runs one micro-kernel on panels in L1/L2, kc deep:
// the ceiling the loop nest can approach. The panels start on 64-byte
// boundaries, as Gemm's packed panels do (getBuf): unaligned, every
// vector load of B straddles two lines, and the AVX-512 SGEMM kernel's
// best of 40 interleaved rounds was 143–148 GFLOP/s against 162–165
// aligned (Ice Lake VM, three runs).
func BenchmarkMicroKernel(b *testing.B) {
	for _, lvl := range isa.Levels() {
		b.Run(fmt.Sprintf("%v/f32", lvl), func(b *testing.B) { benchMicro[float32](b, lvl) })
		b.Run(fmt.Sprintf("%v/f64", lvl), func(b *testing.B) { benchMicro[float64](b, lvl) })
	}
}

func benchMicro[T Float](b *testing.B, lvl isa.Level) {
	k := kernelFor[T](lvl)
	rnd := rand.New(rand.NewPCG(1, 1))
	kc := k.kc
	a, bb := *getBuf[T](k.mr * kc), *getBuf[T](k.nr * kc)
	copy(a, numtest.New[T](len(a), rnd).Data)
	copy(bb, numtest.New[T](len(bb), rnd).Data)
	c := numtest.New[T](k.mr*k.nr, rnd).Data
	for b.Loop() {
		k.fn(kc, a, bb, 1, 1, c, k.nr)
	}
	b.ReportMetric(2*float64(k.mr*k.nr*kc)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func benchGemv[T Float](b *testing.B, lvl isa.Level, trans bool, n, threads int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	a := numtest.New[T](n*n, rnd).Data
	x := numtest.New[T](n, rnd).Data
	y := numtest.New[T](n, rnd).Data
	var z T
	b.SetBytes(int64(n) * int64(n) * int64(sizeOf(z)))
	for b.Loop() {
		Gemv(lvl, trans, n, n, 1, a, n, x, 1, 0, y, 1, threads)
	}
	b.ReportMetric(2*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func sizeOf(v any) int {
	if _, ok := v.(float32); ok {
		return 4
	}
	return 8
}

func BenchmarkGemv(b *testing.B) {
	for _, lvl := range isa.Levels() {
		for _, n := range []int{64, 512, 2048} {
			for _, trans := range []bool{false, true} {
				for _, th := range []int{1, 2} {
					b.Run(fmt.Sprintf("%v/f32/trans=%v/n=%d/t=%d", lvl, trans, n, th), func(b *testing.B) { benchGemv[float32](b, lvl, trans, n, th) })
					b.Run(fmt.Sprintf("%v/f64/trans=%v/n=%d/t=%d", lvl, trans, n, th), func(b *testing.B) { benchGemv[float64](b, lvl, trans, n, th) })
				}
			}
		}
	}
}
