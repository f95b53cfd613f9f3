//go:build !amd64 || purego

package sparse

// No assembly on this platform or under the purego tag: implFor never
// returns an assembly impl, so this is never called.

const haveAsm = false

func spmvAsm[T Float](impl, *CSR[T], []T, []T, int, int) { panic("sparse: no assembly") }

func sellAsm[T Float](*SELL[T], []T, []T, int, int) { panic("sparse: no assembly") }

func spmmAsm[T Float](impl, *CSR[T], []T, int, []T, int, int) { panic("sparse: no assembly") }
