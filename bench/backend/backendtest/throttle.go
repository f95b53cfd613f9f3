package backendtest

import (
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
)

// Throttle makes the fake NVML (cgo/gpurt/gpufake) report throttling: idle
// and a software power cap, the SM clock down to 1410 MHz. Call it before
// opening a backend that runs in a child process, which takes the
// environment when it starts.
func Throttle(t *testing.T) {
	t.Setenv("PB_FAKE_NVML_REASONS", "0x5") // idle + software power cap
	t.Setenv("PB_FAKE_NVML_SM_MHZ", "1410")
}

// RunThrottled runs a small dot product on b, a GPU backend over the fake
// GPU libraries, under Throttle, and returns the warnings b gives after it.
func RunThrottled(t *testing.T, b backend.Backend) []string {
	t.Helper()
	Throttle(t)
	w := workload.Workload{Op: workload.Dot, DType: workload.F32, Shape: workload.Shape{N: 64}}
	k, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	time.Sleep(60 * time.Millisecond) // past NVML's sampling interval
	if _, err := k.Run(1); err != nil {
		t.Fatal(err)
	}
	wb, ok := b.(interface{ Warnings() []string })
	if !ok {
		t.Fatalf("%s gives no warnings", b.Name())
	}
	return wb.Warnings()
}
