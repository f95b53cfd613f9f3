//go:build !amd64 || purego

package peak

// hostCPUID is nil: there is no CPUID to run, and DetectMachine reads
// /proc/cpuinfo instead.
var hostCPUID cpuidFunc

// hostXCR0 is nil with it.
var hostXCR0 func() uint64
