// Package units writes the numbers peakbench prints: significant digits,
// durations, byte counts, percentages and clocks. It sits below every
// package that prints (bench/peak, bench/result and the packages over
// them), so that one number reads the same in every output.
package units

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Sig formats v with three significant digits (no exponent for ordinary sizes).
func Sig(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	d := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	if d < 0 {
		d = 0
	}
	if d > 6 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// Duration formats nanoseconds with three significant digits and a unit.
func Duration(ns float64) string {
	return time.Duration(ns).Round(roundTo(ns)).String()
}

func roundTo(ns float64) time.Duration {
	if ns < 1000 {
		return 1
	}
	return time.Duration(math.Pow(10, math.Floor(math.Log10(ns))-2))
}

// Bytes writes a byte count in binary units with up to four significant
// digits: "1023 B", "1.5 KiB", "480 MiB", "1.375 MiB".
func Bytes[N int | int64 | uint64 | float64](n N) string {
	b := float64(n)
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.4g GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.4g MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.4g KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

// Percent writes a fraction as a percentage with one decimal: "12.5%".
func Percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// SignedPercent writes a change as a signed percentage: "+3.2%", "-7.9%".
func SignedPercent(f float64) string { return fmt.Sprintf("%+.1f%%", 100*f) }

// GHz writes a clock in GHz with two decimals: "3.05".
func GHz(v float64) string { return fmt.Sprintf("%.2f", v) }
