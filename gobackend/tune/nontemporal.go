package tune

import (
	"runtime"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// NonTemporal is, per kernel, the bytes a call moves (input and output
// together: 5 per element for quantize and dequantize) from which it stores
// its output non-temporally, past the caches and without first reading the
// lines it writes. 0: always; MaxPieceBytes: never.
type NonTemporal struct {
	Quantize   int `json:"quantize"`   // quant.Quantize, QuantizeRows: 1 byte written per 4 read
	Dequantize int `json:"dequantize"` // quant.Dequantize, DequantizeRows: 4 bytes written per 1 read
	// Elem: elem's kernels with an output of their own (Add, Mul: 1 byte
	// written per 2 read; ReLU, Exp, Tanh, Sigmoid: 1 per 1). Axpy writes
	// the y it has just read, which no store kind saves.
	Elem int `json:"elem"`
}

// llcPerCPU bounds the last-level cache a CPU can count on: the most any
// current server or desktop part gives a core (Zen 4 and 5: 32 MiB per
// 8-core CCD; Intel's Xeons 1.25–2 MiB a core). A VM reports its host's
// whole last-level cache, shared with other guests: the 2-vCPU Intel VM of
// docs/tuning.md reports 480 MiB.
const llcPerCPU = 4 << 20

// DefaultNonTemporalBytes is where quantize, dequantize and the
// element-wise kernels with an output of their own (gobackend/elem) switch
// to non-temporal stores without a tune file: half the last level cache the
// machine reports (past it, an output does not stay in the cache for its
// next reader, and an ordinary store pays a read for ownership), but no
// more than llcPerCPU for each CPU this process may use, since a reported
// cache may be a whole host's. cpus and llc as runtime.NumCPU and
// isa.Caches().L3 give them.
func DefaultNonTemporalBytes(cpus, llc int) int {
	return min(lastLevel(llc, isa.Caches().L2, cpus)/2, llcPerCPU*max(cpus, 1))
}

// lastLevel is the last-level cache as reported, llc bytes, or where there
// is no shared level (llc 0) the cores' own L2s, l2 bytes for each of cpus.
func lastLevel(llc, l2, cpus int) int {
	if llc > 0 {
		return llc
	}
	return l2 * max(cpus, 1)
}

// defaultNonTemporal: every kernel from DefaultNonTemporalBytes. Quantize
// stores a fifth of what it moves, so skipping the read for ownership
// saves it less than it saves the others, yet on the Zen 5 Turin VM
// (docs/tuning.md) ordinary stores cost it more than that read: four `pb`
// runs each way, alternated, put non-temporal stores from 8 MiB at
// 1.06–1.40× over 10 and 20 MiB and 1.19–1.60× over 80 MiB (i8 and u8,
// 1 and 2 threads). On the 2-vCPU Intel VM they ran it 0.98–1.01× as fast
// over 80–320 MiB and alike at 5 MiB: the same rule costs nothing there.
func defaultNonTemporal() NonTemporal {
	d := DefaultNonTemporalBytes(runtime.NumCPU(), isa.Caches().L3)
	return NonTemporal{Quantize: d, Dequantize: d, Elem: d}
}
