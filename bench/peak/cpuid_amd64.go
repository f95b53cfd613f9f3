//go:build !purego

package peak

// cpuid executes CPUID with EAX=eaxArg, ECX=ecxArg (cpuid_amd64.s).
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// xgetbv reads XCR0 (cpuid_amd64.s); call it only where CPUID says OSXSAVE.
func xgetbv() uint64

var (
	hostCPUID cpuidFunc = cpuid
	hostXCR0            = xgetbv
)
