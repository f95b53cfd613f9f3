package backend

import (
	"time"

	"github.com/peakbench/peakbench/bench/workload"
)

// BackendAlgorithms is implemented by a backend that can compute some
// workloads in more than one way, each measured on its own: the harness
// prepares such a workload once per algorithm listed, passing it in
// Config.Algorithm, and each result records it (result.Result.Algorithm).
// A nil or empty list means the one default way. The peakbench backends
// go and asm list "im2col+gemm" and "direct" for convolutions.
type BackendAlgorithms interface {
	Algorithms(w workload.Workload) []string
}

// KernelAlgorithm is implemented by a kernel that names the algorithm it
// runs, in a short stable vocabulary ("im2col+gemm", "direct", "auto" for
// a library left to choose): it is part of what identifies the result.
type KernelAlgorithm interface {
	Algorithm() string
}

// KernelImplementation is implemented by a kernel that can say which of
// the library's code paths it runs (oneDNN's impl_info_str such as
// "jit:avx512_core", the algorithm cuDNN chose): recorded with the result,
// for information.
type KernelImplementation interface {
	Implementation() string
}

// KernelPlanTime is implemented by a kernel whose library plans before it
// computes (FFTW's planner, which may time candidate algorithms): the time
// the plan took, kept apart from the measured runs (result.Result.PlanNS).
type KernelPlanTime interface {
	PlanTime() time.Duration
}

// PlanTimeOf returns the plan time k reports (KernelPlanTime), or 0.
func PlanTimeOf(k Kernel) time.Duration {
	if p, ok := k.(KernelPlanTime); ok {
		return p.PlanTime()
	}
	return 0
}

// KernelComputeUnit is implemented by a kernel that knows which unit of
// the core runs its arithmetic (peak.UnitAMXBF16, peak.UnitAVX512VNNI, …;
// from its own code, or the library's implementation name): its result is
// a share of that unit's peak rather than the fastest one's.
type KernelComputeUnit interface {
	ComputeUnit() string
}

// ComputeUnitOf returns the unit k says it runs on (KernelComputeUnit), or "".
func ComputeUnitOf(k Kernel) string {
	if u, ok := k.(KernelComputeUnit); ok {
		return u.ComputeUnit()
	}
	return ""
}

// KernelNonTemporal is implemented by a kernel that stores its output
// non-temporally (our quantize and dequantize past the cache): such stores
// skip the read for ownership that the machine's ordinary-store bandwidths
// pay, so its result is a share of a non-temporal pattern's bandwidth (the
// one nearest its stored share, peak.NonTemporalPatternFor) where that is
// the higher.
type KernelNonTemporal interface {
	NonTemporalStores() bool
}

// NonTemporalOf reports whether k says it stores non-temporally.
func NonTemporalOf(k Kernel) bool {
	nt, ok := k.(KernelNonTemporal)
	return ok && nt.NonTemporalStores()
}

// AlgorithmOf returns the algorithm k names (KernelAlgorithm), else
// requested, the Config.Algorithm it was prepared with.
func AlgorithmOf(k Kernel, requested string) string {
	if a, ok := k.(KernelAlgorithm); ok {
		return a.Algorithm()
	}
	return requested
}

// ImplementationOf returns what k says it runs (KernelImplementation), or "".
func ImplementationOf(k Kernel) string {
	if i, ok := k.(KernelImplementation); ok {
		return i.Implementation()
	}
	return ""
}

// AlgorithmsFor returns the algorithms b offers for w: its list, or the
// one default ("").
func AlgorithmsFor(b Backend, w workload.Workload) []string {
	if a, ok := b.(BackendAlgorithms); ok {
		if list := a.Algorithms(w); len(list) > 0 {
			return list
		}
	}
	return []string{""}
}
