package num

import (
	"fmt"
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
		for _, align := range []int{1, 3, 64} {
			for _, minChunk := range []int{0, 1, 50} {
				for n := 0; n < 300; n += 1 + n/16 {
					seen := make([]int32, n)
					For(n, threads, align, minChunk, func(part, lo, hi int) {
						for i := lo; i < hi; i++ {
							atomic.AddInt32(&seen[i], 1)
						}
					})
					for i, s := range seen {
						if s != 1 {
							t.Fatalf("threads=%d align=%d min=%d n=%d: element %d visited %d times", threads, align, minChunk, n, i, s)
						}
					}
				}
			}
		}
	}
}

// TestJobRuns checks that the participants' runs cut the pieces into
// contiguous stretches, in order, that differ by at most one piece.
func TestJobRuns(t *testing.T) {
	for parts := 1; parts < 40; parts++ {
		for threads := 1; threads < 12; threads++ {
			j := newJob(nil, parts, 1, parts, threads)
			if len(j.runs) != min(parts, threads) {
				t.Fatalf("parts=%d threads=%d: %d runs", parts, threads, len(j.runs))
			}
			next := int32(0)
			for i := range j.runs {
				r := &j.runs[i]
				if r.first != next || r.end-r.first < int32(parts/len(j.runs)) || r.end-r.first > int32(parts/len(j.runs)+1) {
					t.Fatalf("parts=%d threads=%d: run %d is [%d,%d) after %d", parts, threads, i, r.first, r.end, next)
				}
				next = r.end
			}
			if next != int32(parts) {
				t.Fatalf("parts=%d threads=%d: runs end at %d", parts, threads, next)
			}
		}
	}
}

// TestJobWorkTakesLeftovers checks that a participant whose partners never
// come runs every piece once: its own run first, in order, then the
// others'. With partners arriving, every piece still runs once.
func TestJobWorkTakesLeftovers(t *testing.T) {
	const parts = 10
	for me := range 3 {
		var order []int
		j := newJob(func(part, lo, hi int) { order = append(order, part) }, parts, 1, parts, 3)
		j.finish(j.work(me))
		if len(order) != parts || j.done.Load() != parts {
			t.Fatalf("participant %d alone ran %v (done %d)", me, order, j.done.Load())
		}
		own := &j.runs[me]
		for i := range own.end - own.first {
			if order[i] != int(own.first+i) {
				t.Fatalf("participant %d alone ran %v: not its own run [%d,%d) first", me, order, own.first, own.end)
			}
		}
		seen := map[int]bool{}
		for _, p := range order {
			if seen[p] {
				t.Fatalf("participant %d alone ran %v: piece %d twice", me, order, p)
			}
			seen[p] = true
		}
	}
	for it := range 200 {
		const threads = 4
		var seen [parts * 3]int32
		j := newJob(func(part, lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		}, len(seen), 3, parts, threads)
		done := make(chan bool)
		for me := range threads {
			go func() { j.finish(j.work((me + it) % threads)); done <- true }()
		}
		for range threads {
			<-done
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("iteration %d: element %d visited %d times", it, i, s)
			}
		}
	}
}

// TestBegin checks that each participant of a job begins with a run of
// its own: the run of its CPU (modulo the runs) where that CPU is known
// and the run is free, else its own, else the next free one.
func TestBegin(t *testing.T) {
	defer func(f func() int) { currentCPU = f }(currentCPU)
	for threads := 2; threads <= 5; threads++ {
		// CPUs known and distinct: each begins with its CPU's run.
		j := newJob(nil, 20, 1, 20, threads)
		for me := range threads {
			cpu := 7 + me
			currentCPU = func() int { return cpu }
			if got := j.begin(me); got != cpu%threads {
				t.Errorf("threads=%d: participant %d on CPU %d began with run %d, want %d", threads, me, cpu, got, cpu%threads)
			}
		}
		// All on one CPU, or CPUs unknown: each begins with a run no
		// other has, its own where that is free.
		for _, cpu := range []int{3, -1} {
			currentCPU = func() int { return cpu }
			j := newJob(nil, 20, 1, 20, threads)
			seen := map[int]bool{}
			for me := threads - 1; me >= 0; me-- {
				got := j.begin(me)
				if seen[got] {
					t.Fatalf("threads=%d, CPU %d: participant %d began with run %d, already begun", threads, cpu, me, got)
				}
				seen[got] = true
				if cpu < 0 && got != me {
					t.Errorf("threads=%d, CPU unknown: participant %d began with run %d, not its own", threads, me, got)
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

// BenchmarkFor times For's handoff: an empty job of one piece per thread,
// and one of PiecesPerThread pieces per thread.
func BenchmarkFor(b *testing.B) {
	for _, threads := range []int{2, 3} {
		for _, per := range []int{1, PiecesPerThread} {
			b.Run(fmt.Sprintf("threads=%d/pieces=%d", threads, per*threads), func(b *testing.B) {
				for b.Loop() {
					For(per*threads, threads, 1, 0, func(part, lo, hi int) {})
				}
				// The pool's size: the most threads a call used less the
				// caller's, while calls reuse the workers they find.
				b.ReportMetric(float64(len(*workers.Load())), "workers")
			})
		}
	}
}
