package hostmem

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

func TestSlice(t *testing.T) {
	var a Arena
	defer a.Free()
	for _, n := range []int{0, 1, 1000, HugeMin/8 - 1, HugeMin / 8, HugeMin/8 + 513} {
		for _, off := range []int{0, 576, 4032, 4096 + 64} {
			s := Slice[float64](&a, n, off)
			if len(s) != n || cap(s) < n {
				t.Fatalf("n=%d off=%d: len %d cap %d", n, off, len(s), cap(s))
			}
			if n == 0 {
				continue
			}
			if got := int(uintptr(unsafe.Pointer(&s[0])) % Page); got != off%Page {
				t.Errorf("n=%d off=%d: starts %d bytes into a page", n, off, got)
			}
			for i, x := range s {
				if x != 0 {
					t.Fatalf("n=%d off=%d: s[%d] = %g, want 0", n, off, i, x)
				}
			}
			s[0], s[n-1] = 1, 2 // writable to its ends
		}
	}
	large := 4 * 2 // n = HugeMin/8 and HugeMin/8+513, at four offsets each
	if runtime.GOOS == "linux" && len(a.maps) != large {
		t.Errorf("%d buffers mapped, want the %d of HugeMin bytes or more", len(a.maps), large)
	}
	a.Free()
	if a.Mapped() != 0 {
		t.Errorf("after Free, %d bytes mapped", a.Mapped())
	}
}

func TestSliceBadOffset(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Slice[float64] at a 4-byte offset did not panic")
		}
	}()
	Slice[float64](new(Arena), 8, 4)
}

// TestHugeAdvice checks that a mapped buffer's memory carries the huge-page
// advice (the "hg" flag of its mapping in /proc/self/smaps). Whether the
// kernel finds free huge pages to honour it is the system's business.
func TestHugeAdvice(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge-page advice is Linux only")
	}
	if mode := HugePages(); mode != "madvise" && mode != "always" {
		t.Skipf("transparent huge pages are %q here", mode)
	}
	defer func(was bool) { advise = was }(advise)
	for _, on := range []bool{true, false} { // false: PEAKBENCH_HUGE_PAGES=off
		advise = on
		var a Arena
		s := Slice[float32](&a, 3*HugeMin/4, 576)
		addr := uintptr(unsafe.Pointer(&s[len(s)/2]))
		flags, err := vmFlags(addr)
		a.Free()
		if err != nil {
			t.Fatal(err)
		}
		if hg := strings.Contains(" "+flags+" ", " hg "); hg != on {
			t.Errorf("advice %v: mapping of %#x has flags %q", on, addr, flags)
		}
	}
	advise = false
	if got := HugePages(); got != "off" {
		t.Errorf("HugePages() with the advice off = %q", got)
	}
}

// vmFlags returns the VmFlags line of the mapping holding addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 { // a mapping's first line: "lo-hi perms …"
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}
