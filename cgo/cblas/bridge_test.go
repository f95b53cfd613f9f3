//go:build cgo

package cblas_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/peakbench/peakbench/cgo/cblas"
)

// TestBridgeOverhead compares SGEMM n=1024 through peakbench (PrepareGemm,
// Run: the loop in C, one cgo call per sample) with the same library called
// by pb_sgemm_bench, a small C program (built by CMake), alternating the two
// several times in one run. It runs only when PEAKBENCH_SGEMM_BENCH names
// that program; PEAKBENCH_BRIDGE_LIB picks the library (openblas),
// PEAKBENCH_BRIDGE_THREADS the thread count (2) and PEAKBENCH_BRIDGE_ROUNDS
// the number of alternations (5).
//
// Other load on the machine only ever slows a sample down, and a noisy host
// slows some samples by half; so the verdict compares the best samples of
// each side (the uncontended speed, where a per-call overhead would still
// show), and the medians are reported beside them.
//
//	cmake -S . -B build/release && cmake --build build/release -j2 --target pb_sgemm_bench
//	PEAKBENCH_SGEMM_BENCH=build/release/pb_sgemm_bench go test -run BridgeOverhead -v ./cgo/cblas
func TestBridgeOverhead(t *testing.T) {
	bench := os.Getenv("PEAKBENCH_SGEMM_BENCH")
	if bench == "" {
		t.Skip("set PEAKBENCH_SGEMM_BENCH to the path of pb_sgemm_bench to measure the bridge")
	}
	name := os.Getenv("PEAKBENCH_BRIDGE_LIB")
	if name == "" {
		name = "openblas"
	}
	threads := 2
	if s := os.Getenv("PEAKBENCH_BRIDGE_THREADS"); s != "" {
		threads, _ = strconv.Atoi(s)
	}
	rounds := 5
	if s := os.Getenv("PEAKBENCH_BRIDGE_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	const n, iters, reps = 1024, 10, 5
	lib := openLib(t, name)
	job, err := lib.PrepareGemm(cblas.F32, false, false, n, n, n, cblas.JobOptions{Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	in := make([]float64, n*n)
	for i := range in { // the C program's values
		in[i] = float64(float32(float64(uint32(i)*2654435761%2001)/1000 - 1))
	}
	job.SetInput(0, in)
	job.SetInput(1, in)
	job.Run(1) // warm up
	flops := 2.0 * n * n * n * iters
	goRun := func() (best, median float64) {
		g := make([]float64, reps)
		for r := range g {
			d, err := job.Run(iters)
			if err != nil {
				t.Fatal(err)
			}
			g[r] = flops / d.Seconds() * 1e-9
		}
		slices.Sort(g)
		return g[reps-1], g[reps/2]
	}
	re := regexp.MustCompile(`best_gflops=([0-9.]+) median_gflops=([0-9.]+)`)
	cRun := func() (best, median float64) {
		out, err := exec.Command(bench, "-l", name, "-n", strconv.Itoa(n), "-t", strconv.Itoa(threads),
			"-i", strconv.Itoa(iters), "-r", strconv.Itoa(reps)).CombinedOutput()
		m := re.FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("%s: %v\n%s", bench, err, out)
		}
		best, _ = strconv.ParseFloat(string(m[1]), 64)
		median, _ = strconv.ParseFloat(string(m[2]), 64)
		return best, median
	}
	var goMed, cMed, goBest, cBest []float64
	// The pause lets the other side's worker threads stop spinning (OpenBLAS
	// and OpenMP runtimes busy-wait a while after a call) before the next
	// side runs: on a small machine they would steal its cores.
	pause := func() { time.Sleep(500 * time.Millisecond) }
	for r := range rounds {
		pause()
		cb, cm := cRun()
		pause()
		gb, gm := goRun()
		cBest, cMed, goBest, goMed = append(cBest, cb), append(cMed, cm), append(goBest, gb), append(goMed, gm)
		t.Logf("round %d: C best %.1f median %.1f GFLOP/s | Go best %.1f median %.1f GFLOP/s | median ratio Go/C %.3f",
			r+1, cb, cm, gb, gm, gm/cm)
	}
	med := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
	best := slices.Max(goBest) / slices.Max(cBest)
	summary := fmt.Sprintf("%s %s sgemm n=%d threads=%d, %d rounds: best C %.1f, Go %.1f GFLOP/s: ratio %.3f; median of medians C %.1f, Go %.1f: ratio %.3f",
		name, lib.Version(), n, threads, rounds, slices.Max(cBest), slices.Max(goBest), best, med(cMed), med(goMed), med(goMed)/med(cMed))
	t.Log(summary)
	if best < 0.97 {
		t.Errorf("bridge overhead over 3%%: %s", summary)
	}
}
