// Package nativetest holds the policy the tests of the C layer's users
// share: which vendor libraries must load (CI installs them), so that a
// test fails there instead of skipping.
package nativetest

import (
	"os"
	"strings"
)

// Required reports whether the environment variable PEAKBENCH_REQUIRE_LIBS
// (a comma-separated list such as "openblas,blis,mkl,netlib,onednn", or
// "all") names library: tests then fail, instead of skipping, when it
// cannot be loaded. CI sets it.
func Required(library string) bool {
	for _, s := range strings.Split(os.Getenv("PEAKBENCH_REQUIRE_LIBS"), ",") {
		s = strings.TrimSpace(s)
		if s == library || s == "all" {
			return true
		}
	}
	return false
}
