package purego

import (
	"testing"

	"github.com/peakbench/peakbench/bench/backend/backendtest"
)

func TestConformance(t *testing.T) { backendtest.Run(t, Backend{}) }
