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

func saxpyAVX2(int, float32, *float32, *float32)   { panic("elem: no assembly") }
func daxpyAVX2(int, float64, *float64, *float64)   { panic("elem: no assembly") }
func saxpyAVX512(int, float32, *float32, *float32) { panic("elem: no assembly") }
func daxpyAVX512(int, float64, *float64, *float64) { panic("elem: no assembly") }
