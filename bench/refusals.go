package main

import (
	"io"
	"sort"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
)

// refusals keeps, per backend and dtype, how many workloads it refused
// (harness.Plan.Refused: a shape or configuration it cannot run, or a
// low-precision dtype it does not compute) and the first reason, so that a
// backend that measured nothing, or nothing in one dtype, says why rather
// than vanish from the output: the single-threaded libraries (netlib,
// ATLAS) in a run at two threads only; `-dtype=bf16` on a library without
// a bf16 gemm.
type refusals struct {
	count map[refusalKey]int
	first map[refusalKey]string
}

type refusalKey struct{ backend, dtype string }

func newRefusals() *refusals {
	return &refusals{count: map[refusalKey]int{}, first: map[refusalKey]string{}}
}

// add is harness.Plan.Refused; the harness calls it from one goroutine.
func (r *refusals) add(name string, w workload.Workload, _ int, err error) {
	k := refusalKey{name, string(w.DType)}
	if r.count[k] == 0 {
		r.first[k] = err.Error()
	}
	r.count[k]++
}

// report prints one line for each opened backend without a result in
// results that refused workloads, with the first reason; and one for each
// dtype a backend with results elsewhere refused every workload of.
func (r *refusals) report(stderr io.Writer, backends []backend.Backend, results []result.Result) {
	measured := map[refusalKey]bool{}
	for _, res := range results {
		measured[refusalKey{res.Backend, ""}] = true
		measured[refusalKey{res.Backend, res.DType}] = true
	}
	var keys []refusalKey
	for k := range r.count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].backend != keys[j].backend {
			return keys[i].backend < keys[j].backend
		}
		return keys[i].dtype < keys[j].dtype
	})
	opened := map[string]bool{}
	for _, b := range backends {
		opened[b.Name()] = true
	}
	said := map[string]bool{}
	for _, k := range keys {
		switch {
		case !opened[k.backend] || measured[k]:
		case !measured[refusalKey{k.backend, ""}]:
			if !said[k.backend] {
				n, first := r.total(k.backend)
				progressf(stderr, "%s: no results: it refused %d workload runs, e.g. %s", k.backend, n, first)
				said[k.backend] = true
			}
		default:
			progressf(stderr, "%s: no %s results: it refused %d workload runs, e.g. %s", k.backend, k.dtype, r.count[k], r.first[k])
		}
	}
}

// total is every refusal of backend name and the first reason among its
// dtypes, in dtype order.
func (r *refusals) total(name string) (n int, first string) {
	var dts []string
	for k, c := range r.count {
		if k.backend == name {
			n += c
			dts = append(dts, k.dtype)
		}
	}
	sort.Strings(dts)
	if len(dts) > 0 {
		first = r.first[refusalKey{name, dts[0]}]
	}
	return n, first
}
