package compare

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result/resulttest"
)

func TestBaselineNames(t *testing.T) {
	for _, ok := range []string{"main", "v1.2", "pr-123_x", "A.b-C_9"} {
		if err := CheckBaselineName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "../x", "a b", "naïve", "x;rm", strings.Repeat("a", 101)} {
		if err := CheckBaselineName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestBaselineSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "baselines")
	t.Setenv(BaselineEnv, dir)
	if d, err := BaselineDir(); err != nil || d != dir {
		t.Fatalf("BaselineDir = %q, %v", d, err)
	}
	path, err := SaveBaseline("main", resulttest.Fixture())
	if err != nil || path != filepath.Join(dir, "main.json") {
		t.Fatalf("SaveBaseline = %q, %v", path, err)
	}
	run, got, err := LoadBaseline("main")
	if err != nil || got != path || len(run.Results) != len(resulttest.Fixture().Results) {
		t.Fatalf("LoadBaseline: %v", err)
	}
	if _, _, err := LoadBaseline("nope"); err == nil || !strings.Contains(err.Error(), `no baseline "nope"`) {
		t.Errorf("missing baseline: %v", err)
	}
	if _, err := SaveBaseline("../evil", resulttest.Fixture()); err == nil {
		t.Error("saved under a bad name")
	}
	t.Setenv(BaselineEnv, "")
	if d, err := BaselineDir(); err == nil && !strings.HasSuffix(d, filepath.Join("peakbench", "baselines")) {
		t.Errorf("default folder %q", d)
	}
}
