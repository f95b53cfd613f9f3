package quant

import (
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// QLinear is the quantized linear layer: y (m×n) = s·(x·wᵀ) + bias, with
// s = sx·sw rounded to f32, x m×k (int8 or uint8), w n×k int8 (as
// PyTorch's Linear stores its weight), the sums exact in int32 and each
// converted to f32 once, then multiplied by s and added to bias[j], each
// step rounded (no fused multiply-add).
//
// The sums are the low-precision gemm's (gemm.GemmU8S8 for uint8 x,
// GemmI8 for int8; w read as op(B) = wᵀ), at lvl with feats, written as
// int32 into y's own memory; the epilogue then turns each row into f32 in
// place (scaleBias). Threads take the gemm's blocks, then rows.
func QLinear[X Int8](lvl isa.Level, feats isa.Feature, m, n, k int, x []X, w []int8, bias []float32, sx, sw float32, y []float32, threads int) {
	if len(x) != m*k || len(w) != n*k || len(bias) != n || len(y) != m*n {
		panic("quant: qlinear operand lengths disagree with m, n, k")
	}
	if threads < 1 {
		panic("quant: threads < 1")
	}
	if m == 0 || n == 0 {
		return
	}
	c := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(y))), len(y))
	xp := unsafe.Pointer(unsafe.SliceData(x))
	switch lo, _ := bounds[X](); {
	case k == 0: // no products (and no valid leading dimension for the gemm)
		clear(c)
	case lo == 0:
		gemm.GemmU8S8(lvl, feats, false, true, m, n, k, unsafe.Slice((*uint8)(xp), len(x)), k, w, k, c, n, threads)
	default:
		gemm.GemmI8(lvl, feats, false, true, m, n, k, unsafe.Slice((*int8)(xp), len(x)), k, w, k, c, n, threads)
	}
	s := sx * sw
	ki := implFor(lvl, 8*m*n)
	// Rows of about 64 KiB of sums a piece.
	minRows := max(1, (64<<10)/(4*n))
	if num.Single(m, threads, minRows) {
		scaleBiasRows(ki, n, c, s, bias, y, 0, m)
		return
	}
	num.For(m, threads, 1, minRows, func(_, lo, hi int) {
		scaleBiasRows(ki, n, c, s, bias, y, lo, hi)
	})
}

// QLinearKernel names the gemm kernel QLinear runs for x of type X at lvl
// with feats, and the unit its arithmetic runs on (gemm.LowpKernel).
func QLinearKernel[X Int8](lvl isa.Level, feats isa.Feature) (name, unit string) {
	if lo, _ := bounds[X](); lo == 0 {
		return gemm.LowpKernel(gemm.U8S8, lvl, feats)
	}
	return gemm.LowpKernel(gemm.I8, lvl, feats)
}

// scaleBiasRows runs the epilogue on rows [lo, hi) of n.
func scaleBiasRows(k impl, n int, c []int32, s float32, bias, y []float32, lo, hi int) {
	for r := lo; r < hi; r++ {
		scaleBias(k, c[r*n:(r+1)*n], s, bias, y[r*n:(r+1)*n])
	}
}
