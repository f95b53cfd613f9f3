package tune

import "github.com/peakbench/peakbench/gobackend/isa"

// GEMV is how the GEMV (gobackend/gemm, Gemv) runs: which AVX-512 kernels,
// and from which size on more than one thread.
//
// ByRow is when the AVX-512 y = A·x reads A one row at a time rather than
// eight: the least bytes of A (m·n·size) above which a row takes a dot
// product of its own, x re-read from L1 for every row and A read as one
// stream; at or below it, eight rows share each load of x (nine loads per
// eight FMAs, eight streams of A). Only rows of gemm's row bounds take it
// (long enough for the call, x short enough to stay in L1). 0: whenever
// the rows allow; MaxPieceBytes: never.
//
// ZMM is the most bytes of A the GEMV (either op(A)) runs with its AVX-512
// kernels at the AVX512 level; above, the AVX2 ones (ZMM.Memory's meaning,
// for the GEMV alone). 0: AVX2 whatever the size; MaxPieceBytes: AVX-512
// whatever the size.
//
// Parallel is the least bytes of A a thread of the GEMV (either op(A))
// gets, as Parallel's pieces are of x: an A of fewer than twice that runs
// on the calling goroutine alone. 0: split whatever the size;
// MaxPieceBytes: never.
type GEMV struct {
	ByRow    PerDType `json:"by_row"`
	ZMM      int      `json:"zmm"`
	Parallel PerDType `json:"parallel"`
}

// defaultGEMV: one row at a time above a core's L2, but eight rows at every
// size on Intel's cores. On the Zen 5 VM of docs/tuning.md (1 MiB L2) a row
// at a time took 0.85–0.95× the eight-row kernel's time from 2 MiB of A on
// (f64 512², 768², 1024²; f32 1024², 1024×1536), and also 0.9× at f64 256²
// (512 KiB), where the default keeps eight rows. On the 2-vCPU Intel VM (2
// MiB L2) eight rows took 7–8% less time than four up to 1–2 MiB (f32 512²,
// 256×1024; f64 256²), and from its L3 every kernel read at the L3's
// bandwidth; on the Ice Lake VM (1.25 MiB L2) a row at a time took
// 1.14–1.23× eight rows' time at f32 4096² from DRAM on one thread (rows of
// 16 KiB, each its own short stream; three alternated runs) and was level
// elsewhere (isa.PrefetchesShortStreams). -tune finds the machine's own (0
// on the Zen 5 VM: one row won from 256 KiB on; never on the Ice Lake VM).
//
// The thread split: 192 KiB of A a thread. On the 2-vCPU Intel VM (Go
// benchmarks) two threads took as long as one at 256 KiB of A (f32 256²,
// f64 192²) or longer (f32 256² in -op=gemv runs, 2.7–2.8 µs against
// 2.1–2.2), and less from 400 KiB (f32 320², f64 256²).
//
// The width: AVX-512 at every size where 512-bit FMAs run at full rate
// (isa.FullRateZMM), else zmm.memory's default (half the last-level cache;
// on Zen 4 zmm streamed sum, dot, add and axpy 3–14% slower from DRAM). On
// the Zen 5 VM (1 thread, alternated Go loops, 11 rounds, twice), streaming
// A from DRAM (f32 and f64 4096², 8192²) the zmm dot a row at a time took
// 0.82–0.87× the AVX2 one's time (f64 4096² 3.6 ms against 4.4, 37 GB/s
// against 30), eight rows at a time 0.84–0.98×.
func defaultGEMV() GEMV {
	l2 := isa.Caches().L2
	z := isa.DefaultZMMMaxBytes()
	if isa.FullRateZMM() {
		z = MaxPieceBytes
	}
	byRow := l2
	if !isa.PrefetchesShortStreams() {
		byRow = MaxPieceBytes
	}
	return GEMV{ByRow: PerDType{F32: byRow, F64: byRow}, ZMM: z, Parallel: PerDType{F32: 192 << 10, F64: 192 << 10}}
}

// GEMVLevel is the level the GEMV over bytes of A runs at: lvl, or AVX2
// above GEMV.ZMM.
func (p *Params) GEMVLevel(lvl isa.Level, bytes int) isa.Level {
	return lvl.ForBytes(bytes, p.GEMV.ZMM)
}

// gemvFields are GEMV's entries of Params.Fields.
func (p *Params) gemvFields() []Field {
	return []Field{
		{"gemv.by_row.f32", &p.GEMV.ByRow.F32},
		{"gemv.by_row.f64", &p.GEMV.ByRow.F64},
		{"gemv.zmm", &p.GEMV.ZMM},
		{"gemv.parallel.f32", &p.GEMV.Parallel.F32},
		{"gemv.parallel.f64", &p.GEMV.Parallel.F64},
	}
}
