package conv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// BenchmarkPool times the suites' pooling shapes (bench/workload) at the
// CPU's best level, f32, 1 and 2 threads.
func BenchmarkPool(b *testing.B) {
	one, two, three := [3]int{1, 1, 1}, [3]int{1, 2, 2}, [3]int{1, 3, 3}
	for _, c := range []struct {
		name string
		kind PoolKind
		p    Params
	}{
		{"max-112-3x3s2", Max, Params{N: 1, C: 64, In: [3]int{1, 112, 112}, Window: three, Stride: two, Pad: [3]int{0, 1, 1}}},
		{"max-112-3x3s2-nhwc", Max, Params{N: 1, C: 64, In: [3]int{1, 112, 112}, Window: three, Stride: two, Pad: [3]int{0, 1, 1}, NHWC: true}},
		{"max-3d-2x2x2", Max, Params{N: 1, C: 64, In: [3]int{16, 56, 56}, Window: [3]int{2, 2, 2}, Stride: [3]int{2, 2, 2}}},
		{"avg-56-2x2", Avg, Params{N: 1, C: 64, In: [3]int{1, 56, 56}, Window: two, Stride: two}},
		{"avg-28-3x3s1", Avg, Params{N: 1, C: 256, In: [3]int{1, 28, 28}, Window: three, Stride: one, Pad: [3]int{0, 1, 1}}},
		{"max-28-3x3s1", Max, Params{N: 1, C: 256, In: [3]int{1, 28, 28}, Window: three, Stride: one, Pad: [3]int{0, 1, 1}}},
		{"avg-7x7-global", Avg, Params{N: 1, C: 2048, In: [3]int{1, 7, 7}, Window: [3]int{1, 7, 7}, Stride: [3]int{1, 7, 7}}},
		{"max-7x7-global", Max, Params{N: 1, C: 2048, In: [3]int{1, 7, 7}, Window: [3]int{1, 7, 7}, Stride: [3]int{1, 7, 7}}},
	} {
		p := c.p
		p.Dil = one
		x, _ := random[float32](rand.New(rand.NewPCG(1, 2)), p.InLen())
		y := make([]float32, p.N*p.C*prod(p.Out()))
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/t%d", c.name, threads), func(b *testing.B) {
				for b.Loop() {
					Pool(isa.Best, c.kind, p, [3]int{}, x, y, threads)
				}
			})
		}
	}
}
