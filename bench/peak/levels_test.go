package peak

import "testing"

// TestTriadLevelsManyThreads: many threads sharing few cores leave each a
// sliver of L1; every pattern of every level kept must still get arrays to
// stream (an empty one panicked in the read of its first element).
func TestTriadLevelsManyThreads(t *testing.T) {
	m := Machine{CPUs: 2, Caches: []Cache{{1, 48 << 10, 2}, {2, 1280 << 10, 2}, {3, 54 << 20, 2}}}
	for _, threads := range []int{1, 2, 17, 33, 64, 4096} {
		for _, l := range triadLevels(m, threads, 4, true) {
			for _, pat := range patterns {
				n := l.elems
				if pat != PatternTriad {
					n = 24 * l.elems / patternBytes[pat] &^ 63
				}
				if n < 64 {
					t.Errorf("threads=%d %s %s: %d elements per array", threads, l.name, pat, n)
				}
			}
		}
	}
}
