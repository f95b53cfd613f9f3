//go:build !amd64 || purego

package elem

// No assembly on this platform or under the purego tag: implFor never
// returns an assembly impl, so these are never called.

const haveAsm = false

func binaryAsm[T Float](impl, op, []T, []T, []T)   { panic("elem: no assembly") }
func axpyAsm[T Float](impl, T, []T, []T)           { panic("elem: no assembly") }
func unaryAsm[T Float](impl, op, []T, []T)         { panic("elem: no assembly") }
func binaryAsmNT[T Float](impl, op, []T, []T, []T) { panic("elem: no assembly") }
func unaryAsmNT[T Float](impl, op, []T, []T)       { panic("elem: no assembly") }
func axpyKernel[T Float](impl, T, []T, []T)        { panic("elem: no assembly") }
