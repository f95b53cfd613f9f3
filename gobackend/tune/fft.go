package tune

import "github.com/peakbench/peakbench/gobackend/isa"

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
type FFT struct {
	Share PerDType `json:"share"`
}

// defaultFFT: a core's L2 (isa.Caches), the rule measured on the 2-vCPU
// Intel VM of docs/tuning.md (64 Ki complex128, 2 MiB in and out, ran
// 166–173 µs on two threads against 231–233 on one). It does not hold
// everywhere: on the Zen 5 VM two threads ran complex transforms of 1 to
// 8 MiB in and out 0.5–0.75× as fast as one, and 1.4–1.8× from 16 MiB on
// (its two vCPUs exchange each stage's data through the L3 or beyond, at
// a fraction of the rate one core reads its L3). -tune measures it.
func defaultFFT() FFT {
	l2 := isa.Caches().L2
	return FFT{Share: PerDType{F32: l2, F64: l2}}
}

// FFTShares reports whether a pass over bytes of data of size-byte reals
// (4: f32 and complex64; 8: f64 and complex128) is shared between
// threads, by FFT.Share.
func (p *Params) FFTShares(size, bytes int) bool {
	cut := p.FFT.Share.F64
	if size == 4 {
		cut = p.FFT.Share.F32
	}
	return bytes >= cut
}

// fftFields are FFT's entries of Params.Fields.
func (p *Params) fftFields() []Field {
	return []Field{
		{"fft.share.f32", &p.FFT.Share.F32},
		{"fft.share.f64", &p.FFT.Share.F64},
	}
}
