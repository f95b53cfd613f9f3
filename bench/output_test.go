package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result"
)

// TestOutputAndInputFilesChecked: -o naming a directory is refused before
// anything runs; report and compare read regular files only.
func TestOutputAndInputFilesChecked(t *testing.T) {
	dir := t.TempDir()
	run := savedRun(t, dir, "run.json", 1)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-backend=go", "-o=" + dir}, "is a directory"},
		{[]string{"report", "-o", dir, run}, "is a directory"},
		{[]string{"report", dir}, "not a regular file (a directory)"},
		{[]string{"compare", run, "/dev/zero"}, "not a regular file (a character device)"},
	} {
		_, stderr, code := runArgs(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("the directory is gone: %v", err)
	}
	// report -o through a link replaces the link's target, not the link.
	target := filepath.Join(dir, "page.html")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "latest.html")
	os.Symlink("page.html", link)
	if _, stderr, code := runArgs(t, "report", "-o", link, run); code != 0 {
		t.Fatalf("report -o link: exit %d: %s", code, stderr)
	}
	if li, _ := os.Lstat(link); li.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if fi, _ := os.Stat(target); fi.Size() == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("target: %d bytes, mode %v; want the report, mode 0600", fi.Size(), fi.Mode().Perm())
	}
}

// TestProgressRate: the progress line gives GFLOP/s, and GB/s for an op
// without arithmetic (a sparse conversion), whose GFLOP/s would read 0.
func TestProgressRate(t *testing.T) {
	var b strings.Builder
	latest := []result.Result{
		{Backend: "mkl", Verified: true, FLOPs: 2e9, GFLOPS: 120, GBPS: 3},
		{Backend: "go", Verified: true, Bytes: 4e8, GBPS: 5.83},
	}
	progress(&b, 1, 2, latest, false, 0)
	for _, want := range []string{"mkl 120 GFLOP/s", "go 5.83 GB/s"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("progress %q lacks %q", b.String(), want)
		}
	}
}
