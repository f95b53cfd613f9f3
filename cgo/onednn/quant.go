package onednn

import (
	"fmt"
	"math"
	"unsafe"
)

// QuantOp is a quantization reorder.
type QuantOp int

// The quantization reorders (include/peakbench.h, pb_dnnl_quant_op).
const (
	// Quantize is q = saturate(rne(x·fl32(1/scale)) + zp), f32 x to s8 or
	// u8 q; oneDNN adds zp in f32 before rounding (see PrepareQuant).
	Quantize QuantOp = iota
	// Dequantize is x = fl32(scale·(q − zp)), s8 or u8 q to f32 x.
	Dequantize
)

func (op QuantOp) String() string {
	switch op {
	case Quantize:
		return "quantize"
	case Dequantize:
		return "dequantize"
	}
	return fmt.Sprintf("QuantOp(%d)", int(op))
}

// QuantSpec is what a quantization reorder works on: rows×cols elements,
// row-major, with one scale and zero point for the whole tensor, or one
// per row when PerChannel.
type QuantSpec struct {
	Op       QuantOp
	Unsigned bool // u8; else s8
	Rows     int
	Cols     int
	// PerChannel: Scales and ZeroPoints hold one value per row; else one.
	PerChannel bool
	Scales     []float32
	ZeroPoints []int32
}

func (s QuantSpec) typeName() string {
	if s.Unsigned {
		return "u8"
	}
	return "i8"
}

// PrepareQuant creates a quantize or dequantize reorder: arguments 0 the
// input (f32 x, or q), 1 the output. SetInput converts into the argument's
// type (q's values must be integers in its range); Output widens. The
// job's Implementation is oneDNN's reorder (e.g. "jit:uni"). oneDNN 2.x
// takes a per-tensor zero point only: per-channel zero points that differ
// between rows give an error wrapping ErrUnsupported.
//
// Rounding: quantize hands oneDNN the multiplier 1/scale rounded to f32,
// and oneDNN computes rne(fl32(fl32(x·(1/scale)) + zp)): equal to
// rne(x·(1/scale)) + zp but where x·(1/scale) lies on a half-integer or
// within the f32 rounding of the sum of one, where an odd zero point
// makes it one step apart.
func (l *Library) PrepareQuant(s QuantSpec, opt JobOptions) (*Job, error) {
	l.check()
	if s.Op != Quantize && s.Op != Dequantize {
		return nil, fmt.Errorf("onednn: quantization: bad op %d", int(s.Op))
	}
	what := s.Op.String() + " " + s.typeName()
	if s.Rows < 1 || s.Cols < 1 {
		return nil, fmt.Errorf("onednn: %s: shape %d×%d: rows and columns must be at least 1", what, s.Rows, s.Cols)
	}
	want := 1
	if s.PerChannel {
		want = s.Rows
	}
	if len(s.Scales) != want || len(s.ZeroPoints) != want {
		return nil, fmt.Errorf("onednn: %s: %d scales and %d zero points, want %d of each", what, len(s.Scales), len(s.ZeroPoints), want)
	}
	for i, v := range s.Scales {
		if !(v > 0) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("onednn: %s: scale %d is %g: a positive finite value", what, i, v)
		}
	}
	return l.newJob(what, opt, func() (unsafe.Pointer, error) { return l.quantJob(s, opt) })
}

// QuantImplementation returns the reorder oneDNN picks for a small
// per-tensor s8 quantize (its impl_info_str, e.g. "jit:uni"), or "" when
// the library cannot make one (a version without output scales). Asked
// once and kept; a job of another shape or type may get another
// implementation: Implementation(job) says which it runs.
func (l *Library) QuantImplementation() string {
	l.check()
	l.quantOnce.Do(func() {
		job, err := l.PrepareQuant(QuantSpec{Op: Quantize, Rows: 1, Cols: 64, Scales: []float32{1}, ZeroPoints: []int32{0}}, JobOptions{})
		if err != nil {
			return
		}
		l.quantImpl = Implementation(job)
		job.Close()
	})
	return l.quantImpl
}
