//go:build !amd64 || purego

package gemm

import "github.com/peakbench/peakbench/gobackend/isa"

// asmLowpKernel: no assembly on this platform or under the purego tag.
func asmLowpKernel(LowType, isa.Level, isa.Feature) (lowpChoice, bool) { return lowpChoice{}, false }
