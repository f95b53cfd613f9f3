//go:build !amd64 || purego

package gemm

import "github.com/peakbench/peakbench/gobackend/isa"

// asmLowpCandidates: no assembly on this platform or under the purego tag.
func asmLowpCandidates(LowType, isa.Level, isa.Feature) []lowpChoice { return nil }

// packStepsVec: no assembly; packLines packs every line.
func packStepsVec[S lowpIn](src []S, ld, steps int, dst []uint32, w, lines int, f wordFormat) int {
	return 0
}
