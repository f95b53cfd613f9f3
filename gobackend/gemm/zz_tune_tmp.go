package gemm

import (
	"os"
	"strconv"
)

func init() {
	if v := os.Getenv("PB_BLOCKS"); v != "" {
		var x [3]int
		for i, f := range splitComma(v) {
			x[i], _ = strconv.Atoi(f)
		}
		blockKC, blockMC, blockNC = x[0], x[1], x[2]
	}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// SetBlocksTmp is a temporary tuning hook (removed before commit).
func SetBlocksTmp(kc, mc, nc int) { blockKC, blockMC, blockNC = kc, mc, nc }

func SetItemsTmp(q int) { minItemsPerThread = q }
