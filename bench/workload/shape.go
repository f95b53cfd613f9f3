package workload

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Shape holds an operation's dimensions. Which fields matter depends on the
// op's Kind: gemm uses M, N, K and the transposes; gemv and softmax M (rows)
// and N (columns); vector ops N alone.
type Shape struct {
	M, N, K        int
	TransA, TransB bool
	Layer          LayerShape  // the layer ops' geometry (layer.go); zero for the others
	Sparse         SparseShape // the sparse ops' matrix (sparse.go); zero for the others
}

// Format writes the shape as ParseShape reads it: "MxNxK" for gemm (with
// ":TN"-style suffix when a transpose is set), "MxN" for gemv and softmax,
// "N" for vector ops.
func (s Shape) Format(op Op) string {
	if op.Layer() {
		return s.Layer.Format(op)
	}
	if op.Quant() {
		return s.formatQuant(op)
	}
	if op.Fourier() {
		return formatFFT(s)
	}
	if op.Sparse() {
		return s.Sparse.format(op)
	}
	switch op.Kind() {
	case KindMatMul:
		str := fmt.Sprintf("%dx%dx%d", s.M, s.N, s.K)
		if s.TransA || s.TransB {
			str += ":" + transName(s.TransA) + transName(s.TransB)
		}
		return str
	case KindMatVec, KindRows:
		return fmt.Sprintf("%dx%d", s.M, s.N)
	}
	return strconv.Itoa(s.N)
}

func transName(t bool) string {
	if t {
		return "T"
	}
	return "N"
}

// ParseShape reads one -size value for op:
//
//	gemm     N (square) or MxNxK, optionally followed by :NN, :NT, :TN or :TT
//	gemv     N (square) or MxN
//	softmax  ROWSxCOLS
//	others   the element count
//	layer ops  see parseLayer (layer.go), e.g. conv2d 1x64x56x56:64x3x3:p1
//	quantize, dequantize  the element count, or ROWSxCOLS:channel (a scale per row)
//	convert, widen  the element count;  qlinear  N or MxNxK (parseQuant, quant.go)
//	fft, ifft, rfft  N, BxN (a batch), RxC:2d or BxRxC:2d; see parseFFT (fft.go)
//	sparse ops  a matrix, see parseSparse (sparse.go), e.g. uniform:n=64Ki:nnz=1Mi or mtx:FILE.mtx
//
// Counts may carry a suffix: k, M, G (powers of 1000) or Ki, Mi, Gi (of 1024).
func ParseShape(op Op, s string) (Shape, error) {
	if op.Layer() {
		return parseLayer(op, s)
	}
	if op.Quant() {
		return parseQuant(op, s)
	}
	if op.Fourier() {
		return parseFFT(op, s) // fft.go
	}
	if op.Sparse() {
		return parseSparse(op, s)
	}
	var sh Shape
	dims, trans, hasTrans := strings.Cut(s, ":")
	if hasTrans {
		if op.Kind() != KindMatMul {
			return sh, fmt.Errorf("size %q: transposes (:%s) apply to gemm only", s, trans)
		}
		switch strings.ToUpper(trans) {
		case "NN":
		case "NT":
			sh.TransB = true
		case "TN":
			sh.TransA = true
		case "TT":
			sh.TransA, sh.TransB = true, true
		default:
			return sh, fmt.Errorf("size %q: transpose %q is not one of NN, NT, TN, TT", s, trans)
		}
	}
	parts := strings.Split(dims, "x")
	vals := make([]int, len(parts))
	for i, p := range parts {
		v, err := ParseCount(p)
		if err != nil {
			return Shape{}, fmt.Errorf("size %q: %v", s, err)
		}
		vals[i] = v
	}
	switch op.Kind() {
	case KindMatMul:
		switch len(vals) {
		case 1:
			sh.M, sh.N, sh.K = vals[0], vals[0], vals[0]
		case 3:
			sh.M, sh.N, sh.K = vals[0], vals[1], vals[2]
		default:
			return Shape{}, fmt.Errorf("size %q: gemm takes N or MxNxK", s)
		}
	case KindMatVec:
		switch len(vals) {
		case 1:
			sh.M, sh.N = vals[0], vals[0]
		case 2:
			sh.M, sh.N = vals[0], vals[1]
		default:
			return Shape{}, fmt.Errorf("size %q: gemv takes N or MxN", s)
		}
	case KindRows:
		if len(vals) != 2 {
			return Shape{}, fmt.Errorf("size %q: %s takes ROWSxCOLS", s, op)
		}
		sh.M, sh.N = vals[0], vals[1]
	default:
		if len(vals) != 1 {
			return Shape{}, fmt.Errorf("size %q: %s takes one element count", s, op)
		}
		sh.N = vals[0]
	}
	return sh, nil
}

var suffixes = []struct {
	s string
	v int
}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}}

// ParseCount reads a positive count such as 4096, 4Ki or 1M.
func ParseCount(s string) (int, error) {
	mult := 1
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf.s) {
			s, mult = strings.TrimSuffix(s, suf.s), suf.v
			break
		}
	}
	if s == "" { // "2x", "512x", "4Ki" split at a stray x
		return 0, errors.New("a number is missing")
	}
	v, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) && v > 0 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%q is not a positive whole number", s)
	}
	if v > (1<<40)/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return v * mult, nil
}
