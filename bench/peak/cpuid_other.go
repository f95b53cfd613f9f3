//go:build !amd64 || purego

package peak

// cpuidInfo reports that CPUID is not available: DetectMachine reads
// /proc/cpuinfo instead.
func cpuidInfo() (cpuidResult, bool) { return cpuidResult{}, false }
