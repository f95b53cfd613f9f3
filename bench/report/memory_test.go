package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

// memoryFixture is resulttest.Fixture() with memory figures: a Go gemm that allocates
// per iteration, a C-library-like axpy with a note instead of counts.
func memoryFixture() *result.Run {
	run := resulttest.Fixture()
	run.Results[0].Memory = &result.Memory{PeakGrowthBytes: 3 << 20, Method: "vmhwm", Process: "peakbench",
		GoHeap: &result.GoHeap{PrepareBytes: 3 << 20, PrepareAllocs: 40, BytesPerIter: 4608, AllocsPerIter: 12}}
	run.Results[1].Memory = &result.Memory{PeakGrowthBytes: 1536 << 10, Method: "vmrss", AllocNote: "a C library's allocations are not counted"}
	return run
}

// -mem adds one column before "verified" in the table and Markdown, with
// each result's figures, "not measured" where a result has none, and a
// footer line saying what the column is; without -mem nothing changes.
func TestMemoryColumn(t *testing.T) {
	run := memoryFixture()
	var plain bytes.Buffer
	if err := Write(&plain, run, "table"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "MEM") {
		t.Error("memory column shown without -mem")
	}
	run.MemColumn = true
	for _, format := range []string{"table", "md"} {
		var out bytes.Buffer
		if err := Write(&out, run, format); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		for _, want := range []string{"+3 MiB, 12 allocs/op 4.5 KiB/op", "≥+1.5 MiB", "not measured", "mem: growth of the resident set", "a C library's allocations are not counted"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q:\n%s", format, want, s)
			}
		}
	}
}

// The memory figures are in the JSON under the documented names, and a
// result without them has no "memory" key (files from before load as
// they were).
func TestMemoryJSON(t *testing.T) {
	run := memoryFixture()
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{`"peak_rss_growth_bytes":3145728`, `"rss_method":"vmhwm"`, `"allocs_per_iter":12`, `"bytes_per_iter":4608`, `"prepare_allocs":40`, `"alloc_note":`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	if n := strings.Count(s, `"memory":`); n != 2 {
		t.Errorf("%d results with a memory key, want the 2 that have figures", n)
	}
	back, err := result.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if m := back.Results[0].Memory; m == nil || m.GoHeap == nil || m.GoHeap.AllocsPerIter != 12 {
		t.Errorf("memory did not survive a round trip: %+v", m)
	}
}

// The HTML detail table has a memory column when the run has figures, with
// where they come from as the cell's title; none for a run without.
func TestMemoryHTML(t *testing.T) {
	var with, without bytes.Buffer
	if err := WriteHTML(&with, []RunFile{{Run: memoryFixture()}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&without, []RunFile{{Run: resulttest.Fixture()}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">memory<", "3 MiB, 12 allocs/op 4.5 KiB/op", "Go heap: Prepare and first run 3 MiB in 40 objects"} {
		if !strings.Contains(with.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(without.String(), ">memory<") {
		t.Error("HTML has a memory column for a run without memory figures")
	}
}
