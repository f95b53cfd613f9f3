//go:build race

package gemm

// The race detector slows the kernels ~20×: test the small set of shapes.
func init() { raceEnabled = true }
