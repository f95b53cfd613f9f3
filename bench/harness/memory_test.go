package harness

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
)

// allocating is a Go backend whose Prepare keeps a touched buffer of
// `keep` bytes and whose kernel allocates `perIter` objects of `each`
// bytes per iteration, as a Go kernel with per-call workspaces does.
type allocating struct {
	fake
	keep, perIter, each int
}

func (a *allocating) GoCode() bool { return true }

func (a *allocating) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	buf := make([]byte, a.keep)
	for i := range buf {
		buf[i] = 1 // resident, not just reserved
	}
	return &allocKernel{out: w.Reference(in), buf: buf, perIter: a.perIter, each: a.each}, nil
}

type allocKernel struct {
	out           []float64
	buf           []byte
	perIter, each int
	sink          [][]byte
}

func (k *allocKernel) Run(iters int) (time.Duration, error) {
	for range iters {
		k.sink = k.sink[:0]
		for range k.perIter {
			k.sink = append(k.sink, make([]byte, k.each))
		}
	}
	return time.Duration(iters) * time.Microsecond, nil
}
func (k *allocKernel) Output() ([]float64, error) { return k.out, nil }
func (k *allocKernel) Close() error               { return nil }

// Each result carries its backend's memory: a Go backend its heap
// allocations per iteration and in Prepare, its resident growth at least
// the buffer it keeps and not far above; a backend that is not Go code no
// allocation counts, with the reason.
func TestMemoryPerResult(t *testing.T) {
	const keep, perIter, each = 24 << 20, 5, 512
	goBackend := &allocating{fake: fake{name: "goalloc"}, keep: keep, perIter: perIter, each: each}
	cLike := &fake{name: "clib", perIter: time.Microsecond}
	p := plan(goBackend, cLike)
	p.Workloads, p.Threads = p.Workloads[:1], []int{1}
	// The Go heap reuses memory freed earlier (by other tests) without
	// faulting it in again; return it to the system first, so that the
	// kept buffer's pages are new to the resident set.
	debug.FreeOSMemory()
	results, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("%d results, want 2", len(results))
	}
	g, c := results[0], results[1]
	if runtime.GOOS == "linux" {
		if g.Memory == nil || c.Memory == nil {
			t.Fatalf("no memory figures on Linux: %+v, %+v", g.Memory, c.Memory)
		}
		// Slack: the heap's own growth around the buffer, and the
		// resident counters' per-CPU batching below.
		const slack = 8 << 20
		most := int64(keep + slack)
		if raceEnabled {
			most = 8 * keep // its shadow memory (race_test.go)
		}
		if m := g.Memory.PeakGrowthBytes; m < keep-slack || m > most {
			t.Errorf("resident growth %d for a backend keeping %d bytes", m, keep)
		}
		if m := c.Memory.PeakGrowthBytes; m < 0 || m > most-keep {
			t.Errorf("resident growth %d for a backend that allocates nothing", m)
		}
	}
	if g.Memory == nil || g.Memory.GoHeap == nil {
		t.Fatalf("Go backend without heap counts: %+v", g.Memory)
	}
	h := g.Memory.GoHeap
	if h.AllocsPerIter < perIter || h.BytesPerIter < perIter*each || h.PrepareBytes < keep {
		t.Errorf("heap %+v, want ≥ %d allocs and %d bytes per iteration, ≥ %d in Prepare", h, perIter, perIter*each, keep)
	}
	// Not much above: the harness's own allocations between runs are
	// outside the counted calls.
	if h.AllocsPerIter > 2*perIter {
		t.Errorf("%.1f allocs per iteration counted for %d made", h.AllocsPerIter, perIter)
	}
	if c.Memory != nil && (c.Memory.GoHeap != nil || c.Memory.AllocNote == "") {
		t.Errorf("a backend that is not Go code: heap %+v, note %q", c.Memory.GoHeap, c.Memory.AllocNote)
	}
}

// A Go kernel that allocates nothing is counted as allocating nothing,
// however long its calls: the host readings around each sample walk /proc
// and allocate (hostuse.Read), and they are outside the heap's counters.
func TestMemoryCountsOnlyTheKernel(t *testing.T) {
	quiet := &allocating{fake: fake{name: "goquiet"}, keep: 1 << 10}
	p := plan(quiet)
	p.Workloads, p.Threads = p.Workloads[:1], []int{1}
	p.Measure.MinTime = 5 * time.Millisecond
	results, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	m := results[0].Memory
	if m == nil || m.GoHeap == nil {
		t.Fatalf("Go backend without heap counts: %+v", m)
	}
	if h := m.GoHeap; h.AllocsPerIter != 0 || h.BytesPerIter != 0 {
		t.Errorf("a kernel that allocates nothing: %.3g allocs and %.3g bytes per iteration", h.AllocsPerIter, h.BytesPerIter)
	}
}
