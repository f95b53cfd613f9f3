package isa

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// CacheSizes are the data cache sizes one core sees, in bytes: L1 and L2 its
// own, L3 the whole shared cache (0 when there is none). L2SharedBy is how
// many logical CPUs share one L2 (2 where two SMT threads run on each
// core; 1 when the OS does not say).
type CacheSizes struct {
	L1, L2, L3 int
	L2SharedBy int
}

// Defaults when the OS does not say: a common x86 core of the last decade.
var defaultCaches = CacheSizes{L1: 32 << 10, L2: 1 << 20, L3: 32 << 20, L2SharedBy: 1}

var (
	cachesOnce sync.Once
	caches     CacheSizes
)

// Caches returns the data cache sizes of this machine, read once from Linux's
// sysfs (/sys/devices/system/cpu/cpu0/cache); what it cannot read is taken
// from a typical x86 core (32 KiB L1d, 1 MiB L2, 32 MiB L3).
func Caches() CacheSizes {
	cachesOnce.Do(func() { caches = readCaches("/sys/devices/system/cpu/cpu0/cache") })
	return caches
}

func readCaches(dir string) CacheSizes {
	c := defaultCaches
	entries, _ := filepath.Glob(filepath.Join(dir, "index*"))
	for _, e := range entries {
		typ := readString(filepath.Join(e, "type"))
		if typ != "Data" && typ != "Unified" {
			continue
		}
		level, err := strconv.Atoi(readString(filepath.Join(e, "level")))
		if err != nil {
			continue
		}
		size := parseSize(readString(filepath.Join(e, "size")))
		if size <= 0 {
			continue
		}
		switch level {
		case 1:
			c.L1 = size
		case 2:
			c.L2 = size
			c.L2SharedBy = max(1, CountCPUList(readString(filepath.Join(e, "shared_cpu_list"))))
		case 3:
			c.L3 = size
		}
	}
	return c
}

func readString(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// CountCPUList counts the CPUs of a sysfs CPU list such as "0-1", "0,8"
// or "0-3,8,10-11"; 0 for an empty or malformed one.
func CountCPUList(list string) int {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0
			}
		}
		n += b - a + 1
	}
	return n
}

// parseSize reads sysfs sizes such as "32K", "1024K" or "32M".
func parseSize(s string) int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n * mult
}

// DefaultZMMMaxBytes is the built-in most bytes a memory-bound kernel
// call (a reduction, an element-wise op) moves with 512-bit vectors before
// it falls back to 256-bit ones: half the last-level cache, shared with the
// other cores. Measured on Zen 4, which runs a 512-bit access as two
// 256-bit halves, alternating the kernels in one process: from the caches
// zmm ran as fast or faster (a 16 KiB sum or dot 6%, a 4 MiB dot 5–8%, Max
// 1.1–2× at 16 KiB, a 16 KiB add, axpy or ReLU 4–13%); streaming from DRAM
// slower (a 256 MiB sum, dot or max 5–14%, a 384 MiB add or axpy 3–9%).
// The kernels read the crossover in force from gobackend/tune (zmm.memory,
// zmm.math), whose defaults start from this.
func DefaultZMMMaxBytes() int { return Caches().L3 / 2 }

// ForBytes is the level a kernel call moving n bytes runs at: l, but AVX2
// in place of AVX512 above zmmMax bytes (tune's zmm.memory or zmm.math).
func (l Level) ForBytes(n, zmmMax int) Level {
	if l >= AVX512 && n > zmmMax {
		return AVX2
	}
	return l
}

// ZMMKernel names the kernels ForBytes picks at AVX512 with zmmMax:
// "AVX512 (AVX2 above N MiB)", or "AVX512" when zmmMax is 1 TiB or more
// (never AVX2).
func ZMMKernel(zmmMax int) string {
	if zmmMax >= 1<<40 {
		return "AVX512"
	}
	return "AVX512 (AVX2 above " + strconv.FormatFloat(float64(zmmMax)/(1<<20), 'g', 4, 64) + " MiB)"
}
