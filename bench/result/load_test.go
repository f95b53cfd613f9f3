package result_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

func TestLoadRejectsWhatIsNotARun(t *testing.T) {
	dir := t.TempDir()
	var good bytes.Buffer
	if err := result.WriteJSON(&good, resulttest.Fixture()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, content string
		want          string
	}{
		{"truncated.json", good.String()[:good.Len()/2], "truncated or corrupt"},
		{"corrupt.json", `{"format": "peakbench/v1", "results": [}`, "not valid JSON"},
		{"foreign.json", `{"foo":1}`, `no "format" field`},
		{"array.json", `[{"format": "peakbench/v1"}]`, "JSON array"},
		{"other.json", `{"format": "peakbench/v2", "results": []}`, `format is "peakbench/v2"`},
		{"string.json", `"peakbench/v1"`, "JSON string"},
		{"empty.json", "  \n", "empty file"},
		{"text.txt", "goos: linux\nBenchmarkX 1 2 ns/op\n", "not valid JSON"},
		{"types.json", `{"format": "peakbench/v1", "results": [{"backend": "go", "op": "gemm", "threads": "two"}]}`, "results.threads"},
		{"nobackend.json", `{"format": "peakbench/v1", "results": [{"op": "gemm"}]}`, "no backend"},
		{"number.json", `{"format": 99, "results": []}`, `"format" is 99, not the string "peakbench/v1"`},
		{"out.json.journal", "{\"journal\":\"peakbench-journal/v1\",\"config\":{}}\n{\"workload\":\"axpy f32 1000\"}\n", "a peakbench journal"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := result.Load(path)
		if err == nil {
			t.Errorf("%s: loaded", c.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, path+": ") || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line starting with the path and mentioning %q", c.name, msg, c.want)
		}
	}
	missing := filepath.Join(dir, "missing.json")
	if _, err := result.Load(missing); err == nil || err.Error() != missing+": cannot read: no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(dir, "good.json")
	os.WriteFile(path, good.Bytes(), 0o644)
	run, err := result.Load(path)
	if err != nil || len(run.Results) != len(resulttest.Fixture().Results) {
		t.Errorf("good file: %v", err)
	}
}
