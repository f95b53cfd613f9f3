package fft

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugePage = 2 << 20

// hugeSlice returns n zero values in memory of its own advised for
// transparent huge pages (as the bench's buffers are, bench/internal/
// hostmem, and with its PEAKBENCH_HUGE_PAGES=off to drop the advice),
// unmapped once owner is unreachable; below a huge page, or where the
// system refuses the mapping, a slice of the Go heap. The four-step
// passes touch a page per row of a strided column: with 4 KiB pages,
// every one of them missed the TLB.
func hugeSlice[C Complex, O any](owner *O, n int) []C {
	var z C
	bytes := n * int(unsafe.Sizeof(z))
	if bytes < hugePage {
		return make([]C, n)
	}
	length := (bytes+hugePage-1)/hugePage*hugePage + hugePage
	m, err := unix.Mmap(-1, 0, length, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]C, n)
	}
	runtime.AddCleanup(owner, func(m []byte) { _ = unix.Munmap(m) }, m)
	skip := int((hugePage - uintptr(unsafe.Pointer(&m[0]))%hugePage) % hugePage)
	aligned := m[skip : skip+length-hugePage]
	if os.Getenv("PEAKBENCH_HUGE_PAGES") != "off" {
		_ = unix.Madvise(aligned, unix.MADV_HUGEPAGE)
	}
	return unsafe.Slice((*C)(unsafe.Pointer(&aligned[0])), n)
}
