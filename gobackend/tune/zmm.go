package tune

import "github.com/peakbench/peakbench/gobackend/isa"

// ZMM is, per kind of vector kernel, the most bytes a call moves (reads and
// writes together) with 512-bit vectors at the AVX512 level; a larger call
// runs the AVX2 kernels (isa.Level.ForBytes). 0: AVX2 whatever the size;
// MaxPieceBytes: AVX-512 whatever the size.
//   - Memory: the kernels whose time is the memory's: elem's Add, Mul,
//     Axpy, ReLU; reduce's Sum, Dot, Max; conv's pools and norms; quant's
//     conversions (gemm's GEMV has its own, GEMV.ZMM).
//   - Math: the kernels with arithmetic to do per element: elem's Exp,
//     Tanh, Sigmoid; nn's Softmax.
type ZMM struct {
	Memory int `json:"memory"`
	Math   int `json:"math"`
}

// Level is the level a memory-bound kernel call moving bytes runs at: lvl,
// or AVX2 above ZMM.Memory.
func (p *Params) Level(lvl isa.Level, bytes int) isa.Level {
	return lvl.ForBytes(bytes, p.ZMM.Memory)
}

// MathLevel is Level for the math kernels (ZMM.Math).
func (p *Params) MathLevel(lvl isa.Level, bytes int) isa.Level {
	return lvl.ForBytes(bytes, p.ZMM.Math)
}

// defaultZMM: isa.DefaultZMMMaxBytes (half the last-level cache, measured
// on Zen 4 with streaming kernels) for the memory-bound kernels, and for
// the math kernels where 512-bit FMAs run at half rate (Zen 4); where they
// run at full rate (isa.FullRateZMM) the math kernels keep AVX-512 at
// every size, since AVX2 halves their arithmetic. On the Zen 5 VM (2×512-bit
// FMA), -tune timed AVX2 at 0.49–0.54× AVX-512's speed for exp and tanh f32
// from 2 to 32 MiB moved and 0.63–0.69× at 64–128 MiB, and in alternated
// Go loops exp and tanh f32 at 4 Mi elements (32 MiB moved, 2 threads)
// ran 1.4× and 1.6–2.0× as fast with zmm, at 16 Mi 1.0–2.0× (docs/tuning.md).
func defaultZMM() ZMM {
	d := isa.DefaultZMMMaxBytes()
	m := d
	if isa.FullRateZMM() {
		m = MaxPieceBytes
	}
	return ZMM{Memory: d, Math: m}
}

// zmmFields are ZMM's entries of Params.Fields.
func (p *Params) zmmFields() []Field {
	return []Field{
		{"zmm.memory", &p.ZMM.Memory},
		{"zmm.math", &p.ZMM.Math},
	}
}
