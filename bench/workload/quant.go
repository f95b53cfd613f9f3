package workload

import (
	"fmt"
	"slices"
	"strings"
)

// The quantization ops, as PyTorch (quantize_per_tensor, quantize_per_channel,
// dequantize, quantized.linear) and oneDNN (reorders with scales and zero
// points, int8 matmul) define them. Each has its own dtypes (QuantDTypes).
const (
	// Quantize is q = clamp(rne(x·(1/scale)) + zp) from f32 x: i8
	// symmetric (zp 0, −128…127), u8 asymmetric (0…255).
	Quantize Op = "quantize"
	// Dequantize is x = scale·(q − zp) into f32, from i8 or u8 q.
	Dequantize Op = "dequantize"
	// Convert narrows f32 to bf16 or f16, rounding to nearest even.
	Convert Op = "convert"
	// Widen is Convert's way back: bf16 or f16 to f32 (exact).
	Widen Op = "widen"
	// QLinear is the quantized linear layer: y = scale_x·scale_w·(x_q·W_qᵀ)
	// + bias, x_q m×k (u8 for u8s8, s8 for i8), W_q n×k s8, y and bias f32.
	QLinear Op = "qlinear"
)

// QuantOps lists the quantization ops in report order.
var QuantOps = []Op{Quantize, Dequantize, Convert, Widen, QLinear}

// Quant reports whether op is a quantization op.
func (op Op) Quant() bool { return slices.Contains(QuantOps, op) }

// QuantDTypes lists the dtypes a quantization op computes in (the first is
// its default with -dtype=all); nil for the other ops.
func (op Op) QuantDTypes() []DType {
	switch op {
	case Quantize, Dequantize:
		return []DType{I8, U8}
	case Convert, Widen:
		return []DType{BF16, F16}
	case QLinear:
		return []DType{U8S8, I8}
	}
	return nil
}

// Accepts reports whether op is defined in dt: a quantization op in its
// QuantDTypes, gemm in f32, f64 and GEMMDTypes, every other op in f32 and
// f64.
func (op Op) Accepts(dt DType) bool { return slices.Contains(op.dtypes(), dt) }

// opsAccepting names the ops defined in dt, for error messages.
func opsAccepting(dt DType) string {
	var names []string
	for _, op := range Ops {
		if op.Accepts(dt) {
			names = append(names, string(op))
		}
	}
	return strings.Join(names, ", ")
}

// validateDType says why w's op is not defined in its dtype:
// "-op=exp -dtype=i8" reads "dtype i8 applies to gemm, quantize, dequantize,
// qlinear only".
func (w Workload) validateDType() error {
	if w.Op.Accepts(w.DType) {
		return nil
	}
	if w.Op.Quant() {
		return opDTypeError(w.Op, []DType{w.DType})
	}
	return dtypeError(w.DType)
}

// opDTypeError says which dtypes op takes: "quantize takes dtype i8 or u8,
// not f32", "axpy takes dtype f32 or f64, not i8".
func opDTypeError(op Op, not []DType) error {
	return fmt.Errorf("%s takes dtype %s, not %s", op, joinDTypes(op.dtypes()), joinDTypes(not))
}

// dtypes lists the dtypes op is defined in.
func (op Op) dtypes() []DType {
	switch {
	case op.Quant():
		return op.QuantDTypes()
	case op == GEMM:
		return gemmDTypes
	}
	return DTypes
}

// gemmDTypes are gemm's: f32, f64 and the low-precision ones.
var gemmDTypes = append(slices.Clip(DTypes), GEMMDTypes...)

// dtypeError says which ops dt applies to.
func dtypeError(dt DType) error {
	return fmt.Errorf("dtype %s applies to %s only", dt, opsAccepting(dt))
}

// joinDTypes writes "i8 or u8", "f32, f64 or f16".
func joinDTypes(dts []DType) string {
	s := make([]string, len(dts))
	for i, d := range dts {
		s[i] = string(d)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// PerChannel reports whether a quantize or dequantize workload has one
// scale and zero point per row (shape MxN:channel) rather than one for the
// whole tensor.
func (w Workload) PerChannel() bool {
	return (w.Op == Quantize || w.Op == Dequantize) && w.Shape.M > 0
}

// channelSuffix marks a per-channel shape: "1024x4096:channel" is 1024
// channels (rows) of 4096 elements, each with its own scale and zero point.
const channelSuffix = "channel"

// parseQuant reads a quantization op's -size: qlinear as gemm's MxNxK (or
// N), without transposes (W is n×k, as PyTorch's Linear stores it); the
// others an element count, and quantize and dequantize also
// ROWSxCOLS:channel. A per-tensor shape is an element count only, so one
// workload has one spelling.
func parseQuant(op Op, s string) (Shape, error) {
	dims, suffix, hasSuffix := strings.Cut(s, ":")
	if op == QLinear {
		if hasSuffix {
			return Shape{}, fmt.Errorf("size %q: qlinear takes N or MxNxK (W is n×k; no transposes)", s)
		}
		return ParseShape(GEMM, s)
	}
	perChannel := op == Quantize || op == Dequantize
	if hasSuffix {
		if !perChannel || suffix != channelSuffix {
			return Shape{}, fmt.Errorf("size %q: %s takes an element count%s", s, op, channelHint(perChannel))
		}
		rc := strings.Split(dims, "x")
		if len(rc) != 2 {
			return Shape{}, fmt.Errorf("size %q: a per-channel size is ROWSxCOLS:channel", s)
		}
		m, err := ParseCount(rc[0])
		if err != nil {
			return Shape{}, fmt.Errorf("size %q: %v", s, err)
		}
		n, err := ParseCount(rc[1])
		if err != nil {
			return Shape{}, fmt.Errorf("size %q: %v", s, err)
		}
		return Shape{M: m, N: n}, nil
	}
	n, err := ParseCount(dims)
	if err != nil {
		return Shape{}, fmt.Errorf("size %q: %s takes an element count%s: %v", s, op, channelHint(perChannel), err)
	}
	return Shape{N: n}, nil
}

func channelHint(perChannel bool) string {
	if perChannel {
		return " or ROWSxCOLS:channel"
	}
	return ""
}

// formatQuant writes a quantization op's shape as parseQuant reads it.
func (s Shape) formatQuant(op Op) string {
	switch {
	case op == QLinear:
		return fmt.Sprintf("%dx%dx%d", s.M, s.N, s.K)
	case s.M > 0:
		return fmt.Sprintf("%dx%d:%s", s.M, s.N, channelSuffix)
	}
	return fmt.Sprint(s.N)
}

// quantRows is the number of rows (channels) of a quantize or dequantize
// workload: M per channel, 1 per tensor.
func (w Workload) quantRows() int { return max(w.Shape.M, 1) }

// quantLen is the element count of an element-wise quantization op.
func (w Workload) quantLen() int { return w.quantRows() * w.Shape.N }

// quantOperands lists the operands of a quantization workload in Data.Args
// order (the output last), each with its element count and type:
//
//	quantize    x (f32), scales (f32, one per channel), zero points (i32), q (i8/u8)
//	dequantize  q (i8/u8), scales, zero points, x (f32)
//	convert     x (f32), y (bf16/f16)       widen  x (bf16/f16), y (f32)
//	qlinear     x_q (m×k, u8/s8), W_q (n×k, s8), bias (n, f32), the two scales (f32), y (m×n, f32)
func (w Workload) quantOperands() []operand {
	s, dt := w.Shape, w.DType
	n, rows := float64(w.quantLen()), float64(w.quantRows())
	switch w.Op {
	case Quantize:
		return []operand{{n, F32}, {rows, F32}, {rows, I32}, {n, dt}}
	case Dequantize:
		return []operand{{n, dt}, {rows, F32}, {rows, I32}, {n, F32}}
	case Convert:
		return []operand{{n, F32}, {n, dt}}
	case Widen:
		return []operand{{n, dt}, {n, F32}}
	}
	m, nn, k := float64(s.M), float64(s.N), float64(s.K)
	return []operand{{m * k, dt.OperandDType(0)}, {nn * k, I8}, {nn, F32}, {2, F32}, {m * nn, F32}}
}

type operand struct {
	elems float64
	dtype DType
}

// quantElements counts every operand's elements, the output included.
func (w Workload) quantElements() float64 {
	var e float64
	for _, o := range w.quantOperands() {
		e += o.elems
	}
	return e
}

// quantFootprint is the bytes of every operand, each in its own type: the
// element-wise ops read their input and write their output once (the
// scales and zero points, one per channel, are a rounding error beside
// them), so it is their Bytes as well.
func (w Workload) quantFootprint() float64 {
	var b float64
	for _, o := range w.quantOperands() {
		b += o.elems * float64(o.dtype.Size())
	}
	return b
}

// quantOutputDType is the type a quantization op stores its output in.
func (w Workload) quantOutputDType() DType {
	ops := w.quantOperands()
	return ops[len(ops)-1].dtype
}

// quantOutputLen is the element count of the output.
func (w Workload) quantOutputLen() int {
	if w.Op == QLinear {
		return w.Shape.M * w.Shape.N
	}
	return w.quantLen()
}

// quantFLOPs: one operation per element for the element-wise ops (they are
// memory-bound: what matters is their bytes), and for qlinear the integer
// gemm's 2·m·n·k plus the scaling and the bias, 2·m·n.
func (w Workload) quantFLOPs() float64 {
	if w.Op == QLinear {
		m, n, k := float64(w.Shape.M), float64(w.Shape.N), float64(w.Shape.K)
		return 2*m*n*k + 2*m*n
	}
	return float64(w.quantLen())
}

// validateQuant checks a quantization workload's shape.
func (w Workload) validateQuant() error {
	s := w.Shape
	if w.Op == QLinear {
		if s.M < 1 || s.N < 1 || s.K < 1 {
			return fmt.Errorf("%s: shape %s: m, n and k must be at least 1", w.Op, s.Format(w.Op))
		}
		if float64(s.K)*255*128 > 1<<31-1 {
			return fmt.Errorf("%s: k=%d: a sum of k products of 8-bit integers may overflow its s32 accumulator (k at most %d)", w.Op, s.K, (1<<31-1)/(255*128))
		}
	} else if s.N < 1 || s.M < 0 {
		return fmt.Errorf("%s: size %s: must be at least 1", w.Op, s.Format(w.Op))
	}
	if n := w.quantElements(); n > maxElements {
		return fmt.Errorf("%s: shape %s holds %s", w.Op, s.Format(w.Op), tooManyElements(n))
	}
	return nil
}

// ComputeDType is the dtype whose compute peak bounds w: f32 for the
// element-wise quantization ops, whose arithmetic is f32 whatever they
// store (their roofline is then their bandwidth, as it should be); w's
// own dtype for every other workload.
func (w Workload) ComputeDType() DType {
	if w.Op.Quant() && w.Op != QLinear {
		return F32
	}
	return w.DType
}
