//go:build !amd64 || purego

package gemm

import "github.com/peakbench/peakbench/gobackend/isa"

// asmLowpCandidates: no assembly on this platform or under the purego tag.
func asmLowpCandidates(LowType, isa.Level, isa.Feature) []lowpChoice { return nil }
