package sparse

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The conversions on the suite's matrices (bench/workload/suite.go): a band
// of 17 entries a row and 16 entries a row at random, 256 Ki rows.
func benchMatrices(b *testing.B) map[string]*CSR[float32] {
	t := &testing.T{}
	rng := rand.New(rand.NewPCG(3, 4))
	return map[string]*CSR[float32]{
		"banded":  bandCSR[float32](t, 256<<10, 8),
		"uniform": randomCSR[float32](t, rng, 256<<10, 256<<10, func(int) int { return 8 + rng.IntN(17) }),
	}
}

func BenchmarkToCOO(b *testing.B) {
	for name, a := range benchMatrices(b) {
		out := make([]int32, a.NNZ())
		for _, lvl := range levels() {
			b.Run(name+"/"+lvl.String(), func(b *testing.B) {
				b.SetBytes(int64(4*a.NNZ() + 4*(a.rows+1)))
				for b.Loop() {
					ToCOO(lvl, a, out, 1)
				}
			})
		}
	}
}

func BenchmarkToCSC(b *testing.B) {
	for name, a := range benchMatrices(b) {
		val, rowIdx, colPtr := make([]float32, a.NNZ()), make([]int32, a.NNZ()), make([]int32, a.cols+1)
		w := NewCSCWork(a, 1)
		for _, lvl := range levels() {
			b.Run(fmt.Sprint(name, "/", lvl), func(b *testing.B) {
				for b.Loop() {
					ToCSC(lvl, a, w, val, rowIdx, colPtr)
				}
			})
		}
	}
}
