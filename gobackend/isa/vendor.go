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
