// Package isa describes the CPU the gobackend kernels run on: the
// instruction sets they are written for and which of them this CPU runs
// (Level, Best), and the cache sizes their blocking is derived from
// (Caches). Every kernel package takes a
// Level as its first argument: Generic runs the pure-Go kernels (on every
// platform, the reference), a higher level the assembly written for it.
//
// The level is an argument, not a package setting, so that two callers in
// one process can use different kernels: peakbench's "go" backend measures
// the pure-Go kernels (Generic) beside the "asm" backend (Best) in the same
// interleaved run, and the tests compare every level with Generic.
package isa

import "strconv"

// Level is a set of instructions a kernel may use. Levels are ordered: each
// includes the ones below it.
type Level uint8

const (
	// Generic is pure Go.
	Generic Level = iota
	// AVX2 is AVX2 with FMA3 (x86-64-v3).
	AVX2
	// AVX512 is AVX-512 F, CD, BW, DQ and VL (x86-64-v4).
	AVX512
)

// Best is the highest level this CPU and OS support (Generic on other
// architectures and under the purego build tag). It is computed once, when
// the program starts.
var Best = detect()

// String returns "generic", "avx2" or "avx512".
func (l Level) String() string {
	switch l {
	case Generic:
		return "generic"
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return "level(" + strconv.Itoa(int(l)) + ")"
}

// Supported reports whether this CPU runs code written for l.
func (l Level) Supported() bool { return l <= Best }

// Clamp returns the highest level at most l that this CPU supports, which is
// what a kernel package runs when asked for l.
func (l Level) Clamp() Level { return min(l, Best) }

// Levels returns every level this CPU supports, Generic first.
func Levels() []Level {
	var ls []Level
	for l := Generic; l <= Best; l++ {
		ls = append(ls, l)
	}
	return ls
}

// Impl is which of a vector kernel package's three implementations runs:
// its generic Go, or its AVX2 or AVX-512 assembly.
type Impl uint8

const (
	ImplGeneric Impl = iota
	ImplAVX2
	ImplAVX512
)

// ImplFor is the implementation a kernel package runs at l, clamped to
// what the CPU runs: generic where the package has no assembly (haveAsm
// false: other architectures, the purego tag) or below AVX2.
func ImplFor(l Level, haveAsm bool) Impl {
	switch l = l.Clamp(); {
	case !haveAsm || l < AVX2:
		return ImplGeneric
	case l >= AVX512:
		return ImplAVX512
	}
	return ImplAVX2
}
