package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

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

// MemoryText is a result's memory in a table cell: "+1.5 MiB" resident,
// then Go allocations per iteration when counted ("0 allocs/op",
// "3 allocs/op 4.0 KiB/op"); "not measured" when there is no figure.
func MemoryText(r *Result) string {
	m := r.Memory
	if m == nil {
		return "not measured"
	}
	s := "+" + BytesText(float64(m.PeakGrowthBytes))
	if m.Method == "vmrss" {
		s = "≥" + s
	}
	if h := m.GoHeap; h != nil {
		s += fmt.Sprintf(", %s allocs/op", countText(h.AllocsPerIter))
		if h.BytesPerIter > 0 {
			s += " " + BytesText(h.BytesPerIter) + "/op"
		}
	}
	return s
}

// countText writes a count per iteration: whole as a whole number
// ("12"), else with three significant digits ("12.1").
func countText(v float64) string {
	if v == math.Trunc(v) && v < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return Sig(v)
}

// BytesText writes a byte count in binary units: "1.5 MiB".
func BytesText(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// memCell is a row's -mem cell (the header's when r is nil); ok is false
// without the column.
func memCell(run *Run, r *Result) (c string, ok bool) {
	if !run.MemColumn {
		return "", false
	}
	switch {
	case r == nil:
		return "mem", true
	case r.Error != "":
		return "", true
	}
	return MemoryText(r), true
}

// memoryFooter explains the memory column, when shown.
func memoryFooter(run *Run) []string {
	if !run.MemColumn {
		return nil
	}
	var notes []string
	for i := range run.Results {
		if m := run.Results[i].Memory; m != nil && m.AllocNote != "" && !containsString(notes, m.AllocNote) {
			notes = append(notes, m.AllocNote)
		}
	}
	l := "mem: growth of the resident set of the process that ran the backend, over its level before the backend prepared the workload (≥: read after each run, a lower bound); allocs/op: Go heap allocations per iteration, for Go backends."
	if len(notes) > 0 {
		l += " Others: " + strings.Join(notes, "; ") + "."
	}
	return []string{l}
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// hasMemory says whether any result of run carries memory figures (files
// from before them have none: the HTML report then shows no column).
func hasMemory(run *Run) bool {
	for i := range run.Results {
		if run.Results[i].Memory != nil {
			return true
		}
	}
	return false
}

const memoryTitle = "growth of the resident set of the process that ran the backend over its level before it prepared the workload; Go backends: heap allocations per iteration"

// memoryCell is a result's memory in the HTML detail table, with where
// the figures come from as its title.
func memoryCell(r *Result) cell {
	m := r.Memory
	if m == nil {
		return cell{Text: "not measured", Class: "num muted"}
	}
	c := num(MemoryText(r))
	c.Title = fmt.Sprintf("resident growth %d bytes (%s", m.PeakGrowthBytes, m.Method)
	if m.Process != "" {
		c.Title += ", " + m.Process
	}
	c.Title += ")"
	if h := m.GoHeap; h != nil {
		c.Title += fmt.Sprintf("; Go heap: Prepare and first run %s in %d objects, %s allocs and %s per iteration",
			BytesText(float64(h.PrepareBytes)), h.PrepareAllocs, countText(h.AllocsPerIter), BytesText(h.BytesPerIter))
	} else if m.AllocNote != "" {
		c.Title += "; allocations: " + m.AllocNote
	}
	return c
}
