package gemm

import (
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
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
			rt := balancedRows(&kern, m, tiles)
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

// TestDirectAllocatesNothing checks that a product on the direct path on
// one thread allocates nothing once warm: its closures and its edge tile
// were allocated at every call, and with the garbage collector's work a
// 16³ SGEMM took 1.4–1.9 µs where the arithmetic takes 0.1.
func TestDirectAllocatesNothing(t *testing.T) {
	for _, lvl := range isa.Levels() {
		if kernelFor[float32](lvl).direct == nil {
			continue
		}
		for _, n := range []int{16, 20, 64} { // 20: edge rows and columns
			a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
			a64, b64, c64 := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
			if got := testing.AllocsPerRun(50, func() { Gemm(lvl, false, false, n, n, n, 1, a, n, b, n, 0, c, n, 1) }); got != 0 {
				t.Errorf("%v f32 %d³: %v allocations a call", lvl, n, got)
			}
			if got := testing.AllocsPerRun(50, func() { Gemm(lvl, false, false, n, n, n, 1, a64, n, b64, n, 0, c64, n, 1) }); got != 0 {
				t.Errorf("%v f64 %d³: %v allocations a call", lvl, n, got)
			}
		}
	}
}

// TestColsOuterParam checks which path a 1×1 convolution's product (64
// filters × 3136 positions × 256 channels, above gemm.direct) takes: by
// default the unpacked columns-outer sweep where its A and panel fit L2
// but packed on Intel's cores; under gemm.cols_outer, the sweep up to its
// bytes of A, packed above them, and packed wherever A or the panel does
// not fit L2.
func TestColsOuterParam(t *testing.T) {
	kern := kernelFor[float32](isa.Best)
	if kern.direct == nil {
		t.Skip("no unpacked kernel at this level")
	}
	m, n, k := 64, 3136, 256
	aBytes := m * k * 4
	fits := fitsColsOuter(m, k, kern.nr, 4)
	withGEMMTune(func(g *tune.GEMM) { g.Direct.F32 = 1 << 20 }, func() {
		want := fits && isa.Vendor() != isa.VendorIntel
		if got := useDirect(&kern, false, false, false, m, n, k); got != want {
			t.Errorf("default, vendor %q, fits L2 %v: useDirect = %v, want %v", isa.Vendor(), fits, got, want)
		}
	})
	for _, c := range []struct {
		limit int
		want  bool
	}{{0, false}, {aBytes - 1, false}, {aBytes, fits}, {tune.MaxPieceBytes, fits}} {
		withGEMMTune(func(g *tune.GEMM) { g.Direct.F32, g.ColsOuter.F32 = 1<<20, c.limit }, func() {
			if got := useDirect(&kern, false, false, false, m, n, k); got != c.want {
				t.Errorf("gemm.cols_outer.f32 = %d (A %d bytes, fits L2 %v): useDirect = %v, want %v", c.limit, aBytes, fits, got, c.want)
			}
		})
	}
	// gemm.direct at 0 keeps every product packed, whatever the sweep's.
	withGEMMTune(func(g *tune.GEMM) { g.Direct.F32, g.ColsOuter.F32 = 0, tune.MaxPieceBytes }, func() {
		if useDirect(&kern, false, false, false, m, n, k) {
			t.Error("gemm.direct.f32 = 0: useDirect = true, want packed")
		}
	})
}
