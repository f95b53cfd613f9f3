//go:build !purego

package isa

// fmaLoop runs rounds rounds of the FMA loop of one width (isa_amd64.s).
func fmaLoop(zmm bool, rounds int) {
	if zmm {
		fmaLoopAVX512(rounds)
	} else {
		fmaLoopAVX2(rounds)
	}
}
