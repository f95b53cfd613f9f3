//go:build !amd64 || purego

package isa

// fmaLoop is never called here: Best is Generic.
func fmaLoop(zmm bool, rounds int) { panic("isa: no FMA loop on this architecture") }
