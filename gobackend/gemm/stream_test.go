package gemm

import (
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// withStreamChunk runs f with streamChunkPanels set to panels.
func withStreamChunk(panels int, f func()) {
	old := streamChunkPanels
	streamChunkPanels = panels
	defer func() { streamChunkPanels = old }()
	f()
}

// testStream checks the streaming path against the float64 reference on
// every m from 1 to 40 and 64, 96, 128, 255, 256, with column counts that leave a
// partial chunk and a partial panel, depths of one and several kc slices,
// every transpose, alpha and beta (NaN in C under beta = 0) and 1–3
// threads, at every level with an assembly kernel.
func testStream[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var ms []int
	for m := 1; m <= 40; m++ {
		ms = append(ms, m)
	}
	ms = append(ms, 64, 96, 128, 255, 256)
	ks := []int{1, 2, 17, 40}
	const chunk = 2
	withStreamChunk(chunk, func() {
		// kc = 16: k = 17 and 40 take two and three depth slices.
		withBlocks(16, 32, 64, 0, func() {
			withGEMMTune(func(g *tune.GEMM) { g.Direct = tune.PerDType{} }, func() {
				for _, lvl := range isa.Levels() {
					kern := kernelFor[T](lvl)
					nr := kern.nr
					// Two whole chunks; then a partial panel; then a
					// partial chunk and panel.
					ns := []int{2 * chunk * nr, 2*chunk*nr + 1, 3*chunk*nr - nr/2 - 1}
					i := 0
					for _, m := range ms {
						if short() && m > 8 && m%5 != 0 {
							continue
						}
						for v := 0; v < 3; v++ {
							i++
							n, k := ns[(i+v)%len(ns)], ks[(i+2*v)%len(ks)]
							if got := useStream(&kern, lvl, m, n); got != (lvl.Clamp() != isa.Generic) {
								t.Fatalf("%s: useStream(m=%d, n=%d) = %v", kern.name, m, n, got)
							}
							tr := i % 4
							ab := alphaBetas[i%len(alphaBetas)]
							if ab[0] == 0 { // alpha = 0 never reaches the path
								ab[0] = 1.5
							}
							runGemmCase[T](t, gemmCase{
								lvl: lvl, transA: tr&1 != 0, transB: tr&2 != 0,
								m: m, n: n, k: k, alpha: ab[0], beta: ab[1],
								padA: i % 3, padB: i % 2 * 5, padC: i % 4,
								threads: 1 + i%3,
								nanC:    ab[1] == 0,
							}, rnd)
						}
					}
				}
			})
		})
	})
}

func TestStreamF32(t *testing.T) { testStream[float32](t) }
func TestStreamF64(t *testing.T) { testStream[float64](t) }

// TestStreamChoice checks the rule: few rows and enough columns, never the
// pure-Go kernel.
func TestStreamChoice(t *testing.T) {
	kern := kernelFor[float32](isa.Best)
	n := 2 * streamChunkPanels * kern.nr
	if isa.Best != isa.Generic {
		if !useStream(&kern, isa.Best, streamMaxRows, n) {
			t.Errorf("m = %d, n = %d: not streamed", streamMaxRows, n)
		}
		if useStream(&kern, isa.Best, streamMaxRows+1, n) {
			t.Errorf("m = %d: streamed", streamMaxRows+1)
		}
		if useStream(&kern, isa.Best, 16, n-1) {
			t.Errorf("n = %d: streamed", n-1)
		}
	}
	// Every level with assembly has a kernel for each remainder height.
	for _, lvl := range isa.Levels() {
		k32, k64 := kernelFor[float32](lvl), kernelFor[float64](lvl)
		if lvl.Clamp() == isa.Generic {
			continue
		}
		for r := 1; r < k32.mr; r++ {
			if rowsKernel[float32](lvl, r, k32.nr) == nil {
				t.Errorf("%s: no %d-row kernel", k32.name, r)
			}
		}
		for r := 1; r < k64.mr; r++ {
			if rowsKernel[float64](lvl, r, k64.nr) == nil {
				t.Errorf("%s: no %d-row kernel", k64.name, r)
			}
		}
	}
	gen := kernelFor[float32](isa.Generic)
	if useStream(&gen, isa.Generic, 16, 1<<20) {
		t.Error("the pure-Go kernel streamed")
	}
}
