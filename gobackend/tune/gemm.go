package tune

// GEMM is when the f32 and f64 GEMM (gobackend/gemm) changes strategy.
//   - Direct: the largest bytes of A and B together that a product reads in
//     place, unpacked (gemm's direct.go); above it A and B are packed into
//     panels. 0: always pack.
//   - Parallel: the least multiply-adds (m·n·k) each thread gets; a product
//     of fewer than twice that runs on one thread. 0: every thread asked
//     for, whatever the size.
type GEMM struct {
	Direct   PerDType `json:"direct"`
	Parallel PerDType `json:"parallel"`
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
// as one at 64³ and 1.3× at 96³.
func defaultGEMM() GEMM {
	return GEMM{
		Direct:   PerDType{F32: 2 << 20, F64: 1 << 20},
		Parallel: PerDType{F32: 96 * 96 * 96 / 2, F64: 96 * 96 * 96 / 2},
	}
}

// gemmFields are GEMM's entries of Params.Fields.
func (p *Params) gemmFields() []Field {
	return []Field{
		{"gemm.direct.f32", &p.GEMM.Direct.F32},
		{"gemm.direct.f64", &p.GEMM.Direct.F64},
		{"gemm.parallel.f32", &p.GEMM.Parallel.F32},
		{"gemm.parallel.f64", &p.GEMM.Parallel.F64},
	}
}
