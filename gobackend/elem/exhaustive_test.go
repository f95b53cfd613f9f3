package elem

import (
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestAllFloat32 checks Exp, Tanh and Sigmoid against MaxULP on every one
// of the 2^32 float32 bit patterns, at every level this CPU runs, where
// TestAccuracy samples every 97th. It takes minutes per function and
// level, so it runs only with PEAKBENCH_EXHAUSTIVE set: to its list of
// functions (say "tanh"), or to "all".
func TestAllFloat32(t *testing.T) {
	want := os.Getenv("PEAKBENCH_EXHAUSTIVE")
	if want == "" {
		t.Skip("set PEAKBENCH_EXHAUSTIVE=tanh (or exp, sigmoid, a comma-separated list, all) to sweep every float32")
	}
	for _, lvl := range levels() {
		for _, fn := range []string{"exp", "tanh", "sigmoid"} {
			if !listed(want, fn) {
				continue
			}
			t.Run(lvl.String()+"/"+fn, func(t *testing.T) {
				worst, at, n := sweepAll32(func(lo, hi uint64) (float64, float32, int) {
					return sweep32Range(lvl, fn, nil, lo, hi, 1)
				})
				bound := MaxULP(lvl, fn, false)
				t.Logf("max error %.3f ulp at x=%v (%d inputs); bound %g", worst, at, n, bound)
				if n != 1<<32 {
					t.Errorf("swept %d inputs, want 2^32", n)
				}
				if worst > bound {
					t.Errorf("max error %.3f ulp at x=%v (%#x) exceeds MaxULP %g", worst, at, math.Float32bits(at), bound)
				}
			})
		}
	}
}

func listed(list, fn string) bool {
	return list == "all" || slices.Contains(strings.Split(list, ","), fn)
}

// sweepAll32 runs sweep over all 2^32 bit patterns in 256 ranges, on as
// many goroutines as GOMAXPROCS, and combines their worst errors.
func sweepAll32(sweep func(lo, hi uint64) (float64, float32, int)) (worst float64, at float32, count int) {
	const parts = 256
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan uint64, parts)
	for p := range uint64(parts) {
		next <- p
	}
	close(next)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				w, a, n := sweep(p<<24, (p+1)<<24)
				mu.Lock()
				if w > worst || math.IsNaN(w) {
					worst, at = w, a
				}
				count += n
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return worst, at, count
}
