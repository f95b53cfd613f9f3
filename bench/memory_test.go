package main

import (
	"os"
	"strings"
	"testing"
)

// Files saved before results carried memory figures load in report and
// compare as before; report -mem says "not measured" for their results.
func TestOldFilesWithoutMemoryLoad(t *testing.T) {
	dir := t.TempDir()
	a := savedRun(t, dir, "old.json", 1)
	b := savedRun(t, dir, "new.json", 1)
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"peak_rss_growth_bytes"`) {
		t.Fatal("the old file has memory figures: the test would prove nothing")
	}
	stdout, stderr, code := runArgs(t, "report", "-format=table", "-mem", a)
	if code != 0 || !strings.Contains(stdout, "not measured") {
		t.Errorf("report -mem of an old file: exit %d (%s), output:\n%s", code, stderr, stdout)
	}
	if _, stderr, code := runArgs(t, "report", "-format=html", a); code != 0 {
		t.Errorf("report of an old file: exit %d (%s)", code, stderr)
	}
	if stdout, stderr, code := runArgs(t, "compare", a, b); code != 0 || !strings.Contains(stdout, "gemm") {
		t.Errorf("compare of old files: exit %d (%s), output:\n%s", code, stderr, stdout)
	}
}
