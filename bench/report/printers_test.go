package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result/resulttest"
)

func TestGolden(t *testing.T) {
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, checkedFixture(), format); err != nil {
				t.Fatal(err)
			}
			resulttest.CheckGolden(t, "run."+format+".golden", buf.Bytes())
		})
	}
}

func TestGoBenchReadableByBenchstat(t *testing.T) {
	var buf bytes.Buffer
	Write(&buf, resulttest.Fixture(), "gobench")
	lines := 0
	for _, l := range strings.Split(buf.String(), "\n") {
		if !strings.HasPrefix(l, "Benchmark") {
			continue
		}
		lines++
		f := strings.Fields(l)
		if len(f) < 4 || f[3] != "ns/op" || !strings.Contains(f[0], "/backend=") {
			t.Errorf("line %q is not in the Go benchmark format", l)
		}
	}
	if lines != 5 { // 3 + 2 samples; failed results are left out
		t.Errorf("%d benchmark lines, want 5", lines)
	}
}
