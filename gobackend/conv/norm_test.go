package conv

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// refLayerNorm is layer normalization in float64 (two-pass variance), with
// the error scale of bench/workload's check: |γ|·(ρ·|x−μ| + mean|x|)/σ +
// |β|, ρ = 1 + 1.5·mean(x²)/σ².
func refLayerNorm(n, f int, x, gamma, beta []float64, eps float64) (y, scale []float64) {
	y, scale = make([]float64, n*f), make([]float64, n*f)
	for r := range n {
		row := x[r*f : (r+1)*f]
		var mu, v, sq, ab float64
		for _, a := range row {
			mu, sq, ab = mu+a, sq+a*a, ab+math.Abs(a)
		}
		mu /= float64(f)
		for _, a := range row {
			v += (a - mu) * (a - mu)
		}
		v = v/float64(f) + eps
		rho := 1 + 1.5*sq/float64(f)/v
		for i, a := range row {
			y[r*f+i] = gamma[i]*(a-mu)/math.Sqrt(v) + beta[i]
			scale[r*f+i] = math.Abs(gamma[i])*(rho*math.Abs(a-mu)+ab/float64(f))/math.Sqrt(v) + math.Abs(beta[i])
		}
	}
	return y, scale
}

func testLayerNorm[T Float](t *testing.T, rng *rand.Rand) {
	const e = 1e-5
	for _, lvl := range isa.Levels() {
		for _, sz := range [][2]int{{1, 1}, {1, 2}, {3, 7}, {2, 15}, {2, 16}, {2, 17}, {5, 31}, {4, 33}, {3, 64}, {2, 100}, {1, 1025}, {9, 1024}} {
			n, f := sz[0], sz[1]
			x, xf := random[T](rng, n*f)
			gamma, gf := random[T](rng, f)
			beta, bf := random[T](rng, f)
			// An offset mean, so that the one-pass variance is exercised.
			for i := range x {
				x[i] += 3
				xf[i] = float64(x[i])
			}
			want, scale := refLayerNorm(n, f, xf, gf, bf, e)
			for _, threads := range []int{1, 2} {
				y := make([]T, n*f)
				LayerNorm(lvl, n, f, x, gamma, beta, y, e, threads)
				for j, w := range want {
					if d := math.Abs(float64(y[j]) - w); d > scale[j]*float64(f+16)*eps[T]() {
						t.Fatalf("%s %d×%d threads %d: y[%d] = %v, want %v (scale %v)", lvl, n, f, threads, j, y[j], w, scale[j])
					}
				}
			}
		}
		// A NaN makes its row NaN and leaves the others alone.
		n, f := 3, 37
		x, _ := random[T](rng, n*f)
		gamma, _ := random[T](rng, f)
		beta, _ := random[T](rng, f)
		x[f+5] = T(math.NaN())
		y := make([]T, n*f)
		LayerNorm(lvl, n, f, x, gamma, beta, y, e, 2)
		for j, v := range y {
			if isNaN := math.IsNaN(float64(v)); isNaN != (j/f == 1) {
				t.Fatalf("%s: NaN in row 1: y[%d] = %v", lvl, j, v)
			}
		}
	}
}

// TestLayerNorm checks every level in f32 and f64 against float64 at the
// tolerance bench/workload verifies with (F + 16 roundings of the scale):
// rows of 1 element, rows shorter than a vector, every tail, 1 row and
// more rows than threads.
func TestLayerNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	t.Run("f32", func(t *testing.T) { testLayerNorm[float32](t, rng) })
	t.Run("f64", func(t *testing.T) { testLayerNorm[float64](t, rng) })
}
