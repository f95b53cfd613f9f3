package nativetest_test

import (
	"testing"

	"github.com/peakbench/peakbench/native/nativetest"
)

func TestRequired(t *testing.T) {
	t.Setenv("PEAKBENCH_REQUIRE_LIBS", "openblas, mkl")
	if !nativetest.Required("openblas") || !nativetest.Required("mkl") || nativetest.Required("blis") {
		t.Error("Required misreads PEAKBENCH_REQUIRE_LIBS")
	}
	t.Setenv("PEAKBENCH_REQUIRE_LIBS", "all")
	if !nativetest.Required("onednn") {
		t.Error(`Required ignores "all"`)
	}
	t.Setenv("PEAKBENCH_REQUIRE_LIBS", "")
	if nativetest.Required("openblas") {
		t.Error("Required with PEAKBENCH_REQUIRE_LIBS empty")
	}
}
