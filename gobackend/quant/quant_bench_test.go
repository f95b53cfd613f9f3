package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// BenchmarkQuantize times quantize and dequantize on one thread at each
// vector level, in L1 (4 Ki elements: 20 KiB moved) and L2 (64 Ki:
// 320 KiB), where the kernels' instructions rather than the memory bound
// them. Bytes are every operand's (5 a element). Compare variants in one
// interleaved run (-count, benchstat).
func BenchmarkQuantize(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, lvl := range isa.Levels() {
		if lvl == isa.Generic {
			continue
		}
		for _, n := range []int{4 << 10, 64 << 10} {
			x := inputs(rng, n, 0.0173)
			qi, qu := make([]int8, n), make([]uint8, n)
			y := make([]float32, n)
			run := func(name string, f func()) {
				b.Run(fmt.Sprintf("%s/%v/n=%d", name, lvl, n), func(b *testing.B) {
					b.SetBytes(int64(5 * n))
					for b.Loop() {
						f()
					}
				})
			}
			run("Quantize/i8", func() { Quantize(lvl, x, 0.0173, 0, qi, 1) })
			run("Quantize/u8", func() { Quantize(lvl, x, 0.0173, 128, qu, 1) })
			run("Dequantize/i8", func() { Dequantize(lvl, qi, 0.0173, 0, y, 1) })
			run("Dequantize/u8", func() { Dequantize(lvl, qu, 0.0173, 128, y, 1) })
		}
	}
}
