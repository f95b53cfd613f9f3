package gemm

import (
	"fmt"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// BenchmarkGemmSmall times the small and mid sizes at 1 and 2 threads,
// packed and unpacked (direct.go), whatever the tune file says: compare
// the paths with benchstat on interleaved runs.
func BenchmarkGemmSmall(b *testing.B) {
	for _, n := range []int{32, 64, 128, 256, 512} {
		for _, th := range []int{1, 2} {
			for _, path := range []struct {
				name   string
				direct int
			}{{"packed", 0}, {"direct", tune.MaxPieceBytes}} {
				set := func(g *tune.GEMM) {
					g.Direct = tune.PerDType{F32: path.direct, F64: path.direct}
					g.Parallel = tune.PerDType{}
				}
				b.Run(fmt.Sprintf("f32/n=%d/t=%d/%s", n, th, path.name), func(b *testing.B) {
					withGEMMTune(set, func() { benchGemm[float32](b, isa.Best, n, th) })
				})
				b.Run(fmt.Sprintf("f64/n=%d/t=%d/%s", n, th, path.name), func(b *testing.B) {
					withGEMMTune(set, func() { benchGemm[float64](b, isa.Best, n, th) })
				})
			}
		}
	}
}
