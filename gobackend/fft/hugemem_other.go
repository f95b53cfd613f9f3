//go:build !linux

package fft

// hugeSlice is a slice of the Go heap where huge pages are not advised
// (hugemem_linux.go).
func hugeSlice[C Complex, O any](_ *O, n int) []C { return make([]C, n) }
