//go:build !amd64 || purego

package peak

// No assembly here: every kernel is the pure-Go one.

func asmFMAKernel(dtype string, simdBits int) (fmaKernel, bool) { return fmaKernel{}, false }
func asmTriadKernel(simdBits int) (triadKernel, bool)           { return triadKernel{}, false }
func asmClockKernel() (clockKernel, bool)                       { return clockKernel{}, false }
