// Package workload defines what peakbench computes: the operation, its
// operands' shape and type, how much arithmetic and memory traffic it costs,
// seeded random inputs, and a float64 reference to verify results against.
//
// Every backend receives the same Workload and the same Data, so results
// differ only by the library that computed them.
package workload

import (
	"fmt"
	"strings"
)

// Op names an operation.
type Op string

// The operations. Matrices are row-major.
const (
	GEMM    Op = "gemm"    // C = op(A)·op(B); op(A) m×k, op(B) k×n
	GEMV    Op = "gemv"    // y = A·x; A m×n
	AXPY    Op = "axpy"    // y = alpha·x + y
	Dot     Op = "dot"     // s = x·y
	Add     Op = "add"     // z = x + y
	Mul     Op = "mul"     // z = x ⊙ y
	ReLU    Op = "relu"    // y = max(x, 0)
	Sigmoid Op = "sigmoid" // y = 1/(1+e^-x)
	Tanh    Op = "tanh"    // y = tanh(x)
	Exp     Op = "exp"     // y = e^x
	Sum     Op = "sum"     // s = Σx
	Max     Op = "max"     // s = max x
	Softmax Op = "softmax" // y[r] = softmax(x[r]) for each of m rows of n columns
)

// Ops lists every operation in the order reports show them (the layer
// operations, LayerOps, last).
var Ops = append([]Op{GEMM, GEMV, AXPY, Dot, Add, Mul, ReLU, Sigmoid, Tanh, Exp, Sum, Max, Softmax}, LayerOps...)

// ParseOp returns the Op named s.
func ParseOp(s string) (Op, error) {
	for _, op := range Ops {
		if string(op) == s {
			return op, nil
		}
	}
	return "", fmt.Errorf("unknown op %q (accepted: %s)", s, joinOps(Ops))
}

func joinOps(ops []Op) string {
	s := make([]string, len(ops))
	for i, op := range ops {
		s[i] = string(op)
	}
	return strings.Join(s, ", ")
}

// Kind groups operations by the shape of their operands.
type Kind int

const (
	KindMatMul Kind = iota // gemm: m, n, k
	KindMatVec             // gemv: m, n
	KindVector             // element-wise and reductions: n elements
	KindRows               // softmax: m rows × n columns
)

// Kind tells how op's shape is given.
func (op Op) Kind() Kind {
	if op.Layer() {
		return op.layerKind()
	}
	switch op {
	case GEMM:
		return KindMatMul
	case GEMV:
		return KindMatVec
	case Softmax:
		return KindRows
	}
	return KindVector
}

// Reduces reports whether op produces one scalar.
func (op Op) Reduces() bool { return op == Dot || op == Sum || op == Max }

// Transcendental reports whether op evaluates exp or tanh, whose results
// libraries approximate to a few ulp rather than round correctly.
func (op Op) Transcendental() bool {
	return op == Sigmoid || op == Tanh || op == Exp || op == Softmax
}

// DType is an element type.
type DType string

const (
	F32 DType = "f32"
	F64 DType = "f64"
	// The reduced-precision types of tensor cores, for gemm only (GEMMOnly):
	// inputs and output in that type, products accumulated in f32.
	F16  DType = "f16"  // IEEE binary16: 11-bit significand, 5-bit exponent
	BF16 DType = "bf16" // bfloat16: 8-bit significand, f32's 8-bit exponent
	TF32 DType = "tf32" // f32 storage, inputs rounded to 11 significant bits (TF32 tensor cores)
)

// DTypes lists the element types every backend computes, the default set.
var DTypes = []DType{F32, F64}

// GEMMDTypes lists the reduced-precision types, which apply to gemm only
// and which only backends that say so compute (GPU backends).
var GEMMDTypes = []DType{F16, BF16, TF32}

// ParseDType returns the DType named s.
func ParseDType(s string) (DType, error) {
	switch DType(s) {
	case F32, F64, F16, BF16, TF32:
		return DType(s), nil
	}
	return "", fmt.Errorf("unknown dtype %q (accepted: f32, f64, f16, bf16, tf32)", s)
}

// GEMMOnly reports whether d is a reduced-precision type, valid for gemm only.
func (d DType) GEMMOnly() bool { return d == F16 || d == BF16 || d == TF32 }

// Size is the size of one element in bytes (tf32 is stored as f32).
func (d DType) Size() int {
	switch d {
	case F32, TF32:
		return 4
	case F16, BF16:
		return 2
	}
	return 8
}

// Epsilon is the unit roundoff, 2^-p, of the type (p significant bits):
// f64 2^-53, f32 2^-24, f16 and tf32 2^-11 (10 stored bits), bf16 2^-8.
func (d DType) Epsilon() float64 {
	switch d {
	case F32:
		return 0x1p-24
	case F16, TF32:
		return 0x1p-11
	case BF16:
		return 0x1p-8
	}
	return 0x1p-53
}

// Workload is one operation on one shape and type.
type Workload struct {
	Op    Op
	DType DType
	Shape Shape
}

func (w Workload) String() string {
	return fmt.Sprintf("%s %s %s", w.Op, w.DType, w.Shape.Format(w.Op))
}

// Validate reports whether the shape suits the op.
func (w Workload) Validate() error {
	if w.DType.GEMMOnly() && w.Op != GEMM {
		return fmt.Errorf("dtype %s applies to gemm only", w.DType)
	}
	if w.Op.Layer() {
		return w.validateLayer()
	}
	s := w.Shape
	switch w.Op.Kind() {
	case KindMatMul:
		if s.M < 1 || s.N < 1 || s.K < 1 {
			return fmt.Errorf("%s: shape %s: m, n and k must be at least 1", w.Op, s.Format(w.Op))
		}
	case KindMatVec, KindRows:
		if s.M < 1 || s.N < 1 {
			return fmt.Errorf("%s: shape %s: rows and columns must be at least 1", w.Op, s.Format(w.Op))
		}
	default:
		if s.N < 1 {
			return fmt.Errorf("%s: size %d: must be at least 1", w.Op, s.N)
		}
	}
	if n := w.elementCount(); n > maxElements {
		return fmt.Errorf("%s: shape %s holds %.0f elements, more than the %d this harness allocates", w.Op, s.Format(w.Op), n, maxElements)
	}
	return nil
}

// elementCount is Elements in float64, which cannot overflow: a gemm of
// 2³² per side holds 3·2⁶⁴ elements, which int arithmetic wraps to 0.
func (w Workload) elementCount() float64 {
	if w.Op.Layer() {
		return w.layerElements()
	}
	s := w.Shape
	m, n, k := float64(s.M), float64(s.N), float64(s.K)
	switch w.Op.Kind() {
	case KindMatMul:
		return m*k + k*n + m*n
	case KindMatVec:
		return m*n + n + m
	case KindRows:
		return 2 * m * n
	}
	switch w.Op {
	case Add, Mul:
		return 3 * n
	case Sum, Max:
		return n
	}
	return 2 * n
}

// maxElements bounds one workload's operands (1 Gi elements: 8 GiB in f64).
const maxElements = 1 << 30

// Elements is the number of elements of all operands together, for a
// workload that passes Validate (at most maxElements).
func (w Workload) Elements() int {
	if w.Op.Layer() {
		return int(w.layerElements())
	}
	s := w.Shape
	switch w.Op.Kind() {
	case KindMatMul:
		return s.M*s.K + s.K*s.N + s.M*s.N
	case KindMatVec:
		return s.M*s.N + s.N + s.M
	case KindRows:
		return 2 * s.M * s.N
	}
	n := s.N
	switch w.Op {
	case Add, Mul:
		return 3 * n
	case Sum, Max:
		return n
	}
	return 2 * n // axpy, dot, unary
}

// FLOPs is the floating-point work of one run, by the usual conventions:
//
//	gemm     2·m·n·k          (one multiply and one add per term)
//	gemv     2·m·n
//	axpy     2·n              dot  2·n
//	add, mul, relu, sigmoid, tanh, exp, sum, max   n   (one op per element)
//	softmax  5·m·n            (max, subtract, exp, sum, divide per element)
//	layer ops (conv, pools, norms): see layerFLOPs in layer.go
//
// Transcendental functions count as one operation each: their cost in
// instructions depends on the library, and a report must compare the same unit.
func (w Workload) FLOPs() float64 {
	if w.Op.Layer() {
		return w.layerFLOPs()
	}
	s := w.Shape
	m, n, k := float64(s.M), float64(s.N), float64(s.K)
	switch w.Op {
	case GEMM:
		return 2 * m * n * k
	case GEMV:
		return 2 * m * n
	case AXPY, Dot:
		return 2 * n
	case Softmax:
		return 5 * m * n
	}
	return n
}

// Bytes is the minimum memory traffic of one run: every input read once and
// every output written once, in elements of the dtype's size. Write-allocate
// traffic (reading an output's cache line before writing it) is not counted,
// as in STREAM, so figures compare with the triad bandwidth the peak reports.
//
//	gemm     (m·k + k·n + m·n)·size   (beta = 0: C is written, not read)
//	gemv     (m·n + n + m)·size
//	axpy     3·n·size (x, y read; y written)   dot  2·n·size
//	add, mul 3·n·size                          unary ops  2·n·size
//	sum, max n·size                            softmax  2·m·n·size
//	conv     (N·C·D·H·W + K·C·T·R·S + N·K·P)·size   (input, filter, output)
//	pools    (N·C·D·H·W + N·C·P)·size
//	batchnorm (2·N·C·D·H·W + 4·C)·size   (x, y; μ, σ², γ, β)
//	layernorm (2·N·F + 2·F)·size, groupnorm (2·N·C·D·H·W + 2·C)·size
func (w Workload) Bytes() float64 {
	return w.Footprint() + w.extraWrites()
}

// Footprint is the memory the operands occupy, each counted once (axpy's y
// too): what a cache level must hold for a run to stay in it, and so what
// picks the level a result is compared with. It is Bytes but for an
// in-place output's second count.
func (w Workload) Footprint() float64 {
	return float64(w.Elements()) * float64(w.DType.Size())
}

// extraWrites counts an in-place output's write, which Elements counts once
// as an operand: axpy reads and writes y.
func (w Workload) extraWrites() float64 {
	if w.Op == AXPY {
		return float64(w.Shape.N) * float64(w.DType.Size())
	}
	return 0
}

// WrittenBytes is the part of Bytes that is stored: the output (a
// reduction's single result counts as nothing). It picks the bandwidth
// pattern a workload is compared with (peak.PatternFor).
func (w Workload) WrittenBytes() float64 {
	if w.Op.Reduces() {
		return 0
	}
	return float64(w.OutputLen()) * float64(w.DType.Size())
}

// InPlace says whether the workload stores into the data it reads (axpy's
// y): its stores then need no line of their own (write-allocate), which
// picks the bandwidth pattern it is compared with.
func (w Workload) InPlace() bool { return w.Op == AXPY }

// Intensity is the arithmetic intensity in FLOP per byte.
func (w Workload) Intensity() float64 { return w.FLOPs() / w.Bytes() }

// OutputLen is the number of elements a kernel's Output returns.
func (w Workload) OutputLen() int {
	if w.Op.Layer() {
		return w.layerOutputLen()
	}
	s := w.Shape
	switch w.Op.Kind() {
	case KindMatMul:
		return s.M * s.N
	case KindMatVec:
		return s.M
	case KindRows:
		return s.M * s.N
	}
	if w.Op.Reduces() {
		return 1
	}
	return s.N
}
