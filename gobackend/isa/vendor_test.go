package isa

import (
	"os"
	"regexp"
	"runtime"
	"testing"
)

// TestVendor checks CPUID's vendor string against the kernel's
// (/proc/cpuinfo's vendor_id) where the assembly runs, and "" elsewhere.
func TestVendor(t *testing.T) {
	got := Vendor()
	if readVendor() == "" {
		if got != "" {
			t.Fatalf("Vendor() = %q without the assembly, want \"\"", got)
		}
		t.Skip("no CPUID here (another architecture or purego)")
	}
	if runtime.GOOS != "linux" {
		t.Skipf("vendor %q: no /proc/cpuinfo to compare with", got)
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip(err)
	}
	m := regexp.MustCompile(`(?m)^vendor_id\s*:\s*(\S+)`).FindSubmatch(info)
	if m == nil {
		t.Skip("no vendor_id in /proc/cpuinfo")
	}
	if want := string(m[1]); got != want {
		t.Errorf("Vendor() = %q, /proc/cpuinfo says %q", got, want)
	}
}
