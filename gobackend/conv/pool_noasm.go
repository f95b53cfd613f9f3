//go:build !amd64 || purego

package conv

// No assembly on this platform or under the purego tag: vecImplFor never
// returns an assembly impl, so these are never called.

const haveAsm = false

func poolCall[T Float](vecImpl, PoolKind, []T, []T, []int, int, int, int, int, T) bool {
	panic("conv: no assembly")
}

func poolCall2[T Float](vecImpl, PoolKind, []T, []T, []int, []int, int, int, int, int, T) bool {
	panic("conv: no assembly")
}

func poolPlanesCall[T Float](vecImpl, PoolKind, []T, []T, int, T) bool {
	panic("conv: no assembly")
}

func normRowCall[T Float](vecImpl, []T, []T, []T, []T, T, T) {
	panic("conv: no assembly")
}

func tileCall[T Float](*tileGeom, int, int, int, []T, int, []T, []T, int) {
	panic("conv: no assembly")
}
