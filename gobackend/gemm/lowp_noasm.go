//go:build !amd64 || purego

package gemm

import "github.com/peakbench/peakbench/gobackend/isa"

// asmLowpCandidates: no assembly on this platform or under the purego tag.
func asmLowpCandidates(LowType, isa.Level, isa.Feature) []lowpChoice { return nil }

// packStepsVec: no assembly; packLines packs every line.
func packStepsVec[S lowpIn](src []S, ld, steps int, dst []uint32, w, lines int, f wordFormat) int {
	return 0
}

// biasCorrectionAsm: no assembly; biasCorrection sums in Go.
func biasCorrectionAsm(panel []uint32, nr, kg int, init []int32) bool { return false }

// packRowsVec: no assembly; packLines packs every word.
func packRowsVec[S lowpIn](src []S, ld, lines, w, words int, dst []uint32, f wordFormat) int {
	return 0
}

// widenRowsVec: no assembly; packLines widens every value.
func widenRowsVec[S lowpIn](src []S, ld, lines, w, kb int, dst []uint32, f wordFormat) int { return 0 }

// widenStepsVec: no assembly; packLines widens every value.
func widenStepsVec[S lowpIn](src []S, ld, kb int, dst []uint32, w, lines int, f wordFormat) int {
	return 0
}
