package elem

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// BenchmarkSplit times the kernels at the best level on the sizes where
// splitting over two threads pays or not: 16 Ki to 1 Mi elements, whose
// inputs and outputs fit in one core's L2, in the two cores' L2 together,
// or in neither. Compare t=1 and t=2 (and variants of internal/num) in one
// interleaved run.
func BenchmarkSplit(b *testing.B) {
	lvl := isa.Levels()[len(isa.Levels())-1]
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{16 << 10, 64 << 10, 256 << 10, 1 << 20} {
		x, y, z := input[float32](n, 0, rnd, 1, false).Data, input[float32](n, 0, rnd, 1, false).Data, make([]float32, n)
		xd, zd := input[float64](n, 0, rnd, 1, false).Data, make([]float64, n)
		for _, th := range []int{1, 2} {
			name := fmt.Sprintf("n=%d/t=%d", n, th)
			b.Run("Exp/f32/"+name, func(b *testing.B) { benchOp(b, n, 8, func() { Exp(lvl, x, z, th) }) })
			b.Run("Tanh/f32/"+name, func(b *testing.B) { benchOp(b, n, 8, func() { Tanh(lvl, x, z, th) }) })
			b.Run("Exp/f64/"+name, func(b *testing.B) { benchOp(b, n, 16, func() { Exp(lvl, xd, zd, th) }) })
			b.Run("Add/f32/"+name, func(b *testing.B) { benchOp(b, n, 12, func() { Add(lvl, x, y, z, th) }) })
			b.Run("Axpy/f32/"+name, func(b *testing.B) { benchOp(b, n, 12, func() { Axpy(lvl, 0.5, x, y, th) }) })
		}
	}
}
