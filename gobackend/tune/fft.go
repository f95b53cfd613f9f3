package tune

import (
	"runtime"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// FFT is when a transform of gobackend/fft shares its stages between
// threads. Share is the least bytes of a complex transform's input and
// output (2·n·size of a complex value: f32 for complex64, f64 for
// complex128) from which each stage's butterflies are split over the
// threads; a real transform's half-length complex transform follows it,
// and its split pass from Share bytes of output. Every stage then reads
// what the other thread's core wrote in the stage before, so a second
// thread pays only where the stages stream from past the first core's
// own caches, or where the cores share them. 0: whenever there are
// threads (and 8 Ki values, gobackend/fft's least shared length);
// MaxPieceBytes: never.
//
// Pair is the most bytes of a complex64 transform's input and output
// (16 bytes a point) whose stride-4 radix-4 stage runs gobackend/fft's pair
// kernel at AVX-512 (two sub-transforms a zmm vector); a longer one, or
// every one at 0, fuses its first two stages into one radix-16 pass
// instead. 0 by default, and its zero value in a file made before it:
// fused was the faster wherever measured since the fused pass lost its
// extra shuffles (the Zen 5 VM 1.03–1.05× at 512 and 1 Ki points; the
// 2-vCPU Ice Lake VM 1.1–1.6× from 256 to 4 Ki); the pair kernel won by
// 5% at 1 Ki only before that, on a Rocket Lake VM. -tune measures it.
type FFT struct {
	Share PerDType `json:"share"`
	Pair  int      `json:"pair"`
}

// defaultFFT: where the threads share the cache a transform fills, or the
// data outgrow the cache they share. A transform works in three arrays
// (input, output and its plan's buffer, which the stages alternate with):
// one and a half times its input and output. Where every CPU this process
// may use shares one L2 (SMT threads of one core), from where those three
// fill it, two thirds of L2: on the 2-vCPU Intel VM of docs/tuning.md,
// reported as one core's two threads sharing 2 MiB, 64 Ki complex64 (1 MiB
// in and out) ran 87–89 µs on two threads against 72–74 on one, 64 Ki
// complex128 (2 MiB) 166–173 against 231–233. On Intel's cores the same: on
// the Ice Lake VM, two cores reported with 1.25 MiB of L2 each, two threads
// ran transforms of 512 KiB in and out 0.75–0.92× as fast as one, of 1 MiB
// 1.20–1.26× and of 2 MiB 1.42–1.56× (-tune), and in pb (four runs each
// way) fft and ifft of 64 Ki complex64 (1 MiB) in 110–144 µs against
// 135–158 unshared, 64 Ki and 128 Ki complex128 (2 and 4 MiB) in 255–311
// and 601–629 µs against 367–383 and 1039–1095. Otherwise each stage moves
// half the data between the cores' caches, which pays only once the data
// streams from past the last-level cache they share: from one byte more
// than the LLC the CPUs can count on (the reported one, at most llcPerCPU
// a CPU). On the Zen 5 VM (two cores, 1 MiB L2 each, 32 MiB L3 reported:
// more than 8 MiB) two threads ran transforms of 1 to 8 MiB 0.5–0.87× as
// fast as one and 1.1–1.6× from 16 MiB on. CPUID does not say what a line
// the other core wrote costs to read: the vendor stands for it here, and
// -tune measures it.
func defaultFFT() FFT {
	cut := DefaultFFTShareBytes(isa.Caches(), runtime.NumCPU(), isa.Vendor() == isa.VendorIntel)
	return FFT{Share: PerDType{F32: cut, F64: cut}}
}

// DefaultFFTShareBytes is defaultFFT's cut for caches c, cpus usable CPUs
// and whether they are Intel's.
func DefaultFFTShareBytes(c isa.CacheSizes, cpus int, intel bool) int {
	cpus = max(cpus, 1)
	if c.L2 > 0 && (c.L2SharedBy >= cpus || intel) {
		return c.L2 * 2 / 3 // in and out, with the plan's buffer: the L2
	}
	return min(lastLevel(c.L3, c.L2, cpus), llcPerCPU*cpus) + 1
}

// FFTShares reports whether a pass over bytes of data of size-byte reals
// (4: f32 and complex64; 8: f64 and complex128) is shared between
// threads, by FFT.Share.
func (p *Params) FFTShares(size, bytes int) bool {
	return bytes >= PerDTypeOf(p.FFT.Share, size)
}

// fftFields are FFT's entries of Params.Fields.
func (p *Params) fftFields() []Field {
	return []Field{
		{"fft.share.f32", &p.FFT.Share.F32},
		{"fft.share.f64", &p.FFT.Share.F64},
		{"fft.pair", &p.FFT.Pair},
	}
}
