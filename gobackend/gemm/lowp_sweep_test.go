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

	"github.com/peakbench/peakbench/gobackend/isa"
)

// TestLowpSweep compares variants of the low-precision GEMM: the
// candidates of PB_LOWP ("kc/mc/nc,…" in k values, rows and columns;
// 0/0/0 is the kernel's own; a suffix /x runs the shared nest instead of
// the column split, lowp_split.go) for each type of PB_DTYPES (bf16, i8),
// size of PB_SIZES and thread count of PB_THREADS, sampled round-robin in
// a random order (the machine is shared, so only an interleaved run
// compares). Operands are small repeating values, or uniformly random
// ones with PB_RANDOM set (the tile units' speed may depend on the bits
// they multiply). It runs only when PB_LOWP is set:
//
//	PB_LOWP=0/0/0,0/0/0/x PB_DTYPES=i8,bf16 PB_THREADS=2 go test -run LowpSweep -v
func TestLowpSweep(t *testing.T) {
	if os.Getenv("PB_LOWP") == "" {
		t.Skip("PB_LOWP not set")
	}
	rounds, _ := strconv.Atoi(envOr("PB_ROUNDS", "15"))
	for _, dt := range strings.Split(envOr("PB_DTYPES", "i8,bf16"), ",") {
		for _, s := range strings.Split(envOr("PB_SIZES", "1024,2048"), ",") {
			n, _ := strconv.Atoi(s)
			for _, th := range strings.Split(envOr("PB_THREADS", "1,2"), ",") {
				threads, _ := strconv.Atoi(th)
				lowpSweep(t, dt, n, threads, rounds)
			}
		}
	}
}

func lowpSweep(t *testing.T, dt string, n, threads, rounds int) {
	variants := strings.Split(os.Getenv("PB_LOWP"), ",")
	a16, b16 := make([]uint16, n*n), make([]uint16, n*n)
	a8, b8 := make([]int8, n*n), make([]int8, n*n)
	rnd := rand.New(rand.NewPCG(1, 2))
	random := os.Getenv("PB_RANDOM") != ""
	for i := range a16 {
		a16[i], b16[i] = BF16Bits(float32(i%7)-3), BF16Bits(float32(i%5)-2)
		a8[i], b8[i] = int8(i%251-125), int8(i%13-6)
		if random {
			a16[i], b16[i] = BF16Bits(float32(2*rnd.Float64()-1)), BF16Bits(float32(2*rnd.Float64()-1))
			a8[i], b8[i] = int8(rnd.IntN(256)-128), int8(rnd.IntN(256)-128)
		}
	}
	cf, ci := make([]float32, n*n), make([]int32, n*n)
	run := func() {
		if dt == "bf16" {
			GemmBF16(isa.Best, isa.AllFeatures, false, false, n, n, n, a16, n, b16, n, cf, n, threads)
		} else {
			GemmI8(isa.Best, isa.AllFeatures, false, false, n, n, n, a8, n, b8, n, ci, n, threads)
		}
	}
	calls := max(1, 40_000_000/(n*n*n/threads/64)) // ≈ 10 ms a sample at a few TOP/s
	times := make([][]float64, len(variants))
	okc, omc, onc := blockKC, blockMC, blockNC
	defer func() { blockKC, blockMC, blockNC, lowpSplitOff = okc, omc, onc, false }()
	order := make([]int, len(variants))
	for i := range order {
		order[i] = i
	}
	for r := 0; r < rounds+1; r++ {
		for i := range order { // a rotation each round: every order of neighbours
			order[i] = (i + r) % len(variants)
		}
		for _, i := range order {
			fmt.Sscanf(variants[i], "%d/%d/%d", &blockKC, &blockMC, &blockNC)
			lowpSplitOff = strings.HasSuffix(variants[i], "/x")
			start := time.Now()
			for range calls {
				run()
			}
			if r > 0 { // the first round warms up
				times[i] = append(times[i], time.Since(start).Seconds()/float64(calls))
			}
		}
	}
	for i, ts := range times {
		slices.Sort(ts)
		gop := func(s float64) float64 { return 2 * float64(n) * float64(n) * float64(n) / s / 1e9 }
		t.Logf("%s n=%d t=%d %-16s median %6.0f best %6.0f GOP/s", dt, n, threads, variants[i], gop(ts[len(ts)/2]), gop(ts[0]))
	}
}
