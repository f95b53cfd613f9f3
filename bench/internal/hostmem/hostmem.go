// Package hostmem allocates the benchmark's host buffers. A buffer of
// HugeMin bytes or more is mapped from the operating system on its own and
// advised for transparent huge pages, as the C jobs' buffers are
// (native/timing.c): at DRAM sizes a stream's speed depends on the physical
// pages behind it, and a buffer reused from the Go heap sits on whatever
// 4 KiB pages earlier buffers left scattered (on Zen 4 the same kernels ran
// 6–16% slower on Go heap buffers than on fresh ones), so which backend
// allocated first decided comparisons. Huge pages also give every backend
// the same TLB reach. Smaller buffers come from the Go heap.
//
// PEAKBENCH_HUGE_PAGES=off keeps the mappings but drops the advice, for
// 4 KiB pages: what a program that allocates with make or malloc gets where
// transparent huge pages are "madvise" (Debian's and Ubuntu's default).
package hostmem

import (
	"fmt"
	"os"
	"unsafe"
)

// EnvVar names the environment variable that, set to "off", drops the
// huge-page advice (the C jobs read it too).
const EnvVar = "PEAKBENCH_HUGE_PAGES"

// advise is whether mappings are advised for huge pages.
var advise = os.Getenv(EnvVar) != "off"

// HugePages says how large buffers are backed: "off" when EnvVar turns the
// advice off, else the system's transparent huge page mode ("always",
// "madvise", "never"; "unknown" where it cannot be read, or off Linux).
func HugePages() string {
	if !advise {
		return "off"
	}
	return systemMode()
}

// Page is the page size buffer offsets are taken modulo.
const Page = 4096

// HugeMin is the size from which a buffer is mapped on its own: one huge
// page (x86-64's 2 MiB). Smaller buffers fit in L2 or a fraction of L3,
// where the physical pages behind them do not change the speed.
const HugeMin = 2 << 20

// Arena owns the mappings behind a set of buffers. Its zero value is ready;
// Free unmaps them, after which their slices must not be used.
type Arena struct {
	maps [][]byte
}

// Slice returns n zero elements of T starting off bytes (modulo Page) past
// a page boundary. off must be a multiple of T's alignment.
func Slice[T any](a *Arena, n, off int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if n < 0 || size == 0 || off < 0 || off%int(unsafe.Alignof(zero)) != 0 {
		panic(fmt.Sprintf("hostmem: Slice(%d elements of %d bytes, offset %d)", n, size, off))
	}
	off %= Page
	if n*size >= HugeMin {
		if mem := a.mapHuge(off + n*size); mem != nil {
			return unsafe.Slice((*T)(unsafe.Pointer(&mem[off])), n)
		}
	}
	buf := make([]T, n+Page/size)
	at := int(uintptr(unsafe.Pointer(&buf[0])) % Page)
	first := ((off-at)%Page + Page) % Page / size
	return buf[first : first+n : first+n]
}

// Free releases the arena's mappings.
func (a *Arena) Free() {
	for _, m := range a.maps {
		unmap(m)
	}
	a.maps = nil
}

// Mapped is how many bytes the arena holds mapped (0 where buffers come
// from the Go heap).
func (a *Arena) Mapped() int {
	total := 0
	for _, m := range a.maps {
		total += len(m)
	}
	return total
}
