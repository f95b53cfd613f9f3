package conv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// BenchmarkLowered times the im2col + GEMM convolution at the best level
// on the suite's NCHW shapes (the 3×3 and 1×1 ResNet-50 layers, the 3-D
// one), one and two threads. Compare builds with -count ≥ 2 and benchstat;
// -cpuprofile shows the split between im2col, packing and the kernels.
func BenchmarkLowered(b *testing.B) {
	benchConv(b, func(p Params) func(isa.Level, []float32, []float32, []float32, int) {
		return NewLowered[float32](p).Run
	})
}

// BenchmarkDirect times the direct convolution (the tile path at the
// assembly levels) on the same shapes and the suite's 1-D one.
func BenchmarkDirect(b *testing.B) {
	benchConv(b, func(p Params) func(isa.Level, []float32, []float32, []float32, int) {
		return NewDirectConv[float32](p).Run
	})
}

func benchConv(b *testing.B, prepare func(Params) func(isa.Level, []float32, []float32, []float32, int)) {
	shapes := []struct {
		name string
		p    Params
	}{
		{"conv1d/1x256x1000:256x5:p2", Params{N: 1, C: 256, K: 256, In: [3]int{1, 1, 1000}, Window: [3]int{1, 1, 5}, Stride: [3]int{1, 1, 1}, Pad: [3]int{0, 0, 2}, Dil: [3]int{1, 1, 1}}},
		{"conv2d/1x64x56x56:64x3x3:p1", Params{N: 1, C: 64, K: 64, In: [3]int{1, 56, 56}, Window: [3]int{1, 3, 3}, Stride: [3]int{1, 1, 1}, Pad: [3]int{0, 1, 1}, Dil: [3]int{1, 1, 1}}},
		{"conv2d/1x256x56x56:64x1x1", Params{N: 1, C: 256, K: 64, In: [3]int{1, 56, 56}, Window: [3]int{1, 1, 1}, Stride: [3]int{1, 1, 1}, Dil: [3]int{1, 1, 1}}},
		{"conv3d/1x16x8x28x28:16x3x3x3:p1", Params{N: 1, C: 16, K: 16, In: [3]int{8, 28, 28}, Window: [3]int{3, 3, 3}, Stride: [3]int{1, 1, 1}, Pad: [3]int{1, 1, 1}, Dil: [3]int{1, 1, 1}}},
	}
	for _, s := range shapes {
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/t=%d", s.name, th), func(b *testing.B) {
				rnd := rand.New(rand.NewPCG(1, 1))
				x := numtest.New[float32](s.p.InLen(), rnd).Data
				w := numtest.New[float32](s.p.FilterLen(), rnd).Data
				y := make([]float32, s.p.OutLen())
				run := prepare(s.p)
				for b.Loop() {
					run(isa.Best, x, w, y, th)
				}
				o := s.p.Out()
				flops := 2 * float64(s.p.N*s.p.K*o[0]*o[1]*o[2]) * float64(s.p.C*prod(s.p.Window))
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
