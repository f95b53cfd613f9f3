package gemm

//go:generate go run gen_kernel.go -mr 3 -nr 3 -unroll 16

// A micro-kernel computes one mr×nr tile of C from packed panels; see
// kernel3x3Generic for the contract. The loops in gemm.go and the packing in
// pack.go take mr and nr from here, so a kernel of another shape (an assembly
// 6×16 for AVX2, say) only has to be returned by kernelFor.
type microKernel[T Float] struct {
	mr, nr int
	fn     func(k int, a, b []T, alpha, beta T, c []T, ldc int)
}

// kernelFor picks the micro-kernel for T on this machine.
//
// Why 3×3 in pure Go: the compiler keeps scalars in X registers (15 usable on
// amd64, X15 is reserved as zero) and emits a separate mul and add per update
// with a copy of the reused operand. 4×4 (16 accumulators) and 3×4 spill in
// the inner loop; 3×3 keeps 9 accumulators, 3 b values, an a value and a
// product in registers. Kernel alone on the 2-core development VM, k=256,
// GFLOP/s for float32 and float64 alike (scalar code gains nothing from the
// narrower type): 4×4 ≈ 5, 2×4 ≈ 8, 3×2 ≈ 9.5, 3×3 unrolled 16 ≈ 11.
func kernelFor[T Float]() microKernel[T] {
	return microKernel[T]{mr: 3, nr: 3, fn: kernel3x3Generic[T]}
}
