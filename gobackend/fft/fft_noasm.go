//go:build !amd64 || purego

package fft

import "github.com/peakbench/peakbench/gobackend/isa"

// No assembly on this platform or under the purego tag: every stage is Go.

const haveAsm = false

func transposeBlock[C Complex](isa.Level, int) int { return 0 }

func pairBlock[C Complex](isa.Level, stage[C]) int { return 0 }

func asmStage[C Complex](isa.Level, stage[C]) bool { return false }

func runAsm[C Complex](isa.Level, *stage[C], []C, []C, bool, int, int, int, int) {
	panic("fft: no assembly")
}

func fuseStages[C Complex](_ isa.Level, stages []stage[C], _ bool) []stage[C] { return stages }

func stagesKernel[C Complex](isa.Level, []stage[C]) string { return "go" }

func zmmComplex[C Complex]() int { return 1 }

func splitVec[R Real](_ isa.Level, _, _ []R, c0, _ int) int { return c0 }
