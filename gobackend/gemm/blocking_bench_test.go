package gemm

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// TestBlockingSweep compares block sizes of the best level's GEMM: the
// candidates of PB_BLOCKS ("kc/mc/nc,…"; 0/0/0 is the kernel's own) for
// each size of PB_SIZES (n for n³, or m×n×k as "64x3136x256": a 1×1
// convolution's filters times its input), thread count of PB_THREADS and
// type of PB_DTYPES, sampled round-robin in a random order (the machine
// is shared, so only an interleaved run compares). A candidate ending in
// /x runs the shared nest instead of the grid (grid.go), /p every product
// packed, /d unpacked where it can, /w the wide micro-kernel shape in the
// nest (tune.ShapeWide; its own block sizes at 0/0/0). It runs only when
// PB_BLOCKS is set:
//
//	PB_BLOCKS=0/0/0,256/252/8192,0/0/0/x PB_DTYPES=f64 PB_THREADS=2 go test -run BlockingSweep -v
func TestBlockingSweep(t *testing.T) {
	if os.Getenv("PB_BLOCKS") == "" {
		t.Skip("PB_BLOCKS not set")
	}
	rounds, _ := strconv.Atoi(envOr("PB_ROUNDS", "15"))
	for _, dt := range strings.Split(envOr("PB_DTYPES", "f32,f64"), ",") {
		for _, s := range strings.Split(envOr("PB_SIZES", "512,1024"), ",") {
			var m, n, k int
			if c, _ := fmt.Sscanf(s, "%dx%dx%d", &m, &n, &k); c != 3 {
				m, _ = strconv.Atoi(s)
				n, k = m, m
			}
			for _, th := range strings.Split(envOr("PB_THREADS", "1,2"), ",") {
				threads, _ := strconv.Atoi(th)
				if dt == "f32" {
					sweep[float32](t, m, n, k, threads, rounds)
				} else {
					sweep[float64](t, m, n, k, threads, rounds)
				}
			}
		}
	}
}

func sweep[T Float](t *testing.T, m, n, k, threads, rounds int) {
	blocks := strings.Split(os.Getenv("PB_BLOCKS"), ",")
	rnd := rand.New(rand.NewPCG(1, 1))
	a := numtest.New[T](m*k, rnd).Data
	b := numtest.New[T](k*n, rnd).Data
	c := numtest.New[T](m*n, rnd).Data
	calls := max(1, 20_000_000/(m*n*k/threads)) // ≈ 10 ms a sample
	times := make([][]float64, len(blocks))
	okc, omc, onc := blockKC, blockMC, blockNC
	defer func() { blockKC, blockMC, blockNC, gridOff = okc, omc, onc, false }()
	order := make([]int, len(blocks))
	for i := range order {
		order[i] = i
	}
	for r := 0; r < rounds+1; r++ {
		rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			fmt.Sscanf(blocks[i], "%d/%d/%d", &blockKC, &blockMC, &blockNC)
			gridOff = strings.HasSuffix(blocks[i], "/x")
			direct, shape := tune.Current().GEMM.Direct, tune.Current().GEMM.Shape
			switch {
			case strings.HasSuffix(blocks[i], "/w"): // the wide shape
				shape = tune.PerDType{F32: tune.ShapeWide, F64: tune.ShapeWide}
			case strings.HasSuffix(blocks[i], "/p"): // packed
				direct = tune.PerDType{}
			case strings.HasSuffix(blocks[i], "/d"): // direct
				direct = tune.PerDType{F32: tune.MaxPieceBytes, F64: tune.MaxPieceBytes}
			}
			var start time.Time
			withGEMMTune(func(g *tune.GEMM) { g.Direct, g.Shape = direct, shape }, func() {
				start = time.Now()
				for range calls {
					Gemm(isa.Best, false, false, m, n, k, 1, a, k, b, n, 0, c, n, threads)
				}
			})
			if r > 0 { // the first round warms up
				times[i] = append(times[i], time.Since(start).Seconds()/float64(calls))
			}
		}
	}
	var z T
	for i, ts := range times {
		slices.Sort(ts)
		gf := func(s float64) float64 { return 2 * float64(m) * float64(n) * float64(k) / s / 1e9 }
		t.Logf("%s %dx%dx%d t=%d %-16s median %6.1f best %6.1f GFLOP/s", dtypeChar(z), m, n, k, threads, blocks[i], gf(ts[len(ts)/2]), gf(ts[0]))
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// BenchmarkMicroKernelKC runs the best level's micro-kernels at several
// depths: at kc the B micro-panel is kc·nr elements, in L1 or not.
func BenchmarkMicroKernelKC(b *testing.B) {
	for _, kc := range []int{128, 192, 256, 384, 512} {
		okc, omc, onc := blockKC, blockMC, blockNC
		blockKC, blockMC, blockNC = kc, 256, 4096
		b.Run(fmt.Sprintf("f32/kc=%d", kc), func(b *testing.B) { benchMicro[float32](b, isa.Best) })
		b.Run(fmt.Sprintf("f64/kc=%d", kc), func(b *testing.B) { benchMicro[float64](b, isa.Best) })
		blockKC, blockMC, blockNC = okc, omc, onc
	}
}
