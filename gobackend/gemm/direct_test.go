package gemm

import (
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// TestBalancedRows checks that the direct path's row tiles cover every
// row once, in order, none higher than mr and heights within one of each
// other, at every level with a direct kernel.
func TestBalancedRows(t *testing.T) {
	for _, lvl := range isa.Levels() {
		kern := kernelFor[float32](lvl)
		if kern.direct == nil {
			continue
		}
		for m := 1; m <= 4*kern.mr+3; m++ {
			tiles := ceilDiv(m, kern.mr)
			rt := balancedRows(lvl, &kern, m, tiles)
			if rt.padded {
				t.Fatalf("%v m=%d: no kernel of the balanced heights", lvl, m)
			}
			next, lo, hi := 0, kern.mr, 0
			for it := range tiles {
				first, rows, fn := rt.tile(it)
				if first != next || rows < 1 || rows > kern.mr || fn == nil {
					t.Fatalf("%v m=%d: tile %d = rows [%d, %d), want from %d", lvl, m, it, first, first+rows, next)
				}
				next, lo, hi = first+rows, min(lo, rows), max(hi, rows)
			}
			if next != m || hi-lo > 1 {
				t.Errorf("%v m=%d: tiles cover %d rows, heights %d–%d", lvl, m, next, lo, hi)
			}
		}
	}
}
