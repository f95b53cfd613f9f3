package elem

import (
	"runtime"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// Add, Mul, ReLU, Exp, Tanh and Sigmoid store their output non-temporally
// (VMOVNTPS, VMOVNTPD: past the caches, without first reading the line
// written) when a call moves ntBytes or more, inputs and output together.
// An ordinary store reads each line of the output before writing it (read
// for ownership): a third more traffic for Add and Mul, half more for the
// unary ops, which is what a large output costs where it does not stay in
// the cache for its next reader anyway. Axpy writes the y it has just read,
// which no store kind saves. The size is dequantize's default crossover
// (tune.DefaultNonTemporalBytes: half the last-level cache, at most 4 MiB
// a CPU), where the output no longer stays in the cache. A variable so
// tests can move it.
var ntBytes = tune.DefaultNonTemporalBytes(runtime.NumCPU(), isa.Caches().L3)

// nonTemporal says whether a call moving bytes stores its output
// non-temporally.
func nonTemporal(bytes int) bool { return bytes >= ntBytes }

// StoresNonTemporal reports whether Add or Mul (inputs 2) or ReLU, Exp,
// Tanh or Sigmoid (inputs 1) of n elements of size bytes at lvl stores its
// output non-temporally: what a benchmark's ceiling must know, since such
// stores skip the read for ownership the machine's ordinary-store
// bandwidths pay (peak.PatternCopyNT).
func StoresNonTemporal(lvl isa.Level, inputs, n, size int) bool {
	bytes := (inputs + 1) * n * size
	return nonTemporal(bytes) && implFor(lvl.ForBytes(bytes)) != implGeneric
}
