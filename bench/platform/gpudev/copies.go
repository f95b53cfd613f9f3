package gpudev

import (
	"math"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

// maxColdCopies bounds the buffer sets of a cold kernel: tiny sets (under
// 2·L2/4096, 25 KiB on an H100) then stay partly in L2, rather than cost
// thousands of allocations.
const maxColdCopies = 4096

// Copies is the number of buffer sets for a kernel whose one set is
// setBytes: 1 when hot; when cold, enough that the sets exceed twice the
// L2 cache (and at least cfg.Copies), within maxColdCopies, 2 GiB (or one
// set, if larger) and half the free device memory.
func Copies(cfg backend.Config, setBytes float64, dev *gpurt.Device) int {
	if cfg.Copies <= 1 || setBytes <= 0 {
		return 1
	}
	info := dev.Info()
	n := max(cfg.Copies, int(math.Ceil(2*float64(info.L2Bytes)/setBytes))+1)
	n = min(n, maxColdCopies)
	limit := math.Max(2<<30, setBytes)
	if free, _, err := dev.MemInfo(); err == nil && free > 0 {
		limit = math.Min(limit, float64(free)/2)
	}
	return max(1, min(n, int(limit/setBytes)))
}
