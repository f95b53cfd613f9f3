package backend

import "testing"

// TestHostKernelCopies checks both loops of HostKernel: one set runs the
// batch in a single call, several sets rotate one iteration at a time and
// Output reads the set run last.
func TestHostKernelCopies(t *testing.T) {
	for _, copies := range []int{1, 3} {
		runs := make([]int, copies)
		var calls int
		k := NewHostBatchKernel(copies, func(c, iters int) {
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
	k := NewHostKernel(1, func(int) { n++ }, func(int) []float64 { return nil })
	if _, err := k.Run(5); err != nil || n != 5 {
		t.Errorf("NewHostKernel: %d steps for Run(5), err %v", n, err)
	}
}
