package isa

import "sync"

// CPU vendor strings, as CPUID leaf 0 gives them.
const (
	VendorIntel = "GenuineIntel"
	VendorAMD   = "AuthenticAMD"
)

// Vendor returns the CPU's vendor string (VendorIntel, VendorAMD, …), or ""
// where the assembly is not built (another architecture, purego).
func Vendor() string {
	vendorOnce.Do(func() { vendor = readVendor() })
	return vendor
}

var (
	vendorOnce sync.Once
	vendor     string
)

// PrefetchesShortStreams reports whether the core's hardware prefetchers
// were measured to follow many short streams (rows of a few KiB, each its
// own stream) about as well as one long one: yes on AMD's Zen cores, no on
// Intel's server cores (the Ice Lake VM: a GEMV row at a time, B's rows
// read in place by gemm's columns-outer sweep; tune's defaultGEMV and
// defaultGEMM have the figures). CPUID does not describe the prefetchers:
// the vendor stands for them, in the defaults of the tune parameters
// gemv.by_row and gemm.cols_outer, which -tune measures per machine.
func PrefetchesShortStreams() bool { return Vendor() != VendorIntel }

// PrefetchesFallingStreams reports whether the core's hardware prefetchers
// were measured to follow a stream walking down through memory as well as
// one walking up, from L2: yes on Intel's (on the Ice Lake VM, add, mul and
// axpy of 16 Ki elements from L2 ran as fast or faster walking down), no
// on AMD's Zen 5 (the Turin VM: AVX-512 add f32 over 64–512 KiB of
// operands took 1.36–1.68× the time walking down, daxpy over 64–512 KiB
// 1.44–1.83×; from L1 and past L2 alike). CPUID does not describe the
// prefetchers: the vendor stands for them, in the default of the tune
// parameters walk.up_above and walk.up_to (tune.Walk), which -tune
// measures per machine.
func PrefetchesFallingStreams() bool { return Vendor() == VendorIntel }
