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
			for _, f := range []wordFormat{wordPair16, wordQuad8, wordQuad8Biased, wordBF16ToF32, wordF16ToF32} {
				t.Run(fmt.Sprintf("f=%d/lines=%d/kb=%d", f, lines, kb), func(t *testing.T) {
					w := roundUp(lines, 16)
					kg := roundUp(ceilDiv(kb, f.group()), 16)
					want, got := make([]uint32, kg*w), make([]uint32, kg*w)
					for i := range got {
						want[i], got[i] = 0xdeadbeef, 0xdeadbeef // every word must be written
					}
					if f == wordQuad8 || f == wordQuad8Biased {
						packLines(a8, ld, false, lines, w, kb, kg, f, false, want)
						packLines(a8, ld, false, lines, w, kb, kg, f, true, got)
					} else {
						packLines(a16, ld, false, lines, w, kb, kg, f, false, want)
						packLines(a16, ld, false, lines, w, kb, kg, f, true, got)
					}
					if i := slices.Compare(want, got); i != 0 {
						for i := range want {
							if !samePacked(f, want[i], got[i]) {
								t.Fatalf("word %d (step %d, line %d): %#x, want %#x", i, i/w, i%w, got[i], want[i])
							}
						}
					}
				})
			}
		}
	}
}

// TestBiasCorrectionAsm checks the assembly column sums of i8's bias
// correction (biasCorrectionAsm) against the Go ones, word for word, on
// panels of 16 and 32 columns: varied bytes, and the extremes (every byte
// −128 or 127, over depths whose sums need all of int32's 24 high bits).
func TestBiasCorrectionAsm(t *testing.T) {
	if isa.Best < isa.AVX2 {
		t.Skip("the assembly needs AVX2")
	}
	for _, nr := range []int{16, 32} {
		for _, kg := range []int{1, 2, 3, 7, 64, 513, 4099} {
			for _, fill := range []string{"varied", "min", "max"} {
				t.Run(fmt.Sprintf("nr=%d/kg=%d/%s", nr, kg, fill), func(t *testing.T) {
					panel := make([]uint32, nr*kg)
					for i := range panel {
						switch fill {
						case "min":
							panel[i] = 0x80808080
						case "max":
							panel[i] = 0x7f7f7f7f
						default:
							panel[i] = uint32(i)*2654435761 + 12345
						}
					}
					want := make([]int32, nr)
					biasCorrectionGo(panel, nr, kg, want)
					got := make([]int32, nr)
					for j := range got {
						got[j] = 0x5a5a5a5a
					}
					if !biasCorrectionAsm(panel, nr, kg, got) {
						t.Fatal("biasCorrectionAsm did nothing")
					}
					if !slices.Equal(got, want) {
						t.Fatalf("got %v, want %v", got, want)
					}
				})
			}
		}
	}
	if biasCorrectionAsm(make([]uint32, 24*4), 24, 4, make([]int32, 24)) {
		t.Error("biasCorrectionAsm ran on 24 columns")
	}
}

// TestPackRowsVec checks packing lines whose k values are contiguous (A
// not transposed) with the AVX-512 transpose (packRowsVec, widenRowsVec)
// against the scalar code, word for word, for every raw format and the
// widenings of bf16 and f16 (every bit pattern turns up): panels of 14, 16,
// 32 and 37 words (B transposed: groups of 16 lines), every count of
// lines, depths below, at and past whole blocks of 16 words, with and
// without a partial word.
func TestPackRowsVec(t *testing.T) {
	if isa.Best < isa.AVX512 {
		t.Skip("the AVX-512 packers need AVX-512")
	}
	for _, w := range []int{14, 16, 32, 37} {
		for lines := 1; lines <= w; lines++ {
			for _, kb := range []int{1, 15, 63, 64, 65, 130, 257} {
				const ld = 301
				a16 := make([]uint16, w*ld)
				a8 := make([]int8, w*ld)
				for i := range a16 {
					a16[i] = uint16(i*40503 + 7)
					a8[i] = int8(i*97 + 3)
				}
				for _, f := range []wordFormat{wordPair16, wordQuad8, wordQuad8Biased, wordBF16ToF32, wordF16ToF32} {
					kg := ceilDiv(kb, f.group()) + 3 // steps past kb: zeros
					want, got := make([]uint32, kg*w), make([]uint32, kg*w)
					for i := range got {
						want[i], got[i] = 0xdeadbeef, 0xdeadbeef // every word must be written
					}
					if f == wordQuad8 || f == wordQuad8Biased {
						packLines(a8, ld, true, lines, w, kb, kg, f, false, want)
						packLines(a8, ld, true, lines, w, kb, kg, f, true, got)
					} else {
						packLines(a16, ld, true, lines, w, kb, kg, f, false, want)
						packLines(a16, ld, true, lines, w, kb, kg, f, true, got)
					}
					for i := range want {
						if !samePacked(f, want[i], got[i]) {
							t.Fatalf("w=%d lines=%d kb=%d f=%d: word %d (step %d, line %d): %#x, want %#x",
								w, lines, kb, f, i, i/w, i%w, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// samePacked reports whether the AVX-512 packers' word got matches the Go
// code's want: the same bits, but for an f16 signalling NaN, which
// VCVTPH2PS widens to the quiet NaN of the same payload.
func samePacked(f wordFormat, want, got uint32) bool {
	if want == got {
		return true
	}
	snan := want&0x7f800000 == 0x7f800000 && want&0x7fffff != 0 && want&0x400000 == 0
	return f == wordF16ToF32 && snan && got == want|0x400000
}
