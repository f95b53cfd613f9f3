package journal

import (
	"fmt"
	"slices"
	"strings"

	"github.com/peakbench/peakbench/bench/peak"
)

// SameMachine fails, in one line, when the machine a journal was made on
// (was, as the header recorded it) is not the one detected now: another
// CPU model, count of CPUs or cores, micro-architecture, feature set,
// caches or unit claim. The figures measured at the start (FP units,
// clocks) are not compared: they are the journal's to keep.
func SameMachine(was, now peak.Machine) error {
	for _, c := range []struct {
		what     string
		was, now string
	}{
		{"CPU", cpuName(was), cpuName(now)},
		{"CPUs", fmt.Sprint(was.CPUs), fmt.Sprint(now.CPUs)},
		{"cores", fmt.Sprint(was.Cores), fmt.Sprint(now.Cores)},
		{"system", was.OS + "/" + was.Arch, now.OS + "/" + now.Arch},
		{"micro-architecture", was.Microarch, now.Microarch},
		{"FP units claimed", fmt.Sprintf("%+v", was.Table), fmt.Sprintf("%+v", now.Table)},
		{"caches", cachesText(was.Caches), cachesText(now.Caches)},
		{"CPU features", featuresDiff(was.Features, now.Features), ""},
	} {
		if c.was != c.now {
			if c.what == "CPU features" {
				return fmt.Errorf("the journal was made on a machine with other CPU features (%s): resume on the machine that started the run", c.was)
			}
			return fmt.Errorf("the journal was made on a machine with %s %s, this one has %s: resume on the machine that started the run", c.what, c.was, c.now)
		}
	}
	return nil
}

func cpuName(m peak.Machine) string {
	return fmt.Sprintf("%q (%s family %d model %d)", m.Model, m.Vendor, m.Family, m.ModelID)
}

func cachesText(cs []peak.Cache) string {
	var s []string
	for _, c := range cs {
		s = append(s, fmt.Sprintf("L%d %d B/%d", c.Level, c.Bytes, c.SharedBy))
	}
	return strings.Join(s, ", ")
}

// featuresDiff names the features only one side has; "" when the sets match.
func featuresDiff(was, now []string) string {
	var then, since []string
	for _, f := range was {
		if !slices.Contains(now, f) {
			then = append(then, f)
		}
	}
	for _, f := range now {
		if !slices.Contains(was, f) {
			since = append(since, f)
		}
	}
	switch {
	case len(then) == 0 && len(since) == 0:
		return ""
	case len(since) == 0:
		return "it had " + strings.Join(then, " ")
	case len(then) == 0:
		return "this one has " + strings.Join(since, " ")
	}
	return "it had " + strings.Join(then, " ") + ", this one has " + strings.Join(since, " ")
}

// ConfigOrder lists the settings of Header.Config in the order a
// mismatch is reported: the binary first, then the flags as -h lists them.
var ConfigOrder = []string{"version", "-backend", "backends opened", "-suite", "-op", "-size", "-dtype", "-threads",
	"-cache", "-seed", "-reference", "-min-time", "-noise", "-peak-gflops", "-peak-bw", "-device"}

// SameConfig fails, in one line, at the first setting where the journal's
// run (was) and this one (now) differ, then where their workload lists
// differ.
func SameConfig(was Header, now map[string]string, workloads []string) error {
	for _, k := range ConfigOrder {
		w, n := was.Config[k], now[k]
		if w == n {
			continue
		}
		switch {
		case k == "version" && w == "":
			return fmt.Errorf("the journal does not say which peakbench made it, this is %s: resume with the binary that started the run", n)
		case k == "version":
			return fmt.Errorf("the journal was made by peakbench %s, this is %s: resume with the binary that started the run", w, n)
		case strings.HasPrefix(k, "-"):
			return fmt.Errorf("the journal's run had %s=%s, this one has %s=%s: give the flags of the run being resumed", k, w, k, n)
		default:
			return fmt.Errorf("the journal's run had %s %s, this one %s: resume where the same backends are installed", k, w, n)
		}
	}
	if !slices.Equal(was.Workloads, workloads) {
		return fmt.Errorf("the journal's run had %d workloads, the same flags give %d here (%s): resume with the binary that started the run",
			len(was.Workloads), len(workloads), firstDiff(was.Workloads, workloads))
	}
	return nil
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("workload %d was %s, is %s", i+1, a[i], b[i])
		}
	}
	if len(a) > len(b) {
		return "then also " + a[len(b)]
	}
	return "now also " + b[len(a)]
}
