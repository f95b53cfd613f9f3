//go:build !amd64 || purego

package sparse

// No assembly: implFor never returns an assembly impl, so these are never
// called.

func cooRowsAsm(impl, []int32, []int32, int, int) { panic("sparse: no assembly") }

func countAsm([]int32, []int32) { panic("sparse: no assembly") }

func scatterAsm[T Float](*CSR[T], []int32, []T, []int32, int, int) { panic("sparse: no assembly") }
