package elem

import (
	"fmt"
	"testing"
	"time"
	_ "unsafe" // for go:linkname

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// BenchmarkAxpyHandoff splits what a 2-thread axpy costs over its phases:
// from the call to the caller's first piece (job and dispatch), to the
// worker's first piece (its wake-up), each thread's own pieces, and from the
// last piece's end to For's return (the caller's wait). Pieces are cut as
// axpySplit cuts them; "1thread" times one thread's half alone, the floor
// each half of the split could reach. gap=0 calls back to back, as a timed
// sample does; gap>0 sleeps between calls, so the worker parks.
func BenchmarkAxpyHandoff(b *testing.B) {
	k := implFor(isa.Best)
	pc := cheapPiece[float32](tune.Current())
	for _, n := range []int{64 << 10, 256 << 10, 1 << 20} {
		x, y := make([]float32, n), make([]float32, n)
		b.Run(fmt.Sprintf("n=%d/1thread", n/2), func(b *testing.B) {
			for b.Loop() {
				axpy(k, 0.5, x[:n/2], y[:n/2])
			}
		})
		for _, gap := range []time.Duration{0, 200 * time.Microsecond} {
			b.Run(fmt.Sprintf("n=%d/gap=%v", n, gap), func(b *testing.B) {
				parts, _ := num.Chunks(n, 2, align, pc)
				start, end := make([]int64, parts), make([]int64, parts)
				var launch, workerLag, callerWork, workerWork, tail, total float64
				calls := 0
				for b.Loop() {
					if gap > 0 {
						b.StopTimer()
						time.Sleep(gap)
						b.StartTimer()
					}
					t0 := nanotime()
					num.For(n, 2, align, pc, func(p, lo, hi int) {
						start[p] = nanotime()
						axpy(k, 0.5, x[lo:hi], y[lo:hi])
						end[p] = nanotime()
					})
					t1 := nanotime()
					// The caller owns the first half of the pieces, the worker
					// the second (num.job.work), unless one took the other's.
					h := parts / 2
					last := max(end[h-1], end[parts-1])
					launch += float64(start[0] - t0)
					workerLag += float64(start[h] - t0)
					callerWork += float64(end[h-1] - start[0])
					workerWork += float64(end[parts-1] - start[h])
					tail += float64(t1 - last)
					total += float64(t1 - t0)
					calls++
				}
				c := float64(calls)
				b.ReportMetric(float64(parts), "pieces")
				b.ReportMetric(launch/c, "launch-ns")
				b.ReportMetric(workerLag/c, "worker-start-ns")
				b.ReportMetric(callerWork/c, "caller-work-ns")
				b.ReportMetric(workerWork/c, "worker-work-ns")
				b.ReportMetric(tail/c, "tail-ns")
				b.ReportMetric(total/c, "call-ns")
			})
		}
	}
}
