package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
)

// Benchmarks report GFLOP/s (2·m·n·k per call) and GB/s (GEMV: A read once).

func benchGemm[T Float](b *testing.B, n, threads int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	a := numtest.New[T](n*n, rnd).Data
	bb := numtest.New[T](n*n, rnd).Data
	c := numtest.New[T](n*n, rnd).Data
	b.ResetTimer()
	for b.Loop() {
		Gemm(false, false, n, n, n, 1, a, n, bb, n, 0, c, n, threads)
	}
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkGemm(b *testing.B) {
	for _, n := range []int{256, 512, 1024} {
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("f32/n=%d/t=%d", n, th), func(b *testing.B) { benchGemm[float32](b, n, th) })
			b.Run(fmt.Sprintf("f64/n=%d/t=%d", n, th), func(b *testing.B) { benchGemm[float64](b, n, th) })
		}
	}
}

func benchGemv[T Float](b *testing.B, trans bool, n, threads int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	a := numtest.New[T](n*n, rnd).Data
	x := numtest.New[T](n, rnd).Data
	y := numtest.New[T](n, rnd).Data
	var z T
	b.SetBytes(int64(n) * int64(n) * int64(sizeOf(z)))
	b.ResetTimer()
	for b.Loop() {
		Gemv(trans, n, n, 1, a, n, x, 1, 0, y, 1, threads)
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
	for _, n := range []int{512, 2048} {
		for _, trans := range []bool{false, true} {
			for _, th := range []int{1, 2} {
				b.Run(fmt.Sprintf("f32/trans=%v/n=%d/t=%d", trans, n, th), func(b *testing.B) { benchGemv[float32](b, trans, n, th) })
				b.Run(fmt.Sprintf("f64/trans=%v/n=%d/t=%d", trans, n, th), func(b *testing.B) { benchGemv[float64](b, trans, n, th) })
			}
		}
	}
}
