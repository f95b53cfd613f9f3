package isa

import "sync"

// CPU vendor strings, as CPUID leaf 0 gives them.
const (
	VendorIntel = "GenuineIntel"
	VendorAMD   = "AuthenticAMD"
)

// Vendor returns the CPU's vendor string (VendorIntel, VendorAMD, …), or ""
// where the assembly is not built (another architecture, purego). Some
// defaults follow it where the two vendors' cores were measured to want
// different choices and nothing the CPU reports tells them apart (the
// hardware prefetchers: tune's GEMV default, gemm's columns-outer sweep).
func Vendor() string {
	vendorOnce.Do(func() { vendor = readVendor() })
	return vendor
}

var (
	vendorOnce sync.Once
	vendor     string
)
