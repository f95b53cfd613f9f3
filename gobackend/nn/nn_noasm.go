//go:build !amd64 || purego

package nn

// No assembly on this platform or under the purego tag: implFor never
// returns an assembly impl, so this is never called.

const haveAsm = false

func softmaxAsm[T Float](impl, []T, []T) { panic("nn: no assembly") }
