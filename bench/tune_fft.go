package main

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/gobackend/fft"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// The FFT's searches (tune.FFT): fft.share.* times a forward complex
// transform (complex64 for f32, complex128 for f64) at 1 thread against N
// with its stages shared at every length (the parameter at 0), over a
// ladder of lengths in bytes of input and output: 256 KiB, inside a
// core's L2, to 32 MiB, past what a process of a few cores gets of a last-
// level cache. The value stored is the size from which N threads are
// winMargin faster and no larger size is slower (crossoverBytes: twice the
// ladder's top when they never are).
var fftTuneLadder = ladder(256<<10, 32<<20)

func fftSearches() []tuneSearch {
	s := []tuneSearch{
		fftShareSearch[complex64]("fft.share.f32", fftTuneLadder),
		fftShareSearch[complex128]("fft.share.f64", fftTuneLadder),
	}
	if isa.Best >= isa.AVX512 { // the pair kernel is AVX-512's
		s = append(s, fftPairSearch(fftPairLadder()))
	}
	return s
}

// fftPairLadder is fft.pair's ladder, in bytes of a complex64 transform's
// input and output: 256 points (4 KiB) to the L1 data cache, where the pair
// kernel's table, four times the broadcast one, starts to cost more than it
// saves (gobackend/fft: pairFits).
func fftPairLadder() []int { return ladder(4<<10, max(isa.Caches().L1, 16<<10)) }

// fftTuneOp is the transform of the first bytes/2 of x into y, on buffers
// of top bytes together and plans per length, thread count and fft.pair
// (which a plan reads when made), made at their first run.
func fftTuneOp[C fft.Complex](top int) tuneOp {
	var x, y []C
	type key struct{ n, threads, pair int }
	plans := map[key]*fft.Plan[C]{}
	var z C
	size := int(unsafe.Sizeof(z))
	return tuneOp{fmt.Sprintf("fft.c%d", 8*size), func(bytes, th int) {
		if x == nil {
			x, y = make([]C, top/(2*size)), make([]C, top/(2*size))
			for i := range x {
				x[i] = C(complex(float64(i%7)-3, float64(i%5)-2))
			}
		}
		k := key{bytes / (2 * size), th, tune.Current().FFT.Pair}
		p := plans[k]
		if p == nil {
			p = fft.NewPlan[C](isa.Best, k.n, false, th)
			plans[k] = p
		}
		p.Transform(y[:k.n], x[:k.n])
	}}
}

func fftShareSearch[C fft.Complex](field string, ladder []int) tuneSearch {
	op := fftTuneOp[C](ladder[len(ladder)-1])
	var c customSearch
	c.search = func(ctx context.Context, base tune.Params, threads int, maxTime time.Duration) ([]tune.Step, int, error) {
		shared := base
		setField(&shared, field, 0)
		steps, err := timePairs(ctx, op, ladder, func(int) [2]tuneTarget {
			return [2]tuneTarget{{op: op, threads: 1, params: base}, {op: op, threads: threads, params: shared}}
		}, maxTime)
		if steps == nil {
			return nil, 0, err
		}
		return steps, crossoverBytes(steps), nil
	}
	c.describe = func(steps []tune.Step, v, threads int) string {
		return fmt.Sprintf("%d threads over 1: %s→ shared from %s in and out", threads, ladderText(steps, units.Bytes), units.Bytes(v))
	}
	customSearches[field] = c
	return tuneSearch{field: field, ops: []tuneOp{op}, ladder: ladder}
}

// fftPairSearch: fft.pair times a forward complex64 transform at each
// length of the ladder, its stride-4 stage run by the pair kernel (the
// parameter at the top) against its first two stages fused (0), one thread
// (below gobackend/fft's least shared length), as limitSearch does. The
// value stored is the largest length before the smallest from which the
// fused pass is winMargin faster and no longer one slower (directLimit: 0
// when that is the first, the top when it never is).
func fftPairSearch(ladder []int) tuneSearch {
	const field = "fft.pair"
	top := ladder[len(ladder)-1]
	op := fftTuneOp[complex64](top)
	var c customSearch
	c.search = limitSearch(field, op, ladder, top)
	c.describe = func(steps []tune.Step, v, _ int) string {
		to := "fused from the shortest"
		if v > 0 {
			to = "pairs up to " + units.Bytes(v) + " in and out"
		}
		return fmt.Sprintf("first two stages fused over the pair kernel (1 thread): %s→ %s", ladderText(steps, units.Bytes), to)
	}
	customSearches[field] = c
	return tuneSearch{field: field, ops: []tuneOp{op}, ladder: ladder}
}
