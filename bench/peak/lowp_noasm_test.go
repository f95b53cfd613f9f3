//go:build !amd64 || purego

package peak

import "testing"

// checkLowpResult: without assembly no unit kernel exists, and unitHere
// skips before this runs.
func checkLowpResult(t *testing.T, unit string) { t.Fatalf("%s: no kernel in this build", unit) }
