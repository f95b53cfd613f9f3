// Package workload defines what peakbench computes: the operation, its
// operands' shape and type, how much arithmetic and memory traffic it costs,
// seeded random inputs, and a float64 reference to verify results against.
//
// Every backend receives the same Workload and the same Data, so results
// differ only by the library that computed them.
package workload

import (
	"fmt"
	"math"
	"slices"
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

// Ops lists every operation in the order reports show them: the dense ops,
// the quantization ops (QuantOps), the layer ops (LayerOps), the Fourier
// transforms (FFTOps), the sparse ops (SparseOps).
var Ops = slices.Concat([]Op{GEMM, GEMV, AXPY, Dot, Add, Mul, ReLU, Sigmoid, Tanh, Exp, Sum, Max, Softmax}, QuantOps, LayerOps, FFTOps, SparseOps)

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
	if op.Fourier() {
		return KindFFT
	}
	if op.Sparse() {
		return KindSparse
	}
	switch op {
	case GEMM, QLinear: // qlinear: m, n, k as gemm's (quant.go)
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
	// The low-precision types, for gemm only (GEMMOnly): inputs in that
	// type, products accumulated in Accumulator and stored as Output
	// (OutputDType) — the form every library has (MKL's
	// cblas_gemm_bf16bf16f32 and gemm_s8u8s32, oneDNN's matmul, cuBLAS's
	// GemmEx, AMX and VNNI), so each backend computes the same thing.
	F16  DType = "f16"  // IEEE binary16 inputs (11-bit significand), f32 accumulate and output
	BF16 DType = "bf16" // bfloat16 inputs (8-bit significand, f32's exponent), f32 accumulate and output
	TF32 DType = "tf32" // f32 storage, inputs rounded to 11 significant bits (TF32 tensor cores)
	// I8 is signed × signed 8-bit integers, exact s32 accumulation and
	// output (cuBLAS's and oneDNN's s8s8s32; VNNI with compensation).
	I8 DType = "i8"
	// U8S8 is unsigned 8-bit A × signed 8-bit B, s32 accumulation and
	// output: VNNI's own form (VPDPBUSD, TDPBUSD) and MKL's gemm_s8u8s32.
	U8S8 DType = "u8s8"
	// The 8-bit floats of Hopper's tensor cores (OCP FP8), f32 accumulate
	// and output.
	E4M3 DType = "e4m3" // 4-bit exponent, 3 fraction bits, no infinities, largest 448
	E5M2 DType = "e5m2" // 5-bit exponent, 2 fraction bits, largest 57344

	// I32 and U8 are not workloads' types but their parts': the integer
	// gemms' result, and u8s8's A (OperandDType).
	I32 DType = "i32"
	U8  DType = "u8"
)

// DTypes lists the element types every backend computes, the default set.
var DTypes = []DType{F32, F64}

// GEMMDTypes lists the low-precision types, which apply to gemm only and
// which only backends that declare them compute (backend.Declarer).
var GEMMDTypes = []DType{F16, BF16, TF32, I8, U8S8, E4M3, E5M2}

// ParseDType returns the DType named s.
// u8 is quantize's and dequantize's asymmetric type (Op.Accepts says which
// ops take which type).
func ParseDType(s string) (DType, error) {
	if DType(s) == F32 || DType(s) == F64 || DType(s) == U8 || slices.Contains(GEMMDTypes, DType(s)) {
		return DType(s), nil
	}
	names := []string{string(F32), string(F64)}
	for _, d := range GEMMDTypes {
		names = append(names, string(d))
	}
	names = append(names, string(U8))
	return "", fmt.Errorf("unknown dtype %q (accepted: %s)", s, strings.Join(names, ", "))
}

// GEMMOnly reports whether d is a low-precision type, valid for gemm only.
func (d DType) GEMMOnly() bool { return slices.Contains(GEMMDTypes, d) }

// Integer reports whether d is an integer type, whose gemm is exact.
func (d DType) Integer() bool { return d == I8 || d == U8S8 || d == I32 || d == U8 }

// maxIntProduct is the largest |a·b| of an integer type's operands (i8:
// −128·−128; u8s8: 255·−128), 0 for the others.
func maxIntProduct(d DType) float64 {
	switch d {
	case I8:
		return 128 * 128
	case U8S8:
		return 255 * 128
	}
	return 0
}

// OperandDType is the type of a gemm's input i (0: A, 1: B): u8s8's A is
// u8 and its B i8; every other type's inputs are of the type itself.
func (d DType) OperandDType(i int) DType {
	if d == U8S8 {
		return [2]DType{U8, I8}[min(i, 1)]
	}
	return d
}

// Accumulator is the type products are summed in: i32 for the integer
// types, f32 for the other low-precision ones, d itself for f32 and f64.
func (d DType) Accumulator() DType {
	switch {
	case d.Integer():
		return I32
	case d.GEMMOnly():
		return F32
	}
	return d
}

// OutputDType is the type of a gemm's result: the accumulator's (i32 for
// the integer types, f32 for the others).
func (d DType) OutputDType() DType { return d.Accumulator() }

// Describe names the input, accumulation and output types where they
// differ: "bf16 → f32 accumulate, f32 out".
func (d DType) Describe() string {
	if !d.GEMMOnly() || d == TF32 {
		return string(d)
	}
	return fmt.Sprintf("%s → %s accumulate, %s out", d, d.Accumulator(), d.OutputDType())
}

// Size is the size of one element in bytes (tf32 is stored as f32).
func (d DType) Size() int {
	switch d {
	case F32, TF32, I32:
		return 4
	case F16, BF16:
		return 2
	case I8, U8S8, U8, E4M3, E5M2:
		return 1
	}
	return 8
}

// Epsilon is the unit roundoff, 2^-p, of the type (p significant bits):
// f64 2^-53, f32 2^-24, f16 and tf32 2^-11 (10 stored bits), bf16 2^-8,
// e4m3 2^-4, e5m2 2^-3; 0 for the integer types, which are exact.
func (d DType) Epsilon() float64 {
	switch d {
	case F32:
		return 0x1p-24
	case F16, TF32:
		return 0x1p-11
	case BF16:
		return 0x1p-8
	case E4M3:
		return 0x1p-4
	case E5M2:
		return 0x1p-3
	case I8, U8S8, U8, I32:
		return 0
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
	if err := w.validateDType(); err != nil { // quant.go
		return err
	}
	if w.Op.Layer() {
		return w.validateLayer()
	}
	if w.Op.Quant() {
		return w.validateQuant()
	}
	if w.Op.Fourier() {
		if err := w.validateFFT(); err != nil { // fft.go
			return err
		}
	}
	if w.Op.Sparse() {
		return w.validateSparse() // sparse.go
	}
	s := w.Shape
	if p := maxIntProduct(w.DType); p > 0 && float64(s.K)*p > math.MaxInt32 {
		return fmt.Errorf("%s: k=%d: an %s sum of k products of 8-bit integers may overflow its s32 result (k at most %d)", w.Op, s.K, w.DType, int(math.MaxInt32/p))
	}
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
		return fmt.Errorf("%s: shape %s holds %s", w.Op, s.Format(w.Op), tooManyElements(n))
	}
	return nil
}

// elementCount is Elements in float64, which cannot overflow: a gemm of
// 2³² per side holds 3·2⁶⁴ elements, which int arithmetic wraps to 0.
func (w Workload) elementCount() float64 {
	if w.Op.Layer() {
		return w.layerElements()
	}
	if w.Op.Quant() {
		return w.quantElements()
	}
	if w.Op.Fourier() {
		in, out := w.fftCounts()
		return in + out
	}
	if w.Op.Sparse() {
		return w.sparseElements()
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

// tooManyElements says that a workload's n elements are more than
// maxElements, in the units a user writes -size in.
func tooManyElements(n float64) string {
	return fmt.Sprintf("%.3g Gi elements, more than the 1 Gi (8 GiB in f64) one workload may hold", n/maxElements)
}

// Elements is the number of elements of all operands together, for a
// workload that passes Validate (at most maxElements).
func (w Workload) Elements() int {
	if w.Op.Layer() {
		return int(w.layerElements())
	}
	if w.Op.Quant() {
		return int(w.quantElements())
	}
	if w.Op.Fourier() {
		in, out := w.fftCounts() // reals: a complex element counts twice
		return int(in + out)
	}
	if w.Op.Sparse() {
		return int(w.sparseElements())
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
//	quantize, dequantize, convert, widen   n;  qlinear  2·m·n·k + 2·m·n  (quant.go)
//	fft, ifft 5·N·log₂N per transform of N points, rfft half (benchFFT's convention, fftFLOPs in fft.go)
//	spmv     2·nnz            spmm  2·nnz·k
//	csr2coo, coo2csr, csr2csc  0   (format conversions: no arithmetic)
//
// Transcendental functions count as one operation each: their cost in
// instructions depends on the library, and a report must compare the same unit.
func (w Workload) FLOPs() float64 {
	if w.Op.Layer() {
		return w.layerFLOPs()
	}
	if w.Op.Quant() {
		return w.quantFLOPs()
	}
	if w.Op.Fourier() {
		return w.fftFLOPs()
	}
	if w.Op.Sparse() {
		return w.sparseFLOPs()
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
//	quantization ops: every operand in its own type (quantOperands)
//	fft, ifft (2·B·N + 2·B·N)·size   (complex input and output, N points per transform)
//	rfft     (B·N + 2·B·R·(C/2+1))·size   (real input; complex half-spectrum output)
//	spmv     (nnz + cols + rows)·size   (values, x once, y; EffectiveBytes adds CSR's indices and x per entry)
//	spmm     (nnz + (cols + rows)·k)·size
//	csr2coo  4·(rows+1) + 4·nnz   (row pointers read, row indices written; int32)
//	coo2csr  4·nnz + 4·(rows+1)
//	csr2csc  2·(size+4)·nnz + 4·(rows+1) + 4·(cols+1)   (values and indices both ways, pointers)
func (w Workload) Bytes() float64 {
	if w.Op.Sparse() {
		return w.sparseBytes() // sparse.go: whatever the format
	}
	return w.Footprint() + w.extraWrites()
}

// Footprint is the memory the operands occupy, each counted once (axpy's y
// too): what a cache level must hold for a run to stay in it, and so what
// picks the level a result is compared with. It is Bytes but for an
// in-place output's second count.
func (w Workload) Footprint() float64 {
	if w.Op.Quant() {
		return w.quantFootprint()
	}
	if w.Op.Sparse() {
		return w.sparseFootprint() // sparse.go: Bytes and CSR's indices
	}
	if w.Op == GEMM && w.DType.OutputDType() != w.DType {
		out := float64(w.OutputLen())
		return (float64(w.Elements())-out)*float64(w.DType.Size()) + out*float64(w.DType.OutputDType().Size())
	}
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
	if w.Op.SparseConversion() {
		_, written := w.conversionIO() // indices in int32 beside values
		return written
	}
	return float64(w.OutputLen()) * float64(w.OutputDType().Size())
}

// AccumulatorDType is the type a low-precision gemm or qlinear sums its
// products in (i32, f32); "" for every other workload.
func (w Workload) AccumulatorDType() DType {
	switch {
	case w.Op == QLinear:
		return I32
	case w.Op == GEMM && w.DType.GEMMOnly():
		return w.DType.Accumulator()
	}
	return ""
}

// OutputDType is the type the workload's output is stored in: a gemm's
// DType.OutputDType, a quantization op's (dequantize: f32), the operands'
// type elsewhere.
func (w Workload) OutputDType() DType {
	if w.Op.Quant() {
		return w.quantOutputDType()
	}
	if w.Op == GEMM {
		return w.DType.OutputDType()
	}
	return w.DType
}

// InPlace says whether the workload stores into the data it reads (axpy's
// y): its stores then need no line of their own (write-allocate), which
// picks the bandwidth pattern it is compared with.
func (w Workload) InPlace() bool { return w.Op == AXPY }

// OneInput reports whether the workload streams a single input array:
// the unary element-wise functions, the one-vector reductions, softmax
// and the quantization conversions (not qlinear). A stream storing the
// triad's share of its bytes from one input is not a triad, which reads
// two (peak.PatternFor).
func (w Workload) OneInput() bool {
	switch w.Op {
	case ReLU, Sigmoid, Tanh, Exp, Sum, Max, Softmax, Quantize, Dequantize, Convert, Widen:
		return true
	}
	return false
}

// Intensity is the arithmetic intensity in FLOP per byte.
func (w Workload) Intensity() float64 { return w.FLOPs() / w.Bytes() }

// OutputLen is the number of elements a kernel's Output returns.
func (w Workload) OutputLen() int {
	if w.Op.Layer() {
		return w.layerOutputLen()
	}
	if w.Op.Quant() {
		return w.quantOutputLen()
	}
	if w.Op.Fourier() {
		_, out := w.fftCounts() // interleaved (re, im)
		return int(out)
	}
	if w.Op.SparseConversion() {
		return w.conversionOutputLen() // sparse_convert.go
	}
	if w.Op.Sparse() {
		return w.Shape.Sparse.Rows * w.denseColumns()
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
