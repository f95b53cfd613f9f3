//go:build !purego

package peak

// cpuid executes CPUID with EAX=eaxArg, ECX=ecxArg (cpuid_amd64.s).
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

var hostCPUID cpuidFunc = cpuid
