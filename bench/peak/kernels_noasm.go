//go:build !amd64 || purego

package peak

// No assembly here: every kernel is the pure-Go one.

func asmFMAKernel(dtype string, simdBits int) (fmaKernel, bool)         { return fmaKernel{}, false }
func asmStreamKernel(pattern string, simdBits int) (streamKernel, bool) { return streamKernel{}, false }
func asmPrefetchKernel(pattern string, simdBits int) (streamKernel, bool) {
	return streamKernel{}, false
}
func asmStreamsKernel(pattern string, simdBits int) (streamKernel, bool) {
	return streamKernel{}, false
}
func asmClockKernel() (clockKernel, bool)              { return clockKernel{}, false }
func asmClockUnderKernel(bits int) (clockKernel, bool) { return clockKernel{}, false }
