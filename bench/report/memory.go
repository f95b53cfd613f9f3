package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/result"
)

// MemoryText is a result's memory in a table cell: "+1.5 MiB" resident,
// then Go allocations per iteration when counted ("0 allocs/op",
// "3 allocs/op 4.0 KiB/op"); "not measured" when there is no figure.
func MemoryText(r *result.Result) string {
	m := r.Memory
	if m == nil {
		return "not measured"
	}
	s := "+" + units.Bytes(m.PeakGrowthBytes)
	if m.Method == "vmrss" {
		s = "≥" + s
	}
	if h := m.GoHeap; h != nil {
		s += fmt.Sprintf(", %s allocs/op", countText(h.AllocsPerIter))
		if h.BytesPerIter > 0 {
			s += " " + units.Bytes(h.BytesPerIter) + "/op"
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
	return units.Sig(v)
}

// memCell is a row's -mem cell (the header's when r is nil); ok is false
// without the column.
func memCell(run *result.Run, r *result.Result) (c string, ok bool) {
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
func memoryFooter(run *result.Run) []string {
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
func hasMemory(run *result.Run) bool {
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
func memoryCell(r *result.Result) cell {
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
			units.Bytes(h.PrepareBytes), h.PrepareAllocs, countText(h.AllocsPerIter), units.Bytes(h.BytesPerIter))
	} else if m.AllocNote != "" {
		c.Title += "; allocations: " + m.AllocNote
	}
	return c
}
