package harness

import (
	"time"

	"github.com/peakbench/peakbench/bench/internal/hostuse"
	"github.com/peakbench/peakbench/bench/measure"
	"github.com/peakbench/peakbench/bench/result"
)

// usageTarget reads the host around each sample of a kernel: the CPU time
// of peakbench and its workers, and the hypervisor's steal. Samples of
// different backends are interleaved, so only the stretches inside this
// kernel's own Run calls count towards its result.
type usageTarget struct {
	measure.Target
	use hostuse.Use
}

func (u *usageTarget) Run(iters int) (time.Duration, error) {
	a := hostuse.Read()
	d, err := u.Target.Run(iters)
	u.use.Add(a, hostuse.Read())
	return d, err
}

// host is the result's HostUse, nil when nothing could be read.
func (u *usageTarget) host() *result.HostUse {
	busy, okBusy := u.use.BusyThreads()
	steal, okSteal := u.use.StealShare()
	if !okBusy && !okSteal {
		return nil
	}
	others, _ := u.use.OtherThreads()
	return &result.HostUse{BusyThreads: busy, Steal: steal, OtherThreads: others, SampledNS: float64(u.use.Wall.Nanoseconds())}
}

// waitQuiet is the harness's measure.Options.Quiet: after the settle
// pause, until the threads of this process and of the workers keep less
// than a tenth of a CPU busy over quietWindow, at most quietLimit. On the
// Zen 5 VM oneDNN's libgomp threads spun on for 5–8 ms past the 2 ms
// settle pause, a third of the next backend's 20 ms sample.
func waitQuiet() { hostuse.WaitQuiet(quietWindow, quietLimit) }

const (
	quietWindow = 500 * time.Microsecond
	quietLimit  = 25 * time.Millisecond
)
