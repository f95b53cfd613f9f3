package quant

import "github.com/peakbench/peakbench/gobackend/isa"

// NonTemporalFrom is the bytes a quantize or dequantize call moves (input
// and output) from which it stores its output non-temporally: half the
// last-level cache, shared with the other cores, as isa.ZMMMaxBytes (and,
// at a quarter to three quarters of it, glibc's memcpy). Past it the output
// would leave the cache before anything read it again, and an ordinary
// store first reads the line it writes (read for ownership): dequantize,
// which writes 4 bytes per byte read, then moves 9 bytes per element for
// the 5 it needs, and ran at 11 GB/s against 27 with non-temporal stores
// over 320 MiB on the 2-vCPU Intel VM of docs/architecture.md
// ("Quantization"). Below it an output left in the cache is the faster
// one for its next reader; where the cache reported is not what the
// process gets (a VM on a shared host), non-temporal stores would win
// below it too: the docs give the figures. 0 means never; tests move it.
var NonTemporalFrom = isa.Caches().L3 / 2

// nonTemporal says whether a call moving bytes stores past the caches.
func nonTemporal(bytes int) bool {
	return NonTemporalFrom > 0 && bytes >= NonTemporalFrom
}

// StoresNonTemporal reports whether Quantize or Dequantize of n elements
// at lvl stores its output non-temporally: what a benchmark's ceiling must
// know, since such stores skip the read for ownership that the machine's
// ordinary-store bandwidths pay (peak.PatternCopyNT).
func StoresNonTemporal(lvl isa.Level, n int) bool {
	return nonTemporal(5*n) && implFor(lvl, 5*n) != implGeneric
}
