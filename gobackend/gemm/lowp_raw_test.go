package gemm

import (
	"math/rand/v2"
	"testing"
)

// TestLowpRawA runs the kernels that read A as it is stored (AMX's
// stripRaw) on depths in whole chunks, where A is not packed: tiles down
// whole and partial panels of B, rows past the last whole tile (packed),
// padded leading dimensions, slices read raw beside a last one packed (k
// not in whole chunks), and several threads joining row blocks.
func TestLowpRawA(t *testing.T) {
	defer func(f int64) { joinFactor = f }(joinFactor)
	rnd := rand.New(rand.NewPCG(11, 12))
	tested := 0
	for _, typ := range []LowType{BF16, I8, U8S8} {
		for _, kern := range lowpKernels(typ) {
			if !lowpRawCapable(kern) {
				continue
			}
			tested++
			chunk := amxChunk * kern.s32Or32().fmtA.group()
			for _, blocks := range [][3]int{{0, 0, 0}, {64, 64, 64}} {
				withBlocks(blocks[0], blocks[1], blocks[2], 1, func() {
					for _, s := range [][3]int{{32, 32, chunk}, {64, 67, 2 * chunk}, {95, 96, 3 * chunk}, {70, 33, 2*chunk + 5}} {
						for th := 1; th <= 3; th++ {
							joinFactor = int64(2 - 3*(th%2)) // joining every row block, or as by default
							runLowpCase(t, lowpCase{typ: typ, kern: kern, transB: th == 2,
								m: s[0], n: s[1], k: s[2], pad: th - 1, threads: th}, rnd)
						}
					}
				})
			}
			// Past the default slice: several slices read raw.
			runLowpCase(t, lowpCase{typ: typ, kern: kern, m: 40, n: 40, k: 2*2048 + chunk, threads: 2}, rnd)
		}
	}
	if tested == 0 {
		t.Skip("no kernel reads A as it is stored on this CPU")
	}
}

// lowpRawCapable reports whether ch reads A unpacked where it can.
func lowpRawCapable(ch lowpChoice) bool {
	if ch.s32 != nil {
		return ch.s32.stripRaw != nil
	}
	return ch.f32.stripRaw != nil
}

// s32Or32 is the kernel of ch, for its formats (either output type).
func (ch lowpChoice) s32Or32() *lowpKernel[int32] {
	if ch.s32 != nil {
		return ch.s32
	}
	f := ch.f32
	return &lowpKernel[int32]{fmtA: f.fmtA, fmtB: f.fmtB, kAlign: f.kAlign}
}

// TestLowpRawAWhen checks when A is read as stored: whole chunks of a
// raw format, A not transposed.
func TestLowpRawAWhen(t *testing.T) {
	k := &lowpKernel[int32]{fmtA: wordQuad8, fmtB: wordQuad8, kAlign: amxChunk,
		stripRaw: func(int, int, []byte, int, []uint32, []int32, int, bool, []uint32) {}}
	w := &lowpNest[int8, int8, int32]{kern: k}
	if !w.rawA(64) || !w.rawA(128) || w.rawA(32) || w.rawA(65) {
		t.Errorf("i8: raw at 64, 128 and not at 32, 65: %v %v %v %v", w.rawA(64), w.rawA(128), w.rawA(32), w.rawA(65))
	}
	if w.transA = true; w.rawA(64) {
		t.Error("transposed A read as stored")
	}
	k.fmtA, k.fmtB = wordQuad8Biased, wordQuad8Biased
	if w.transA = false; w.rawA(64) {
		t.Error("a biased A read as stored")
	}
	k.stripRaw = nil
	k.fmtA = wordQuad8
	if w.rawA(64) {
		t.Error("a kernel without stripRaw reading A as stored")
	}
}
