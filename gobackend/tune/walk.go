package tune

import "github.com/peakbench/peakbench/gobackend/isa"

// Walk is where elem's add, mul, ReLU and axpy, which have twins that walk
// their arrays from the end down, keep walking up whatever their operands'
// page offsets: calls whose operands take more than UpAbove bytes in all
// and at most UpTo (per thread's piece). Elsewhere they walk down where,
// walking up, their stores would trail a load by less than
// num.AliasWindow of page offset (num.WalkDown: 4K aliasing), since there a
// falling stream is served as fast as a rising one. UpAbove ≥ UpTo (both
// MaxPieceBytes, say): the offsets decide at every size.
type Walk struct {
	UpAbove int `json:"up_above"`
	UpTo    int `json:"up_to"`
}

// DownPays reports whether a call whose operands take bytes in all may
// walk down: bytes outside (UpAbove, UpTo].
func (w Walk) DownPays(bytes int) bool { return bytes <= w.UpAbove || bytes > w.UpTo }

// defaultWalk: where the hardware prefetchers follow a falling stream as
// well as a rising one (isa.PrefetchesFallingStreams: Intel's cores) the
// offsets decide at every size; elsewhere calls walk up between the
// reported L1 and L2, where a falling stream is not prefetched. On the Zen
// 5 Turin VM, with operands 576 bytes apart (pb's placement; AVX-512, one
// thread, interleaved rounds), add f32 over 64–512 KiB took 1.36–1.68× the
// time walking down and daxpy 1.44–1.83× (medians of 25 rounds), the
// falling stream from L2 outweighing the aliasing it avoids; from L1
// (16–32 KiB) 1.00–1.05×, and past L2 (1–32 MiB) daxpy 0.96–1.03×. On the
// Ice Lake VM add, mul and axpy of 16 Ki elements from L2 gained 1.01–1.13×
// walking down. -tune measures the machine's own range (walk.up_above,
// walk.up_to): that VM reports a 32 KiB L1 where its cores have 48, and an
// add f32 of 4 Ki elements (48 KiB) took 1.08–1.12× as long walking up.
func defaultWalk() Walk { return walkFor(isa.PrefetchesFallingStreams(), isa.Caches()) }

// walkFor is the default Walk of a machine whose prefetchers follow falling
// streams or not (falling), with caches c.
func walkFor(falling bool, c isa.CacheSizes) Walk {
	if falling {
		return Walk{UpAbove: MaxPieceBytes, UpTo: MaxPieceBytes}
	}
	return Walk{UpAbove: c.L1, UpTo: c.L2}
}

// walkFields are Walk's entries of Params.Fields.
func (p *Params) walkFields() []Field {
	return []Field{
		{"walk.up_above", &p.Walk.UpAbove},
		{"walk.up_to", &p.Walk.UpTo},
	}
}
