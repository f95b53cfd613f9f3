package main

import (
	"io"
	"sort"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
)

// refusals keeps, per backend, how many workloads it refused as a shape or
// configuration it cannot run (harness.Plan.Refused) and the first reason,
// so that a backend that measured nothing says why rather than vanish from
// the output: the single-threaded libraries (netlib, ATLAS) in a run at two
// threads only.
type refusals struct {
	count map[string]int
	first map[string]string
}

func newRefusals() *refusals {
	return &refusals{count: map[string]int{}, first: map[string]string{}}
}

// add is harness.Plan.Refused; the harness calls it from one goroutine.
func (r *refusals) add(name string, _ workload.Workload, _ int, err error) {
	if r.count[name] == 0 {
		r.first[name] = err.Error()
	}
	r.count[name]++
}

// report prints one line for each opened backend without a result in
// results that refused workloads, with the first reason.
func (r *refusals) report(stderr io.Writer, backends []backend.Backend, results []result.Result) {
	measured := map[string]bool{}
	for _, res := range results {
		measured[res.Backend] = true
	}
	var names []string
	for _, b := range backends {
		if !measured[b.Name()] && r.count[b.Name()] > 0 {
			names = append(names, b.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		progressf(stderr, "%s: no results: it refused %d workload runs as configurations it cannot run, e.g. %s", n, r.count[n], r.first[n])
	}
}
