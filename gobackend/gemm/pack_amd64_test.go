//go:build !purego

package gemm

import (
	"math"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// TestPackTranspose14 checks the AVX-512 SGEMM's packer of A's rows
// (spackTranspose14AVX512: 16 values a row by register transpose, the rest
// by the gather) against the definition, for every k to past a few blocks
// of 16: each of the k·14 values, nothing written past them.
func TestPackTranspose14(t *testing.T) {
	if isa.Best < isa.AVX512 {
		t.Skip("the transposing packer needs AVX-512")
	}
	const w = 14
	pack := packerOf[float32](spackTranspose14AVX512, w, true)
	for k := 1; k <= 70; k++ {
		for _, lds := range []int{k, k + 3, 301} {
			src := make([]float32, (w-1)*lds+k)
			for i := range src {
				src[i] = float32(i) + 0.5
			}
			dst := make([]float32, k*w+16)
			guard := float32(math.NaN())
			for i := range dst {
				dst[i] = guard
			}
			pack(k, src, lds, dst[:k*w])
			for p := range k {
				for i := range w {
					if got, want := dst[p*w+i], src[i*lds+p]; got != want {
						t.Fatalf("k=%d lds=%d: step %d row %d = %v, want %v", k, lds, p, i, got, want)
					}
				}
			}
			for i := k * w; i < len(dst); i++ {
				if !math.IsNaN(float64(dst[i])) {
					t.Fatalf("k=%d lds=%d: wrote dst[%d] past the panel", k, lds, i)
				}
			}
		}
	}
}
