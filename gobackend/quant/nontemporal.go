package quant

import (
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// Quantize and dequantize store their output non-temporally from a size
// on: the tune parameters nontemporal.quantize and nontemporal.dequantize,
// the bytes a call moves (input and output), which `-tune` measures and
// which default to half the last-level cache, bounded per CPU
// (tune.DefaultNonTemporalBytes). Past the cache an output leaves it before
// anything reads it again, and an ordinary store first reads the line it
// writes (read for ownership): dequantize, which writes 4 bytes per byte
// read, then moves 9 bytes per element for the 5 it needs, and ran at
// 11 GB/s against 27 with non-temporal stores over 320 MiB on the 2-vCPU
// Intel VM of docs/architecture.md ("Quantization"). Below it an output
// left in the cache is the faster one for its next reader.

// quantizeNT and dequantizeNT say whether a call moving bytes stores past
// the caches.
func quantizeNT(bytes int) bool { return bytes >= tune.Current().NonTemporal.Quantize }

func dequantizeNT(bytes int) bool { return bytes >= tune.Current().NonTemporal.Dequantize }

// QuantizeStoresNonTemporal reports whether Quantize or QuantizeRows of n
// elements at lvl stores its output non-temporally: what a benchmark's
// ceiling must know, since such stores skip the read for ownership that
// the machine's ordinary-store bandwidths pay (peak.PatternCopyNT).
func QuantizeStoresNonTemporal(lvl isa.Level, n int) bool {
	return quantizeNT(5*n) && implFor(lvl, 5*n) != implGeneric
}

// DequantizeStoresNonTemporal is QuantizeStoresNonTemporal for Dequantize
// and DequantizeRows.
func DequantizeStoresNonTemporal(lvl isa.Level, n int) bool {
	return dequantizeNT(5*n) && implFor(lvl, 5*n) != implGeneric
}
