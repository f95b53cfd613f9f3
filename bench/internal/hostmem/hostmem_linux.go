package hostmem

import (
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugePage = 2 << 20

// mapHuge maps bytes (and up to a huge page more, to align) and advises
// the huge-page-aligned part for huge pages. It returns that part, or nil
// when the system refuses the mapping (the caller falls back to the heap).
func (a *Arena) mapHuge(bytes int) []byte {
	rounded := (bytes + hugePage - 1) / hugePage * hugePage
	length := rounded + hugePage
	m, err := unix.Mmap(-1, 0, length, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	a.maps = append(a.maps, m)
	skip := int((hugePage - uintptr(unsafe.Pointer(&m[0]))%hugePage) % hugePage)
	aligned := m[skip : skip+rounded]
	// Advice only: where transparent huge pages are off it fails, and the
	// buffer is still fresh memory of its own.
	if advise {
		_ = unix.Madvise(aligned, unix.MADV_HUGEPAGE)
	}
	return aligned
}

func unmap(m []byte) { _ = unix.Munmap(m) }

// systemMode is the selected mode of
// /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise" or
// "never"), or "unknown".
func systemMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return "unknown"
	}
	for _, f := range strings.Fields(string(b)) {
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			return strings.Trim(f, "[]")
		}
	}
	return "unknown"
}
