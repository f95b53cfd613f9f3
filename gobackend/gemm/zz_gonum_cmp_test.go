package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
)

// Throwaway: gonum vs this package, interleaved.
func BenchmarkCmp(b *testing.B) {
	const n = 1024
	rnd := rand.New(rand.NewPCG(1, 1))
	a64 := numtest.New[float64](n*n, rnd).Data
	b64 := numtest.New[float64](n*n, rnd).Data
	c64 := make([]float64, n*n)
	a32 := numtest.New[float32](n*n, rnd).Data
	b32 := numtest.New[float32](n*n, rnd).Data
	c32 := make([]float32, n*n)
	var impl gonum.Implementation
	rep := func(b *testing.B) {
		b.ReportMetric(2*float64(n)*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=gonum/dtype=f32/t=%d", th), func(b *testing.B) {
			for b.Loop() {
				impl.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a32, n, b32, n, 0, c32, n)
			}
			rep(b)
		})
		b.Run(fmt.Sprintf("impl=go/dtype=f32/t=%d", th), func(b *testing.B) {
			for b.Loop() {
				Gemm(false, false, n, n, n, 1, a32, n, b32, n, 0, c32, n, th)
			}
			rep(b)
		})
		b.Run(fmt.Sprintf("impl=gonum/dtype=f64/t=%d", th), func(b *testing.B) {
			for b.Loop() {
				impl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a64, n, b64, n, 0, c64, n)
			}
			rep(b)
		})
		b.Run(fmt.Sprintf("impl=go/dtype=f64/t=%d", th), func(b *testing.B) {
			for b.Loop() {
				Gemm(false, false, n, n, n, 1, a64, n, b64, n, 0, c64, n, th)
			}
			rep(b)
		})
	}
}
