package result

// Memory is what a result's backend took in memory on its workload,
// measured (bench/internal/procmem) by the process that ran it.
type Memory struct {
	// PeakGrowthBytes is how far the resident set of the process that ran
	// the backend rose above its level just before the backend prepared
	// the workload: what Prepare and the verifying run kept resident,
	// plus the most any one timed sample took above the level before it.
	// Other backends' kernels, prepared before, are in neither level.
	PeakGrowthBytes int64 `json:"peak_rss_growth_bytes"`
	// Method is how the resident set was read: "vmhwm" (the kernel's
	// high-water mark, reset before each phase: transient peaks inside a
	// call count) or "vmrss" (read after each phase: a lower bound).
	Method string `json:"rss_method"`
	// Process names the process measured: "peakbench", or a worker's
	// "worker pid N" for a backend run in a process of its own.
	Process string `json:"process,omitempty"`
	// GoHeap is what the backend allocated on the Go heap, for backends
	// whose kernels are Go code; nil for C libraries and workers, whose
	// allocations (malloc, device memory) are not visible without
	// interposing their allocator: AllocNote says so.
	GoHeap    *GoHeap `json:"go_heap,omitempty"`
	AllocNote string  `json:"alloc_note,omitempty"`
}

// GoHeap counts the Go heap allocations of a Go backend (runtime.MemStats
// TotalAlloc and Mallocs) around its own calls only.
type GoHeap struct {
	PrepareBytes  uint64  `json:"prepare_bytes"`   // Prepare and the first (verifying) run
	PrepareAllocs uint64  `json:"prepare_allocs"`  // objects allocated by those
	BytesPerIter  float64 `json:"bytes_per_iter"`  // over every timed and warm-up run
	AllocsPerIter float64 `json:"allocs_per_iter"` // objects per iteration
}
