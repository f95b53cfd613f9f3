// Package tune holds the free parameters of the gobackend kernels that a
// machine can tune (Params), their built-in defaults, and the tune file
// that stores the values `peakbench -tune` measured on one machine
// (File: versioned JSON, docs/tuning.md).
//
// The kernels read the parameters in force through Current. They are set
// once, before anything is measured, by Apply (peakbench's main, from the
// tune file of the machine or the defaults); until then Current returns the
// defaults. Apply is an atomic store, so a call racing with it sees the old
// or the new set whole, never a mixture; the search of `-tune` applies a
// candidate before each timed batch.
package tune

import (
	"fmt"

	"github.com/peakbench/peakbench/gobackend/internal/num"
)

// Params are the tunable parameters. New families (GEMM blocking, GEMV,
// convolution) are new fields here and in Fields; a file that lacks them
// keeps their defaults only if Version stays, so adding a field with a
// meaning of its own bumps Version.
type Params struct {
	Parallel    Parallel    `json:"parallel"`
	NonTemporal NonTemporal `json:"nontemporal"`
	GEMM        GEMM        `json:"gemm"`
	ZMM         ZMM         `json:"zmm"`
	GEMV        GEMV        `json:"gemv"`
	FFT         FFT         `json:"fft"`
	Walk        Walk        `json:"walk"`
}

// Parallel is when a vector kernel splits over threads: the least bytes of
// x each piece gets. A vector of fewer than twice that many bytes runs on
// the calling goroutine alone, so 2× the value is the size from which a
// second thread is used (internal/num: Single, Chunks).
type Parallel struct {
	Cheap  PerDType `json:"elem_cheap"` // elem: Add, Mul, Axpy, ReLU
	Math   PerDType `json:"elem_math"`  // elem: Exp, Tanh, Sigmoid
	Reduce PerDType `json:"reduce"`     // reduce: Sum, Dot, Max
}

// PerDType is one parameter per element type, in bytes of x.
type PerDType struct {
	F32 int `json:"f32"`
	F64 int `json:"f64"`
}

// Elems is p for T in elements of T (at least 1): the minChunk of
// internal/num.
func Elems[T num.Float](p PerDType) int {
	if num.Size[T]() == 4 {
		return num.Elems[T](p.F32)
	}
	return num.Elems[T](p.F64)
}

// MaxPieceBytes bounds every parameter: 1 TiB, more than any vector, so the
// largest value means "never split" (or never store non-temporally).
const MaxPieceBytes = 1 << 40

// Defaults are the built-in values, measured by hand on the 2-core Zen 4
// development VM (the math piece on the 2-vCPU Intel VM too), where a call handed to a pooled worker costs about half a
// microsecond (internal/num):
//   - cheap ops: from pieces of 64 KiB of x on, two threads mostly ran add,
//     axpy and ReLU 1.2–2× as fast as one; below that no faster, and axpy
//     slower;
//   - exp, tanh, sigmoid: 16 KiB of x a piece. A piece pays where its
//     arithmetic takes as long as handing it over: on the 2-vCPU Intel VM
//     of docs/tuning.md a handoff cost about 1.3 µs and the zmm kernels
//     0.035–0.063 ns a byte of x, so 20–37 KiB; there, over 4–64 Ki
//     elements (f32 and f64, pieces of 4 KiB to no split timed in turn,
//     twice), 32 KiB ran within 3% of the fastest everywhere, 16 KiB up to
//     1.5× as long (at 32 KiB of x, which it splits), and the 1024
//     elements this was before 1.1–3.8× as long. On Zen 4, a 0.45 µs
//     handoff and 512-bit vectors run as two halves give about 6 KiB by
//     the same rule (4 KiB was measured there). 16 KiB lies between the
//     two; -tune measures the machine's own;
//   - reductions: two threads ran sum, dot and max 1.1–1.5× as fast as one
//     on 256 KiB vectors and, but for dot, no faster on 128 KiB ones.
//
// The non-temporal crossovers follow this machine's caches
// (DefaultNonTemporalBytes), as the AVX-512 ones do (defaultZMM).
func Defaults() Params {
	return Params{Parallel: Parallel{
		Cheap:  PerDType{F32: 64 << 10, F64: 64 << 10},
		Math:   PerDType{F32: 16 << 10, F64: 16 << 10},
		Reduce: PerDType{F32: 128 << 10, F64: 128 << 10},
	}, NonTemporal: defaultNonTemporal(), GEMM: defaultGEMM(), ZMM: defaultZMM(), GEMV: defaultGEMV(),
		FFT: defaultFFT(), Walk: defaultWalk()}
}

// Field is one parameter by its name in the file ("parallel.reduce.f64").
type Field struct {
	Name string
	Ptr  *int
}

// Fields lists every parameter of p, in the order -tune searches them.
func (p *Params) Fields() []Field {
	f := []Field{
		{"parallel.elem_cheap.f32", &p.Parallel.Cheap.F32},
		{"parallel.elem_cheap.f64", &p.Parallel.Cheap.F64},
		{"parallel.reduce.f32", &p.Parallel.Reduce.F32},
		{"parallel.reduce.f64", &p.Parallel.Reduce.F64},
		{"parallel.elem_math.f32", &p.Parallel.Math.F32},
		{"parallel.elem_math.f64", &p.Parallel.Math.F64},
		{"nontemporal.quantize", &p.NonTemporal.Quantize},
		{"nontemporal.dequantize", &p.NonTemporal.Dequantize},
	}
	f = append(f, p.gemmFields()...)
	f = append(f, p.zmmFields()...)
	f = append(f, Field{"nontemporal.elem", &p.NonTemporal.Elem})
	f = append(f, p.gemvFields()...)
	f = append(f, p.fftFields()...)
	return append(f, p.walkFields()...)
}

// Validate says which value is out of range, if any: every value, in bytes
// (gemm.parallel: multiply-adds), is from 0 (split whenever there are
// threads; store non-temporally always; never run GEMM unpacked) to
// MaxPieceBytes (never; GEMM: always unpacked); gemm.shape is one of the
// shapes.
func (p Params) Validate() error {
	if err := p.validShape(); err != nil {
		return err
	}
	for _, f := range p.Fields() {
		if v := *f.Ptr; v < 0 || v > MaxPieceBytes {
			return fmt.Errorf("%s = %d is outside 0..%d (bytes)", f.Name, v, MaxPieceBytes)
		}
	}
	return nil
}
