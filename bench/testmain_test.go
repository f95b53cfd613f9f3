package main

import (
	"os"
	"testing"
)

// TestMain serves three roles of the test binary: the child process of an
// isolated library (serve-worker, as peakbench re-runs itself), peakbench
// itself for the tests that run it as a command (asMainEnv), and the tests,
// whose journals go to a cache folder of their own, removed at the end.
func TestMain(m *testing.M) {
	if code, child := serveChild(os.Args); child {
		os.Exit(code)
	}
	if os.Getenv(asMainEnv) != "" {
		main() // the cache folder is the parent test's, inherited
	}
	dir, err := os.MkdirTemp("", "peakbench-test-cache-")
	if err == nil {
		os.Setenv("XDG_CACHE_HOME", dir)
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}
