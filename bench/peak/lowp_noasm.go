//go:build !amd64 || purego

package peak

// No assembly here: no low-precision unit is measured.

func lowpKernel(unit string) (fmaKernel, bool) { return fmaKernel{}, false }
func hasLowpKernel(unit string) bool           { return false }
