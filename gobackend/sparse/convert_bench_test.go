package sparse

import (
	"math/rand/v2"
	"testing"
)

// The conversions on the suite's matrices (bench/workload/suite.go): a band
// of 17 entries a row and 8 to 24 entries a row at random, 256 Ki rows.
func benchMatrices[T Float]() map[string]*CSR[T] {
	t := &testing.T{}
	rng := rand.New(rand.NewPCG(3, 4))
	return map[string]*CSR[T]{
		"banded":  bandCSR[T](t, 256<<10, 8),
		"uniform": randomCSR[T](t, rng, 256<<10, 256<<10, func(int) int { return 8 + rng.IntN(17) }),
	}
}

func BenchmarkToCOO(b *testing.B) {
	for name, a := range benchMatrices[float32]() {
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
	b.Run("f32", benchToCSC[float32])
	b.Run("f64", benchToCSC[float64])
}

func benchToCSC[T Float](b *testing.B) {
	for name, a := range benchMatrices[T]() {
		val, rowIdx, colPtr := make([]T, a.NNZ()), make([]int32, a.NNZ()), make([]int32, a.cols+1)
		w := NewCSCWork(a, 1)
		for _, lvl := range levels() {
			b.Run(name+"/"+lvl.String(), func(b *testing.B) {
				for b.Loop() {
					ToCSC(lvl, a, w, val, rowIdx, colPtr)
				}
			})
		}
	}
}

func BenchmarkFromCOO(b *testing.B) {
	for name, a := range benchMatrices[float32]() {
		rowIdx, rowPtr := make([]int32, a.NNZ()), make([]int32, a.rows+1)
		ToCOO(levels()[0], a, rowIdx, 1)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(4*a.NNZ() + 4*(a.rows+1)))
			for b.Loop() {
				FromCOO(a.rows, rowIdx, rowPtr, 1)
			}
		})
	}
}
