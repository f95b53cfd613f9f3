package tune

import (
	"fmt"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// GEMM is when the f32 and f64 GEMM (gobackend/gemm) changes strategy.
//   - Direct: the largest bytes of A and B together that a product reads in
//     place, unpacked (gemm's direct.go); above it A and B are packed into
//     panels. 0: always pack.
//   - Parallel: the least multiply-adds (m·n·k) each thread gets; a product
//     of fewer than twice that runs on one thread. 0: every thread asked
//     for, whatever the size.
//   - Shape: the micro-kernel the packed loop nest runs at AVX512,
//     ShapeTall or ShapeWide (the unpacked and streaming paths keep
//     ShapeTall's). 0, the zero value, is the default, so a file that
//     predates the field reads as the default and Version stays.
//   - KC: the depth of the packed loop nest's blocks (kc, in elements of
//     k), A's packed block then taking a quarter of L2 at it. 0, the zero
//     value, is the micro-kernel's own depth (gemm's floatBlocking: from
//     the caches).
//   - ColsOuter: the most bytes of A (m·k) that a product above Direct
//     reads unpacked, each column panel of B swept over every row tile
//     (gemm's direct.go: where A takes at most half of L2 and a panel a
//     quarter; a 1×1 convolution's filters × positions × channels); above
//     it, or where A or the panel does not fit, A and B are packed. 0:
//     always packed; MaxPieceBytes: unpacked wherever A and the panel fit.
type GEMM struct {
	Direct    PerDType `json:"direct"`
	Parallel  PerDType `json:"parallel"`
	Shape     PerDType `json:"shape"`
	KC        PerDType `json:"kc"`
	ColsOuter PerDType `json:"cols_outer"`
}

// The AVX-512 micro-kernel shapes of GEMM.Shape:
//   - ShapeTall: 14 rows of 2 vectors (sgemm14x32AVX512, dgemm14x16AVX512),
//     16 loads (2 of B, 14 broadcasts) per 28 FMAs. It ran at 90–95% of
//     the FMA probe on its own on the Intel VMs and matched or beat the
//     AVX2 kernels on Zen 4 (gobackend/gemm: asmKernel).
//   - ShapeWide: 8 rows of 3 vectors (sgemm8x48AVX512, dgemm8x24AVX512),
//     11 loads (3 of B, 8 broadcasts) per 24 FMAs, fewer where the nest
//     streams A's micro-panels from L2 and its broadcasts compete with
//     the FMAs for load slots, but a B micro-panel half as wide again.
//     On the Ice Lake VM (docs/vendors.md) DGEMM 512³ and 1024³ in the
//     nest ran 0.97–1.18× as fast as with the tall kernel, SGEMM
//     0.90–1.08× (TestBlockingSweep), and `pb -tune` found both within
//     its 1.05 margin: a choice each machine measures, not a default.
const (
	ShapeTall = iota
	ShapeWide
	shapes // how many
)

// ShapeName is the name of a GEMM.Shape value, as the tune output says it.
func ShapeName(v int) string {
	switch v {
	case ShapeTall:
		return "14-row (tall)"
	case ShapeWide:
		return "8-row (wide)"
	}
	return fmt.Sprintf("shape %d", v)
}

// PerDTypeOf is p's value for an element of size bytes (4: f32, else f64).
func PerDTypeOf(p PerDType, size int) int {
	if size == 4 {
		return p.F32
	}
	return p.F64
}

// defaultGEMM: what `-tune` measured on the 2-vCPU Intel VM (AVX-512,
// 48 KiB L1d and 2 MiB L2 a core; docs/tuning.md), twice alike: unpacked
// products ran 1.1–1.6× as fast as packed ones up to 512² f32 and 256² f64
// (384² f64 alike, 512² f64 1.6× slower); two threads ran 0.9–1.0× as fast
// as one at 64³ and 1.3× at 96³. The direct path streams B from L2, so
// the unpacked bytes are at most DirectL2Share of L2 besides
// (DefaultDirectBytes).
//
// The columns-outer sweep: wherever it fits off Intel's cores, never on
// them (isa.PrefetchesShortStreams). It reads B's rows in place, a few KiB
// apart, each a stream of two lines per panel. On the Zen 5 VM, one
// thread, it ran f32 64×3136×256 and 64×3136×576 8–12% faster than the
// streaming path, 128×3136×576 and 192×3136×576 4–10%, 16×6272×432 1.55×
// (f64 64×3136×256 10%); on the Ice Lake VM the packed path ran such
// products 1.15–1.9× as fast as the sweep, one thread and two, f32 and f64
// (f32 64×3136×256 114 against 85 GFLOP/s, 128×3136×576 76 against 51,
// 16×6272×432 48 against 33; TestBlockingSweep, 10 rounds).
func defaultGEMM() GEMM {
	l2 := isa.Caches().L2
	colsOuter := MaxPieceBytes
	if !isa.PrefetchesShortStreams() {
		colsOuter = 0
	}
	return GEMM{
		Direct:    PerDType{F32: DefaultDirectBytes(2<<20, l2), F64: DefaultDirectBytes(1<<20, l2)},
		Parallel:  PerDType{F32: 96 * 96 * 96 / 2, F64: 96 * 96 * 96 / 2},
		ColsOuter: PerDType{F32: colsOuter, F64: colsOuter},
	}
}

// DefaultDirectBytes is measured, the bytes of A and B up to which a
// product ran faster unpacked where it was measured, capped at
// DirectL2Share of a core's L2 (l2 bytes; no cap where it is not
// known). The unpacked kernels read B in place, from L2 while it fits:
// a square B of half of L2 ran unpacked 1.1–1.6× as fast as packed on the
// Intel VM (512² f32, 2 MiB L2) and 1.1× on the Zen 5 Turin VM (384² f32,
// 1 MiB L2), one of all of L2 0.6× on the Intel VM (512² f64) and 0.93×
// on the Turin VM (512² f32; `pb -op=gemm -size=512 -threads=1`, six runs
// each way alternated, asm ÷ oneDNN 0.86–0.96 unpacked, 0.93–1.06 packed).
func DefaultDirectBytes(measured, l2 int) int {
	if l2 <= 0 {
		return measured
	}
	return min(measured, int(DirectL2Share*float64(l2)))
}

// DirectL2Share: A and B of a square product together at most 1.5 L2s,
// B at most three quarters of L2.
const DirectL2Share = 1.5

// gemmFields are GEMM's entries of Params.Fields.
func (p *Params) gemmFields() []Field {
	return []Field{
		{"gemm.direct.f32", &p.GEMM.Direct.F32},
		{"gemm.direct.f64", &p.GEMM.Direct.F64},
		{"gemm.parallel.f32", &p.GEMM.Parallel.F32},
		{"gemm.parallel.f64", &p.GEMM.Parallel.F64},
		{"gemm.shape.f32", &p.GEMM.Shape.F32},
		{"gemm.shape.f64", &p.GEMM.Shape.F64},
		{"gemm.kc.f32", &p.GEMM.KC.F32},
		{"gemm.kc.f64", &p.GEMM.KC.F64},
		{"gemm.cols_outer.f32", &p.GEMM.ColsOuter.F32},
		{"gemm.cols_outer.f64", &p.GEMM.ColsOuter.F64},
	}
}

// validShape says which of GEMM.Shape's values is not one of the shapes.
func (p Params) validShape() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"gemm.shape.f32", p.GEMM.Shape.F32}, {"gemm.shape.f64", p.GEMM.Shape.F64}} {
		if f.v < 0 || f.v >= shapes {
			return fmt.Errorf("%s = %d is not a micro-kernel shape (0: %s, 1: %s)", f.name, f.v, ShapeName(ShapeTall), ShapeName(ShapeWide))
		}
	}
	return nil
}
