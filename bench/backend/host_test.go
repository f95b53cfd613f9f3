package backend

import (
	"testing"
	"unsafe"

	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
)

// TestHostKernelCopies checks both loops of HostKernel: one set runs the
// batch in a single call, several sets rotate one iteration at a time and
// Output reads the set run last.
func TestHostKernelCopies(t *testing.T) {
	for _, copies := range []int{1, 3} {
		runs := make([]int, copies)
		var calls int
		k := NewHostBatchKernel(nil, copies, func(c, iters int) {
			calls++
			runs[c] += iters
		}, func(c int) []float64 { return []float64{float64(c)} })
		if _, err := k.Run(0); err == nil {
			t.Errorf("copies=%d: Run(0) gave no error", copies)
		}
		for _, iters := range []int{1, 7} {
			if _, err := k.Run(iters); err != nil {
				t.Fatal(err)
			}
		}
		total := 0
		for _, r := range runs {
			total += r
		}
		if total != 8 {
			t.Errorf("copies=%d: %d iterations run, want 8", copies, total)
		}
		out, _ := k.Output()
		switch copies {
		case 1:
			if calls != 2 || out[0] != 0 {
				t.Errorf("one set: %d calls (want one per Run), output of set %v", calls, out[0])
			}
		default:
			if calls != 8 || runs[0] != 2 || runs[1] != 3 || runs[2] != 3 || out[0] != 2 {
				t.Errorf("three sets: %d calls, runs %v, output of set %v; want 8 calls, [2 3 3], set 2", calls, runs, out[0])
			}
		}
	}
	// NewHostKernel is the per-iteration form of the same.
	n := 0
	k := NewHostKernel(nil, 1, func(int) { n++ }, func(int) []float64 { return nil })
	if _, err := k.Run(5); err != nil || n != 5 {
		t.Errorf("NewHostKernel: %d steps for Run(5), err %v", n, err)
	}
}

// TestPlace checks the placement rule the C jobs share: slot k starts
// (k·576) mod 4096 bytes into a page, the values converted, and a set takes
// its inputs plus an output slot, except axpy's.
func TestPlace(t *testing.T) {
	mem := new(hostmem.Arena)
	v := []float64{1.5, -2, 3}
	for slot := range 10 {
		for _, off := range []uintptr{
			pageOffset(Place[float32](mem, v, slot)),
			pageOffset(Place[float64](mem, v, slot)),
			pageOffset(PlaceZero[float64](mem, 100, slot)),
			pageOffset(PlaceZero[float32](mem, 1<<18, slot)),
			pageOffset(PlaceZero[float32](mem, hostmem.HugeMin/4, slot)), // mapped on its own
		} {
			if want := uintptr(slot*576) % 4096; off != want {
				t.Errorf("slot %d: page offset %d, want %d", slot, off, want)
			}
		}
	}
	// Closing the kernel that owns the buffers unmaps the large ones.
	if mem.Mapped() == 0 && hostmem.HugePages() != "unknown" {
		t.Error("no buffer of 2 MiB was mapped on its own")
	}
	if err := NewHostKernel(mem, 1, func(int) {}, nil).Close(); err != nil || mem.Mapped() != 0 {
		t.Errorf("Close: err %v, %d bytes still mapped", err, mem.Mapped())
	}
	if got := Place[float32](mem, v, 3); len(got) != 3 || cap(got) != 3 || got[0] != 1.5 || got[1] != -2 || got[2] != 3 {
		t.Errorf("Place = %v (cap %d), want [1.5 -2 3] (cap 3)", got, cap(got))
	}
	if z := PlaceZero[float32](mem, 5, 2); len(z) != 5 || z[4] != 0 {
		t.Errorf("PlaceZero = %v", z)
	}
	for _, c := range []struct {
		op     workload.Op
		inputs int
		want   int
	}{{workload.AXPY, 2, 2}, {workload.Dot, 2, 3}, {workload.GEMM, 2, 3}, {workload.Add, 2, 3}, {workload.Sum, 1, 2}, {workload.ReLU, 1, 2}} {
		if got := SetSlots(workload.Workload{Op: c.op}, c.inputs); got != c.want {
			t.Errorf("SetSlots(%s, %d) = %d, want %d", c.op, c.inputs, got, c.want)
		}
	}
}

func pageOffset[T Float](s []T) uintptr { return uintptr(unsafe.Pointer(&s[0])) % 4096 }
