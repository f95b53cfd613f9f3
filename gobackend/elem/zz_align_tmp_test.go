package elem

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/isa"
)

func aligned32(n, off int) []float32 {
	b := make([]float32, n+64)
	s := int((64 - uintptr(unsafe.Pointer(&b[0]))%64) % 64 / 4)
	return b[s+off : s+off+n]
}

func BenchmarkAlignTmp(b *testing.B) {
	for _, n := range []int{1024, 16384} {
		for _, off := range []int{0, 1, 4, 7} {
			x, y := aligned32(n, off), aligned32(n, off)
			b.Run(fmt.Sprintf("axpy/n=%d/off=%d", n, off), func(b *testing.B) {
				b.SetBytes(int64(12 * n))
				for b.Loop() {
					Axpy(isa.AVX2, 0.5, x, y, 1)
				}
			})
			b.Run(fmt.Sprintf("add/n=%d/off=%d", n, off), func(b *testing.B) {
				b.SetBytes(int64(12 * n))
				for b.Loop() {
					Add(isa.AVX2, x, y, y, 1)
				}
			})
		}
	}
}

func BenchmarkRawTmp(b *testing.B) {
	for _, n := range []int{1024, 4096} {
		x, y := aligned32(n, 0), aligned32(n, 0)
		b.Run(fmt.Sprintf("raw-axpy/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				saxpyAVX2(n, 0.5, &x[0], &y[0])
			}
		})
		b.Run(fmt.Sprintf("raw-add/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				saddAVX2(n, &x[0], &y[0], &y[0])
			}
		})
		b.Run(fmt.Sprintf("api-axpy/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				Axpy(isa.AVX2, 0.5, x, y, 1)
			}
		})
	}
}
