package quant

import (
	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// QLinear is the quantized linear layer: y (m×n) = s·(x·wᵀ) + bias, with
// s = sx·sw rounded to f32, x m×k (int8 or uint8), w n×k int8 (as
// PyTorch's Linear stores its weight), the sums exact in int32 and each
// converted to f32 once. The kernel is pure Go at every level (lvl is
// taken for the API's sake): four columns of w per pass over a row of x.
// Threads take rows.
func QLinear[X Int8](_ isa.Level, m, n, k int, x []X, w []int8, bias []float32, sx, sw float32, y []float32, threads int) {
	if len(x) != m*k || len(w) != n*k || len(bias) != n || len(y) != m*n {
		panic("quant: qlinear operand lengths disagree with m, n, k")
	}
	if threads < 1 {
		panic("quant: threads < 1")
	}
	s := sx * sw
	// A row costs n·k multiply-adds: hand out pieces of about 2^16.
	num.For(m, threads, 1, max(1, (1<<16)/max(n*k, 1)), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			qlinearRow(x[i*k:(i+1)*k], w, bias, s, y[i*n:(i+1)*n], k)
		}
	})
}

// qlinearRow computes one row of y.
func qlinearRow[X Int8](xr []X, w []int8, bias []float32, s float32, yr []float32, k int) {
	n := len(yr)
	j := 0
	for ; j+4 <= n; j += 4 {
		w0, w1, w2, w3 := w[j*k:(j+1)*k], w[(j+1)*k:(j+2)*k], w[(j+2)*k:(j+3)*k], w[(j+3)*k:(j+4)*k]
		var a0, a1, a2, a3 int32
		for p, v := range xr {
			xv := int32(v)
			a0 += xv * int32(w0[p])
			a1 += xv * int32(w1[p])
			a2 += xv * int32(w2[p])
			a3 += xv * int32(w3[p])
		}
		yr[j] = float32(s*float32(a0)) + bias[j]
		yr[j+1] = float32(s*float32(a1)) + bias[j+1]
		yr[j+2] = float32(s*float32(a2)) + bias[j+2]
		yr[j+3] = float32(s*float32(a3)) + bias[j+3]
	}
	for ; j < n; j++ {
		wj := w[j*k : (j+1)*k]
		var a int32
		for p, v := range xr {
			a += int32(v) * int32(wj[p])
		}
		yr[j] = float32(s*float32(a)) + bias[j]
	}
}
