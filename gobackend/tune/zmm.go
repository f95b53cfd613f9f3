package tune

import "github.com/peakbench/peakbench/gobackend/isa"

// ZMM is, per kind of vector kernel, the most bytes a call moves (reads and
// writes together) with 512-bit vectors at the AVX512 level; a larger call
// runs the AVX2 kernels (isa.Level.ForBytes). 0: AVX2 whatever the size;
// MaxPieceBytes: AVX-512 whatever the size.
//   - Memory: the kernels whose time is the memory's: elem's Add, Mul,
//     Axpy, ReLU; reduce's Sum, Dot, Max; gemm's GEMV; conv's pools and
//     norms; quant's conversions.
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
// on Zen 4 with streaming kernels) for both.
func defaultZMM() ZMM {
	d := isa.DefaultZMMMaxBytes()
	return ZMM{Memory: d, Math: d}
}

// zmmFields are ZMM's entries of Params.Fields.
func (p *Params) zmmFields() []Field {
	return []Field{
		{"zmm.memory", &p.ZMM.Memory},
		{"zmm.math", &p.ZMM.Math},
	}
}
