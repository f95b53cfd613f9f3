package asm

import (
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/gobackend/isa"
)

func open(t *testing.T) Backend {
	b, err := Open()
	if err != nil {
		t.Skip(err)
	}
	return b.(Backend)
}

func TestConformance(t *testing.T) { backendtest.Run(t, open(t)) }

// TestConformanceLevels runs the suite at every assembly level below the
// best too (an AVX-512 machine also checks its AVX2 kernels).
func TestConformanceLevels(t *testing.T) {
	for l := isa.AVX2; l < isa.Best; l++ {
		t.Run(l.String(), func(t *testing.T) { backendtest.Run(t, Backend{Level: l}) })
	}
}

func TestInfo(t *testing.T) {
	info := open(t).Info()
	if !strings.HasPrefix(info.Version, "peakbench ") {
		t.Errorf("version %q", info.Version)
	}
	for _, k := range []string{"isa", "gemm", "gemv", "axpy", "dot", "exp", "tanh", "sigmoid", "softmax"} {
		if info.Details[k] == "" || strings.Contains(info.Details[k], "generic") {
			t.Errorf("details[%q] = %q, want an assembly kernel", k, info.Details[k])
		}
	}
	if !strings.Contains(info.Details["exp"], "ulp") {
		t.Errorf("details[exp] = %q, want the max error", info.Details["exp"])
	}
	t.Log(info)
}
