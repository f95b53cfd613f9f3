package gemm

import (
	"fmt"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// BenchmarkLowp runs each low-precision gemm with the best kernel on
// square sizes, one and two threads (figures for comparisons only:
// speed targets live in the reports).
func BenchmarkLowp(b *testing.B) {
	for _, typ := range []LowType{BF16, I8, U8S8} {
		for _, n := range []int{512, 1024} {
			for _, th := range []int{1, 2} {
				name, _ := LowpKernel(typ, isa.Best, isa.AllFeatures)
				b.Run(fmt.Sprintf("%v/%s/n=%d/threads=%d", typ, name, n, th), func(b *testing.B) {
					a16, b16 := make([]uint16, n*n), make([]uint16, n*n)
					a8, b8, au := make([]int8, n*n), make([]int8, n*n), make([]uint8, n*n)
					for i := range a16 {
						a16[i] = BF16Bits(float32(i%7) - 3)
						b16[i] = BF16Bits(float32(i%5) - 2)
						a8[i], b8[i], au[i] = int8(i%251-125), int8(i%13-6), uint8(i%255)
					}
					cf, ci := make([]float32, n*n), make([]int32, n*n)
					b.SetBytes(0)
					for b.Loop() {
						switch typ {
						case BF16:
							GemmBF16(isa.Best, isa.AllFeatures, false, false, n, n, n, a16, n, b16, n, cf, n, th)
						case I8:
							GemmI8(isa.Best, isa.AllFeatures, false, false, n, n, n, a8, n, b8, n, ci, n, th)
						default:
							GemmU8S8(isa.Best, isa.AllFeatures, false, false, n, n, n, au, n, b8, n, ci, n, th)
						}
					}
					b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkLowpMicro runs each candidate micro-kernel of bf16 and i8 that
// this CPU runs on panels in L1 (the measurement lowpKernelFor chooses
// by), in multiply-adds per nanosecond.
func BenchmarkLowpMicro(b *testing.B) {
	for _, typ := range []LowType{BF16, I8} {
		for _, c := range lowpCandidates(typ, isa.Best, isa.AllFeatures.For(isa.Best)) {
			b.Run(fmt.Sprintf("%v/%s", typ, c.name), func(b *testing.B) {
				run, work := lowpTimer(c)
				for b.Loop() {
					run()
				}
				b.ReportMetric(work*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			})
		}
	}
}
