package gemm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLowpColumnSplit runs the 8-bit kernels that read A as it is stored
// on products the column split takes (lowp_split.go): C's columns in whole
// and partial panels, two and three threads, B transposed or not, padded
// leading dimensions, several depth slices. The results must be right and
// the same, bit for bit, as those of the shared nest.
func TestLowpColumnSplit(t *testing.T) {
	defer func(off bool) { lowpSplitOff = off }(lowpSplitOff)
	rnd := rand.New(rand.NewPCG(13, 14))
	tested := 0
	for _, typ := range []LowType{I8, U8S8} {
		for _, kern := range lowpKernels(typ) {
			if !lowpRawCapable(kern) {
				continue
			}
			tested++
			chunk := amxChunk * kern.s32Or32().fmtA.group()
			for _, s := range [][3]int{{70, 200, 2 * chunk}, {33, 6 * 32, chunk}, {96, 6*32 + 3, 2*2048 + chunk}} {
				for th := 2; th <= 3; th++ {
					lowpSplitOff = false
					c := lowpSplitCase(t, typ, kern, s[0], s[1], s[2], th, th == 3)
					runLowpCase(t, lowpCase{typ: typ, kern: kern, transB: th == 3, m: s[0], n: s[1], k: s[2], pad: th - 2, threads: th}, rnd)
					lowpSplitOff = true
					if shared := lowpSplitCase(t, typ, kern, s[0], s[1], s[2], th, th == 3); !slices.Equal(c, shared) {
						t.Errorf("%v %s %v threads=%d: split and shared nest differ", typ, kern.name, s, th)
					}
				}
			}
		}
	}
	if tested == 0 {
		t.Skip("no kernel reads A as it is stored on this CPU")
	}
}

// lowpSplitCase computes one 8-bit product of random operands (seeded, so
// that the same call repeats it) and returns C, after checking that the
// column split takes it (i8) unless lowpSplitOff.
func lowpSplitCase(t *testing.T, typ LowType, ch lowpChoice, m, n, k, threads int, transB bool) []int32 {
	t.Helper()
	rnd := rand.New(rand.NewPCG(uint64(m), uint64(n*k)))
	b := make([]int8, k*n)
	for i := range b {
		b[i] = int8(rnd.IntN(256) - 128)
	}
	ldb := n
	if transB {
		ldb = k
	}
	c := make([]int32, m*n)
	if typ == I8 {
		a := make([]int8, m*k)
		for i := range a {
			a[i] = int8(rnd.IntN(256) - 128)
		}
		if tc := lowpColumnBlocks[int8](ch.s32, false, n, k, threads); tc != threads && !lowpSplitOff {
			t.Fatalf("%s %dx%dx%d: %d column blocks, want %d", ch.name, m, n, k, tc, threads)
		}
		gemmLowp(ch, false, transB, m, n, k, a, k, b, ldb, c, n, threads)
	} else {
		a := make([]uint8, m*k)
		for i := range a {
			a[i] = uint8(rnd.IntN(256))
		}
		gemmLowp(ch, false, transB, m, n, k, a, k, b, ldb, c, n, threads)
	}
	return c
}

// TestLowpColumnBlocksWhen checks when the column split runs: several
// threads, A read raw in every slice, at least minItemsPerThread panels of
// columns per thread.
func TestLowpColumnBlocksWhen(t *testing.T) {
	defer func(off bool) { lowpSplitOff = off }(lowpSplitOff)
	lowpSplitOff = false
	k := &lowpKernel[int32]{nr: 32, fmtA: wordQuad8, fmtB: wordQuad8, kAlign: amxChunk,
		stripRaw: func(int, int, []byte, int, []uint32, []int32, int, bool, []uint32) {}}
	for _, c := range []struct {
		transA   bool
		n, k, th int
		want     int
	}{
		{false, 128, 64, 2, 2},
		{false, 1024, 1024, 3, 3},
		{false, 96, 64, 2, 1},  // 3 panels: fewer than 2 each
		{false, 128, 65, 2, 1}, // the depth not in whole chunks
		{true, 128, 64, 2, 1},  // A transposed: packed
		{false, 1024, 64, 1, 1},
	} {
		if got := lowpColumnBlocks[int8](k, c.transA, c.n, c.k, c.th); got != c.want {
			t.Errorf("transA=%v n=%d k=%d threads=%d: %d blocks, want %d", c.transA, c.n, c.k, c.th, got, c.want)
		}
	}
	k16 := &lowpKernel[float32]{nr: 32, fmtA: wordPair16, fmtB: wordPair16, kAlign: amxChunk,
		stripRaw: func(int, int, []byte, int, []uint32, []float32, int, bool, []uint32) {}}
	if got := lowpColumnBlocks[uint16](k16, false, 1024, 64, 2); got != 1 {
		t.Errorf("bf16: %d blocks, want 1", got)
	}
	k.fmtA = wordQuad8Biased
	if got := lowpColumnBlocks[int8](k, false, 1024, 64, 2); got != 1 {
		t.Errorf("biased A: %d blocks, want 1", got)
	}
}
