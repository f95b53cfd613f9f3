package procmem

import (
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// A transient mapping, touched and unmapped before Growth, still shows as
// growth of at least its size (the high-water mark caught it), and not
// far above it.
func TestProbeCatchesTransientPeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	const size = 64 << 20
	p := Start(0)
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < size; i += os.Getpagesize() {
		m[i] = 1
	}
	if err := unix.Munmap(m); err != nil {
		t.Fatal(err)
	}
	g, method, ok := p.Growth()
	if !ok {
		t.Fatal("no resident figure on Linux")
	}
	if method != HWM {
		t.Skipf("high-water mark cannot be reset here (method %s): a transient peak is not visible", method)
	}
	// Slack above: the test binary's own pages touched meanwhile (the
	// race detector's shadow memory among them). Below: the kernel keeps
	// its resident counters per CPU and folds them in batches (112 KiB
	// short of the 64 MiB here, on Linux 6.18).
	const slack, short = 16 << 20, 1 << 20
	if g < size-short || g > size+slack {
		t.Errorf("growth %d bytes after a transient %d-byte mapping, want [%d, %d]", g, size, size-short, size+slack)
	}
	t.Logf("growth %.1f MiB for a transient 64 MiB mapping", float64(g)/(1<<20))
}

// A probe started after the mapping sees no growth from it.
func TestProbeStartsFromNow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	const size = 32 << 20
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	for i := 0; i < size; i += os.Getpagesize() {
		m[i] = 1
	}
	p := Start(0)
	g, _, ok := p.Growth()
	if !ok || g >= size/2 {
		t.Errorf("growth %d (ok %v) right after Start, want well under %d", g, ok, size/2)
	}
}

var sink [][]byte

func TestHeapCountsAllocations(t *testing.T) {
	const n, each = 1000, 1024
	h0 := ReadHeap()
	for range n {
		sink = append(sink, make([]byte, each))
	}
	d := ReadHeap().Sub(h0)
	sink = nil
	if d.Objects < n || d.Bytes < n*each {
		t.Errorf("heap delta %+v after %d allocations of %d bytes", d, n, each)
	}
}
