package num

import (
	"sync/atomic"
	"testing"
)

func TestChunksCover(t *testing.T) {
	for n := 0; n < 300; n++ {
		for _, threads := range []int{1, 2, 3, 7} {
			for _, align := range []int{1, 3, 64} {
				for _, minChunk := range []int{0, 1, 50} {
					parts, step := Chunks(n, threads, align, minChunk)
					if n == 0 {
						if parts != 0 {
							t.Fatalf("n=0: parts %d", parts)
						}
						continue
					}
					if parts < 1 || parts > PiecesPerThread*threads {
						t.Fatalf("n=%d threads=%d: parts %d", n, threads, parts)
					}
					if step%align != 0 || (parts-1)*step >= n || parts*step < n {
						t.Fatalf("n=%d threads=%d align=%d: parts %d step %d", n, threads, align, parts, step)
					}
					if minChunk > 0 && parts > 1 && n/parts < minChunk/2 {
						t.Fatalf("n=%d threads=%d min=%d: parts %d too many", n, threads, minChunk, parts)
					}
				}
			}
		}
	}
}

func TestForVisitsEachOnce(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 7} {
		for _, n := range []int{0, 1, 63, 64, 65, 1000} {
			seen := make([]int32, n)
			For(n, threads, 64, 1, func(part, lo, hi int) {
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&seen[i], 1)
				}
			})
			for i, s := range seen {
				if s != 1 {
					t.Fatalf("threads=%d n=%d: element %d visited %d times", threads, n, i, s)
				}
			}
		}
	}
}

func TestSingle(t *testing.T) {
	for n := 1; n < 300; n++ {
		for _, threads := range []int{1, 2, 3, 7} {
			for _, minChunk := range []int{0, 1, 50} {
				parts, _ := Chunks(n, threads, 64, minChunk)
				if Single(n, threads, minChunk) && parts != 1 {
					t.Fatalf("n=%d threads=%d min=%d: Single, but %d parts", n, threads, minChunk, parts)
				}
			}
		}
	}
}

// TestForConcurrent runs For from several goroutines at once, sharing the
// pool, with pieces of uneven cost.
func TestForConcurrent(t *testing.T) {
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			ok := true
			for it := 0; it < 50; it++ {
				n := 1000 + it*37
				seen := make([]int32, n)
				For(n, 3, 1, 16, func(part, lo, hi int) {
					for i := lo; i < hi; i++ {
						atomic.AddInt32(&seen[i], 1)
					}
				})
				for _, s := range seen {
					ok = ok && s == 1
				}
			}
			done <- ok
		}()
	}
	for range 4 {
		if !<-done {
			t.Fatal("an element was not visited exactly once")
		}
	}
}

// TestChunksOnePerThreadFirst checks that an input long enough to split
// gets one piece per thread, and more only once every piece keeps
// balanceChunks·minChunk elements.
func TestChunksOnePerThreadFirst(t *testing.T) {
	const minChunk = 1000
	for _, c := range []struct{ n, threads, parts int }{
		{1999, 2, 1},
		{2000, 2, 2},
		{3 * balanceChunks * minChunk, 2, 3},
		{100 * balanceChunks * minChunk, 2, 2 * PiecesPerThread},
		{3000, 4, 3},
		{4000, 4, 4},
	} {
		if parts, _ := Chunks(c.n, c.threads, 1, minChunk); parts != c.parts {
			t.Errorf("Chunks(%d, %d threads): %d pieces, want %d", c.n, c.threads, parts, c.parts)
		}
	}
}

func TestElems(t *testing.T) {
	if got := Elems[float32](64 << 10); got != 16<<10 {
		t.Errorf("Elems[float32](64 KiB) = %d, want %d", got, 16<<10)
	}
	if got := Elems[float64](64 << 10); got != 8<<10 {
		t.Errorf("Elems[float64](64 KiB) = %d, want %d", got, 8<<10)
	}
	if got := Elems[float64](1); got != 1 {
		t.Errorf("Elems[float64](1) = %d, want 1", got)
	}
}
