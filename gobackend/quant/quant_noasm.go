//go:build !amd64 || purego

package quant

// No assembly on this platform or under the purego tag: implFor never
// returns an assembly impl, and every call runs the generic kernels.

const haveAsm = false

// NativeBF16 is false: there is no VCVTNEPS2BF16 kernel here.
var NativeBF16 = false

func quantize[Q Int8](_ impl, x []float32, inv float32, zp int32, q []Q, _ bool) {
	quantizeGeneric(x, inv, zp, q)
}

func dequantize[Q Int8](_ impl, q []Q, scale float32, zp int32, x []float32, _ bool) {
	dequantizeGeneric(q, scale, zp, x)
}

func narrow(_ impl, f Format, x []float32, y []uint16) { narrowGeneric(f, x, y) }
func widen(_ impl, f Format, x []uint16, y []float32)  { widenGeneric(f, x, y) }

func scaleBias(_ impl, c []int32, s float32, bias, y []float32) { scaleBiasGeneric(c, s, bias, y) }
