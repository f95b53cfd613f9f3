package fft

import (
	"testing"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// pageOffset is where in a page v starts.
func pageOffset[C Complex](v []C) int { return int(uintptr(unsafe.Pointer(&v[0])) % page) }

// offsetInPage returns n values of C that start off bytes into a page.
func offsetInPage[C Complex](n, off int) []C {
	var z C
	size := int(unsafe.Sizeof(z))
	buf := make([]C, n+2*page/size)
	skip := ((page-pageOffset(buf))%page + off) / size
	return buf[skip : skip+n]
}

// TestPlacedWork: the buffer a transform alternates with its output
// starts at the output's offset in a page, wherever the output lies, and
// the outputs are the same to the bit at every offset.
func TestPlacedWork(t *testing.T) {
	for _, lvl := range []isa.Level{isa.Generic, isa.AVX2, isa.AVX512} {
		for _, n := range []int{512, 2048, 96} {
			p := NewPlan[complex128](lvl, n, false, 1)
			x := offsetInPage[complex128](n, 0)
			copy(x, randomInput(n, 3))
			var first []complex128
			for _, off := range []int{0, 64, 576, 2048, page - 64} {
				y := offsetInPage[complex128](n, off)
				w := placedWork(p.work, y)
				if len(w) != n || pageOffset(w) != off {
					t.Fatalf("%v n=%d: output %d bytes into a page, work of %d values %d bytes in", lvl, n, off, len(w), pageOffset(w))
				}
				p.Transform(y, x)
				if first == nil {
					first = append(first, y...)
					continue
				}
				for i := range y {
					if y[i] != first[i] {
						t.Fatalf("%v n=%d: output %d bytes into a page: y[%d] = %v, at 0 bytes %v", lvl, n, off, i, y[i], first[i])
					}
				}
			}
		}
	}
}
