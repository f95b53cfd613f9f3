package elem

import (
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// Add, Mul, ReLU, Exp, Tanh and Sigmoid store their output non-temporally
// (VMOVNTPS, VMOVNTPD: past the caches, without first reading the line
// written) when a call moves tune's nontemporal.elem bytes or more, inputs
// and output together.
// An ordinary store reads each line of the output before writing it (read
// for ownership): a third more traffic for Add and Mul, half more for the
// unary ops, which is what a large output costs where it does not stay in
// the cache for its next reader anyway. Axpy writes the y it has just read,
// which no store kind saves. Its default is dequantize's
// (tune.DefaultNonTemporalBytes: half the last-level cache, at most 4 MiB
// a CPU), where the output no longer stays in the cache.

// nonTemporal says whether a call moving bytes under p stores its output
// non-temporally.
func nonTemporal(p *tune.Params, bytes int) bool { return bytes >= p.NonTemporal.Elem }

// StoresNonTemporal reports whether Add or Mul (inputs 2) or ReLU, Exp,
// Tanh or Sigmoid (inputs 1) of n elements of size bytes at lvl stores its
// output non-temporally: what a benchmark's ceiling must know, since such
// stores skip the read for ownership the machine's ordinary-store
// bandwidths pay (peak.PatternCopyNT).
func StoresNonTemporal(lvl isa.Level, inputs, n, size int) bool {
	bytes := (inputs + 1) * n * size
	p := tune.Current()
	return nonTemporal(p, bytes) && implFor(p.Level(lvl, bytes)) != implGeneric
}
