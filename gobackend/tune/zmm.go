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

// defaultZMM: where 512-bit FMAs run at full rate (isa.FullRateZMM: Zen 5,
// Intel's server cores) AVX-512 at every size for both kinds, as GEMV's
// default; elsewhere (Zen 4, which runs a 512-bit access as two halves)
// isa.DefaultZMMMaxBytes, half the last-level cache, for both.
//   - Math: AVX2 halves their arithmetic. On the Zen 5 VM -tune timed AVX2
//     at 0.49–0.54× AVX-512's speed for exp and tanh f32 from 2 to 32 MiB
//     moved and 0.63–0.69× at 64–128 MiB; in alternated Go loops exp and
//     tanh f32 at 4 Mi elements (32 MiB moved, 2 threads) ran 1.4× and
//     1.6–2.0× as fast with zmm, at 16 Mi 1.0–2.0× (docs/tuning.md).
//   - Memory: from DRAM the zmm kernels ran as fast as the AVX2 ones or
//     faster on both full-rate machines measured. The Zen 5 VM's -tune:
//     AVX2 0.86–1.06× as fast as AVX-512 for add and sum from 2 to 128
//     MiB. The Ice Lake VM, the 4 Mi rows of pb (16–96 MiB moved, 2
//     threads, the two builds alternated ABBA, four runs, MKL's rows
//     beside them as the host's control, 0.91–1.16 between the builds):
//     with zmm add took 0.91–0.95× the time, mul 0.86–0.94×, axpy f32
//     0.84–0.97×, axpy f64 1.02× (MKL 1.02×), dot f32 0.91× (MKL 0.92×);
//     its -tune: AVX2 0.95–1.04× as fast for add and sum, 2 to 128 MiB.
func defaultZMM() ZMM {
	d := isa.DefaultZMMMaxBytes()
	if isa.FullRateZMM() {
		return ZMM{Memory: MaxPieceBytes, Math: MaxPieceBytes}
	}
	return ZMM{Memory: d, Math: d}
}

// zmmFields are ZMM's entries of Params.Fields.
func (p *Params) zmmFields() []Field {
	return []Field{
		{"zmm.memory", &p.ZMM.Memory},
		{"zmm.math", &p.ZMM.Math},
	}
}
