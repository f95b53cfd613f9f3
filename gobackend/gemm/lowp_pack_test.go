package gemm

import (
	"fmt"
	"slices"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// TestPackLinesVec checks that packing with the AVX-512 packers
// (packStepsVec) gives the words of the scalar code, for every raw
// format, on widths with and without a partial group of 16 lines and
// depths with and without a partial word.
func TestPackLinesVec(t *testing.T) {
	if isa.Best < isa.AVX512 {
		t.Skip("the AVX-512 packers need AVX-512")
	}
	for _, lines := range []int{1, 15, 16, 17, 32, 33, 40} {
		for _, kb := range []int{1, 3, 4, 8, 37, 64} {
			const ld = 71
			a16 := make([]uint16, kb*ld)
			a8 := make([]int8, kb*ld)
			for i := range a16 {
				a16[i] = uint16(i*40503 + 7)
				a8[i] = int8(i*97 + 3)
			}
			for _, f := range []wordFormat{wordPair16, wordQuad8, wordQuad8Biased} {
				t.Run(fmt.Sprintf("f=%d/lines=%d/kb=%d", f, lines, kb), func(t *testing.T) {
					w := roundUp(lines, 16)
					kg := roundUp(ceilDiv(kb, f.group()), 16)
					want, got := make([]uint32, kg*w), make([]uint32, kg*w)
					for i := range got {
						want[i], got[i] = 0xdeadbeef, 0xdeadbeef // every word must be written
					}
					if f == wordPair16 {
						packLines(a16, ld, false, lines, w, kb, kg, f, false, want)
						packLines(a16, ld, false, lines, w, kb, kg, f, true, got)
					} else {
						packLines(a8, ld, false, lines, w, kb, kg, f, false, want)
						packLines(a8, ld, false, lines, w, kb, kg, f, true, got)
					}
					if i := slices.Compare(want, got); i != 0 {
						for i := range want {
							if want[i] != got[i] {
								t.Fatalf("word %d (step %d, line %d): %#x, want %#x", i, i/w, i%w, got[i], want[i])
							}
						}
					}
				})
			}
		}
	}
}
