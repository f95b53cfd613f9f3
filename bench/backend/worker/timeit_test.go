package worker

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/workload"
)

// TestTorchMatchesTimeit: the torch worker's time per call agrees within
// timeitTolerance with timing the same call in plain Python with timeit, on
// the same interpreter, one thread: the median of the rounds' ratios, or
// the two sides' fastest rounds. Rounds alternate between the two so that
// a shared machine's slow spells hit both; each round keeps its fastest
// repeat (a slow spell only ever adds time).
func TestTorchMatchesTimeit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PyTorch")
	}
	b := backendtest.Open(t, "torch")
	py, _, _ := strings.Cut(b.Info().Details["python"], " ")
	for _, c := range []struct {
		w          workload.Workload
		setup, run string
	}{
		{workload.Workload{Op: workload.GEMM, DType: workload.F32, Shape: workload.Shape{M: 256, N: 256, K: 256}},
			"a = torch.rand(256, 256); b = torch.rand(256, 256); c = torch.empty(256, 256)", "torch.mm(a, b, out=c)"},
		{workload.Workload{Op: workload.Exp, DType: workload.F32, Shape: workload.Shape{N: 1 << 16}},
			"x = torch.rand(1 << 16) * 8; y = torch.empty(1 << 16)", "torch.exp(x, out=y)"},
	} {
		k, err := b.Prepare(c.w, c.w.NewData(1), backend.Config{Threads: 1, Copies: 1})
		if err != nil {
			t.Fatal(err)
		}
		if impl := backend.ImplementationOf(k); !strings.HasPrefix(impl, strings.Split(c.run, "(")[0]+"(") {
			t.Errorf("%s: the worker times %q, the test %q", c.w, impl, c.run)
		}
		// Iterations for about 20 ms, as peakbench's samples.
		d, err := k.Run(10)
		if err != nil {
			t.Fatal(err)
		}
		iters := max(int(20*time.Millisecond/(d/10+1)), 1)
		// Up to five attempts of five rounds, each a best of the worker's
		// and one of timeit's taken one after the other, judged by the
		// median over all rounds so far of the two's ratio in each: other
		// test packages run beside this one, and a call's time can switch
		// between two levels for a while (exp f32 64 Ki: 28–31 µs and
		// 50–80 µs within one attempt on the Zen 5 Turin VM under make
		// test), so the two sides' bests over many rounds may come from
		// different levels, while a round's two figures share one.
		var worker, timeit []float64
		for attempt := 1; ; attempt++ {
			for range 5 {
				var best float64
				for range 5 {
					d, err := k.Run(iters)
					if err != nil {
						t.Fatal(err)
					}
					ns := float64(d.Nanoseconds()) / float64(iters)
					if best == 0 || ns < best {
						best = ns
					}
				}
				worker = append(worker, best)
				timeit = append(timeit, pythonTimeit(t, py, c.setup, c.run, iters))
			}
			ratios := make([]float64, len(worker))
			for i := range worker {
				ratios[i] = worker[i] / timeit[i]
			}
			slices.Sort(ratios)
			diff := ratios[len(ratios)/2] - 1
			// Each timeit round is a fresh interpreter, whose buffers land
			// elsewhere, and the worker's level switches too: exp f32 64 Ki
			// ran at 38–45 or 54–77 µs on the Ice Lake VM, the rounds'
			// ratios pairing one level with the other (medians −18% in one
			// run, +30% in the next). The fastest round of each side shows
			// the fast level, and a timing error (an iteration count, a
			// setup on the clock) would move it as much as the medians.
			bestDiff := slices.Min(worker)/slices.Min(timeit) - 1
			t.Logf("%s, attempt %d: the worker's time over timeit's, median of %d rounds, %+.1f%%, fastest rounds %+.1f%%; rounds worker %v timeit %v", c.w, attempt, len(ratios), 100*diff, 100*bestDiff, us(worker), us(timeit))
			if math.Abs(diff) <= timeitTolerance || math.Abs(bestDiff) <= timeitTolerance {
				break
			}
			if attempt == 5 {
				t.Errorf("%s: the worker's time and timeit's differ by %+.1f%% (median of %d rounds) and by %+.1f%% (fastest rounds), more than %.0f%%", c.w, 100*diff, len(ratios), 100*bestDiff, 100*timeitTolerance)
				break
			}
		}
		k.Close()
	}
}

// timeitTolerance is how far the median ratio may stray from 1. Alone, exp
// f32 64 Ki read +1.1% and +2.5% on the Zen 5 Turin VM; under make test,
// with other test packages on both vCPUs, one run's 25 rounds read −5.4%
// (−11% to +5% from round to round): the load, not the timing method,
// which a wrong iteration count or a setup left on the clock would put
// far past this.
const timeitTolerance = 0.08

// pythonTimeit times stmt in a fresh interpreter: the best of 5 timeit
// repeats of iters calls, in ns per call.
func pythonTimeit(t *testing.T, py, setup, stmt string, iters int) float64 {
	t.Helper()
	prog := fmt.Sprintf("import timeit, torch\ntorch.set_num_threads(1)\n%s\nprint(min(timeit.repeat(%q, number=%d, repeat=5, globals=globals())) / %d * 1e9)\n",
		setup, stmt, iters, iters)
	cmd := exec.Command(py, "-c", prog)
	// The BLAS torch loaded on one thread too, as the worker sets it.
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1", "MKL_NUM_THREADS=1", "BLIS_NUM_THREADS=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -c …: %v", py, err)
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("timeit printed %q", out)
	}
	return ns
}

func us(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.1f", x/1e3)
	}
	return "[" + strings.Join(s, " ") + "]"
}
