package gemm_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/peakbench/peakbench/cgo/onednn"
	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// BenchmarkLowpAfter times the first calls of a 1024³ i8 gemm (ours on
// AMX, or oneDNN's) right after 20 ms of other work, as a measurement
// that alternates libraries takes its samples, and later calls: metrics
// call0-µs, call1-µs and steady-µs (the median of calls 4–11), per
// preceding work. It is how the loss of the asm gemm's samples beside
// oneDNN's was traced (docs/architecture.md, low-precision GEMM); figures
// for comparisons only.
func BenchmarkLowpAfter(b *testing.B) {
	const n = 1024
	rng := rand.New(rand.NewPCG(1, 2))
	a8, b8, c32 := make([]int8, n*n), make([]int8, n*n), make([]int32, n*n)
	af, bf := make([]float64, n*n), make([]float64, n*n)
	for i := range a8 {
		a8[i], b8[i] = int8(rng.IntN(256)-128), int8(rng.IntN(256)-128)
		af[i], bf[i] = float64(a8[i]), float64(b8[i])
	}
	lib, err := onednn.Open()
	if err != nil {
		b.Skip(err)
	}
	defer lib.Close()
	f32 := make([]float32, 3*512*512)
	thrash := make([]byte, 1<<30) // past every cache level: the operands and pooled buffers go cold
	for _, threads := range []int{1, 2} {
		job, err := lib.PrepareGEMM(onednn.GEMMS8S8, false, false, n, n, n, onednn.JobOptions{Threads: threads})
		if err != nil {
			b.Skip(err)
		}
		if job.SetInput(0, af) != nil || job.SetInput(1, bf) != nil {
			b.Fatal("onednn: inputs")
		}
		targets := map[string]func(){
			"asm": func() { gemm.GemmI8(isa.Best, isa.AllFeatures, false, false, n, n, n, a8, n, b8, n, c32, n, threads) },
			"onednn": func() {
				if _, err := job.Run(1); err != nil {
					b.Fatal(err)
				}
			},
		}
		for20ms := func(f func()) func() {
			return func() {
				for start := time.Now(); time.Since(start) < 20*time.Millisecond; {
					f()
				}
			}
		}
		before := map[string]func(){
			"idle":   func() {},
			"asm":    for20ms(targets["asm"]),
			"onednn": for20ms(targets["onednn"]),
			"sgemm": for20ms(func() {
				gemm.Gemm(isa.Best, false, false, 512, 512, 512, 1, f32, 512, f32[512*512:], 512, 0, f32[2*512*512:], 512, threads)
			}),
			"thrash": func() {
				for i := 0; i < len(thrash); i += 64 {
					thrash[i]++
				}
			},
		}
		for _, tn := range []string{"asm", "onednn"} {
			for _, bn := range []string{"idle", "asm", "onednn", "sgemm", "thrash"} {
				b.Run(fmt.Sprintf("%s/after=%s/threads=%d", tn, bn, threads), func(b *testing.B) {
					target := targets[tn]
					target()
					var call0, call1, steady []float64
					for b.Loop() {
						before[bn]()
						time.Sleep(2 * time.Millisecond) // the measurement's pause between libraries
						for i := 0; i < 12; i++ {
							start := time.Now()
							target()
							us := float64(time.Since(start).Nanoseconds()) / 1e3
							switch {
							case i == 0:
								call0 = append(call0, us)
							case i == 1:
								call1 = append(call1, us)
							case i >= 4:
								steady = append(steady, us)
							}
						}
					}
					b.ReportMetric(median(call0), "call0-µs")
					b.ReportMetric(median(call1), "call1-µs")
					b.ReportMetric(median(steady), "steady-µs")
				})
			}
		}
		job.Close()
	}
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
