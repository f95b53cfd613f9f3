package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/peakbench/peakbench/bench/internal/atomicfile"
	"github.com/peakbench/peakbench/bench/internal/hostuse"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/measure"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/gobackend/elem"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/quant"
	"github.com/peakbench/peakbench/gobackend/reduce"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// `-tune` searches the gobackend kernels' parameters on this machine and
// writes them to its tune file (docs/tuning.md). For each thread crossover
// it times the parameter's kernels at 1 thread and at N (the largest
// -threads) over a ladder of sizes, all interleaved (measure.Interleaved),
// and keeps the smallest size from which N threads win by winMargin and
// never lose at a larger size; the piece size stored is half of it, since a
// vector splits from twice its piece (tune.Parallel).

// winMargin is how much faster N threads must be at the crossover: less
// than the spread of a median on a shared machine would move the crossover
// back and forth between runs for no gain.
const winMargin = 1.05

// minDecisionSamples is the fewest samples per timed kernel a parameter is
// decided on; a parameter cut short before that keeps its default.
const minDecisionSamples = 3

// tuneSearch is one parameter's search: its kernels and its ladder.
type tuneSearch struct {
	field  string
	ops    []tuneOp
	ladder []int // bytes of x, ascending (stores, zmm: bytes a call moves)
	kind   searchKind
}

// fields are the parameters s sets: its own, then any others its custom
// search sets from the same steps (customSearch.others).
func (s tuneSearch) fields() []string {
	return append([]string{s.field}, customSearches[s.field].others...)
}

// searchKind is what a search compares at each size of its ladder.
type searchKind int

const (
	// kindThreads: a thread crossover (parallel.*), 1 thread against N
	// with the piece at half the size.
	kindThreads searchKind = iota
	// kindStores: a store-kind crossover (nontemporal.*): each kernel with
	// ordinary and with non-temporal stores, at 1 thread and at N.
	kindStores
	// kindZMM: a vector-width crossover (zmm.*): each kernel at the AVX512
	// level with its AVX-512 kernels and with its AVX2 ones, at 1 thread
	// and at N.
	kindZMM
)

// tuneOp runs one kernel on the first bytes of x of its buffers.
type tuneOp struct {
	name string
	run  func(bytes, threads int)
}

// ladder is the sizes from lo to hi bytes, doubling.
func ladder(lo, hi int) []int {
	var s []int
	for b := lo; b <= hi; b *= 2 {
		s = append(s, b)
	}
	return s
}

// tuneSearches are the searches, in the order of tune.Params.Fields.
func tuneSearches() []tuneSearch {
	const top = 2 << 20 // the largest vector of the cheap ops and reductions
	q := quantOps(quantTop)
	w := wideOps(wideTop)
	s := append([]tuneSearch{
		{"parallel.elem_cheap.f32", cheapOps[float32](top), ladder(4<<10, top), kindThreads},
		{"parallel.elem_cheap.f64", cheapOps[float64](top), ladder(4<<10, top), kindThreads},
		{"parallel.reduce.f32", reduceOps[float32](top), ladder(4<<10, top), kindThreads},
		{"parallel.reduce.f64", reduceOps[float64](top), ladder(4<<10, top), kindThreads},
		{"parallel.elem_math.f32", mathOps[float32](256 << 10), ladder(1<<10, 256<<10), kindThreads},
		{"parallel.elem_math.f64", mathOps[float64](256 << 10), ladder(1<<10, 256<<10), kindThreads},
		{"nontemporal.quantize", q[:1], ladder(quantBottom, quantTop), kindStores},
		{"nontemporal.dequantize", q[1:], ladder(quantBottom, quantTop), kindStores},
	}, gemmSearches()...)
	if isa.Best >= isa.AVX512 { // below, both ways run the AVX2 kernels: nothing to choose
		s = append(s,
			tuneSearch{"zmm.memory", w[:2], ladder(wideBottom, wideTop), kindZMM},
			tuneSearch{"zmm.math", w[2:4], ladder(wideBottom, wideTop), kindZMM})
	}
	s = append(s, tuneSearch{"nontemporal.elem", w[4:], ladder(wideBottom, wideTop), kindStores})
	s = append(s, gemvSearches()...)
	s = append(s, fftSearches()...)
	return append(s, walkSearch(walkTuneLadder))
}

// The ladder of the vector-width crossovers and of elem's store kind, in
// bytes a call moves: from 2 MiB, inside the last-level cache of most
// machines, to 128 MiB, past what a process of a few cores gets of it.
const (
	wideBottom = 2 << 20
	wideTop    = 128 << 20
)

// wideOps are, on the first bytes a call moves of f32 buffers allocated at
// their first run (2× top: x of top bytes, y and z of half): add and sum
// (zmm.memory), exp and tanh (zmm.math), ReLU and exp (nontemporal.elem),
// each at isa.Best.
func wideOps(top int) []tuneOp {
	type bufs struct{ x, y, z []float32 }
	get := sync.OnceValue(func() bufs {
		b := bufs{x: make([]float32, top/4), y: make([]float32, top/8), z: make([]float32, top/8)}
		for i := range b.x {
			b.x[i] = float32(i%1024)/1024 - 0.5 // in [−0.5, 0.5): no overflow, no subnormals
		}
		copy(b.y, b.x[1:])
		return b
	})
	unary := func(name string, f func(isa.Level, []float32, []float32, int)) tuneOp {
		return tuneOp{name, func(bytes, th int) { b := get(); n := bytes / 8; f(isa.Best, b.x[:n], b.z[:n], th) }}
	}
	return []tuneOp{
		{"add", func(bytes, th int) {
			b := get()
			n := bytes / 12
			elem.Add(isa.Best, b.x[:n], b.y[:n], b.z[:n], th)
		}},
		{"sum", func(bytes, th int) { b := get(); tuneSink += float64(reduce.Sum(isa.Best, b.x[:bytes/4], th)) }},
		unary("exp", elem.Exp[float32]),
		unary("tanh", elem.Tanh[float32]),
		unary("relu", elem.ReLU[float32]),
		unary("exp", elem.Exp[float32]),
	}
}

// The store-kind ladder, in bytes a quantize or dequantize call moves (5 per
// element): from 256 Ki elements, well inside the caches, to 64 Mi, past
// any last-level cache a process of a few cores gets.
const (
	quantBottom = 5 << 18
	quantTop    = 5 << 26
)

// tuneSink keeps the reductions' results alive.
var tuneSink float64

func vectors[T elem.Float](bytes, count int) [][]T {
	n := bytes / int(elemSize[T]())
	vs := make([][]T, count)
	for i := range vs {
		vs[i] = make([]T, n)
		for j := range vs[i] {
			vs[i][j] = T(math.Sin(float64(j+i)) * 0.5) // in (−0.5, 0.5): no overflow, no subnormals
		}
	}
	return vs
}

func elemSize[T elem.Float]() uintptr {
	var z T
	return unsafe.Sizeof(z)
}

func cheapOps[T elem.Float](top int) []tuneOp {
	v := vectors[T](top, 3)
	x, y, z := v[0], v[1], v[2]
	n := func(b int) int { return b / int(elemSize[T]()) }
	return []tuneOp{
		{"add", func(b, th int) { elem.Add(isa.Best, x[:n(b)], y[:n(b)], z[:n(b)], th) }},
		{"axpy", func(b, th int) { elem.Axpy(isa.Best, 1e-9, x[:n(b)], y[:n(b)], th) }},
		// relu moves the fewest bytes an element of the family (and quantize,
		// which takes the same piece, costs about as much): its crossover
		// comes last.
		{"relu", func(b, th int) { elem.ReLU(isa.Best, x[:n(b)], z[:n(b)], th) }},
	}
}

func reduceOps[T elem.Float](top int) []tuneOp {
	v := vectors[T](top, 2)
	x, y := v[0], v[1]
	n := func(b int) int { return b / int(elemSize[T]()) }
	return []tuneOp{
		{"sum", func(b, th int) { tuneSink += float64(reduce.Sum(isa.Best, x[:n(b)], th)) }},
		{"dot", func(b, th int) { tuneSink += float64(reduce.Dot(isa.Best, x[:n(b)], y[:n(b)], th)) }},
	}
}

func mathOps[T elem.Float](top int) []tuneOp {
	v := vectors[T](top, 2)
	x, y := v[0], v[1]
	n := func(b int) int { return b / int(elemSize[T]()) }
	return []tuneOp{
		{"exp", func(b, th int) { elem.Exp(isa.Best, x[:n(b)], y[:n(b)], th) }},
		{"sigmoid", func(b, th int) { elem.Sigmoid(isa.Best, x[:n(b)], y[:n(b)], th) }},
	}
}

// quantOps are quantize and dequantize, i8 per tensor, on the first bytes
// (input and output, 5 per element) of buffers of top bytes, allocated at
// their first run (580 MiB at the ladder's top: not for a search that
// never runs them).
func quantOps(top int) []tuneOp {
	type bufs struct {
		x, y []float32
		q    []int8
	}
	get := sync.OnceValue(func() bufs {
		n := top / 5
		b := bufs{x: make([]float32, n), y: make([]float32, n), q: make([]int8, n)}
		for i := range b.x {
			b.x[i] = float32(i%255-127) * 0.01 // inside the range of the scale below: no saturation
		}
		quant.Quantize(isa.Best, b.x, 0.01, 0, b.q, runtime.NumCPU())
		return b
	})
	return []tuneOp{
		{"quantize", func(bytes, th int) { b := get(); quant.Quantize(isa.Best, b.x[:bytes/5], 0.01, 0, b.q[:bytes/5], th) }},
		{"dequantize", func(bytes, th int) { b := get(); quant.Dequantize(isa.Best, b.q[:bytes/5], 0.01, 0, b.y[:bytes/5], th) }},
	}
}

// tuneTarget is one kernel at one size and thread count, under the
// parameters it is timed with (applied before each sample, outside the
// timed loop: the targets of one search differ in them).
type tuneTarget struct {
	op      tuneOp
	bytes   int
	threads int
	params  tune.Params
}

func (t tuneTarget) Run(iters int) (time.Duration, error) {
	tune.Apply(t.params, "-tune search")
	start := time.Now()
	for range iters {
		t.op.run(t.bytes, t.threads)
	}
	return time.Since(start), nil
}

// tuneOptions are measure's options for the search: samples a few
// milliseconds long, since a ladder has tens of kernels to cycle through.
func tuneOptions(maxTime time.Duration) measure.Options {
	return measure.Options{MinTime: 2 * time.Millisecond, MinSamples: 7, MaxSamples: 31,
		NoiseTarget: 0.02, MaxTime: maxTime, Seed: 1}
}

// searchOne times s's kernels at 1 and threads threads over its ladder,
// within ctx, and returns the ladder's steps (nil when cut short before
// minDecisionSamples) and the piece size they give.
func searchOne(ctx context.Context, s tuneSearch, base tune.Params, threads int, maxTime time.Duration) ([]tune.Step, int, error) {
	if c, ok := customSearches[s.field]; ok { // tune_gemm.go
		return c.search(ctx, base, threads, maxTime)
	}
	// Each kernel at each size is timed twice, the baseline first: at 1
	// and at N threads with the piece at half the size (a thread
	// crossover), with ordinary and with non-temporal stores at each of
	// 1 and N threads (a store-kind crossover), or with the AVX-512 and
	// with the AVX2 kernels at each of 1 and N threads (a width crossover).
	var pairs [][]timedPair // per size
	for _, b := range s.ladder {
		var ps []timedPair
		for _, op := range s.ops {
			if s.kind == kindThreads {
				p := base
				setField(&p, s.field, b/2) // so that b splits, in two pieces
				ps = append(ps, timedPair{op.name, tuneTarget{op, b, 1, p}, tuneTarget{op, b, threads, p}})
				continue
			}
			ordinary, nt := base, base // zmm: AVX-512 (never AVX2), AVX2
			setField(&ordinary, s.field, tune.MaxPieceBytes)
			setField(&nt, s.field, 0)
			for _, th := range []int{1, threads} {
				ps = append(ps, timedPair{fmt.Sprintf("%s@%d", op.name, th), tuneTarget{op, b, th, ordinary}, tuneTarget{op, b, th, nt}})
			}
		}
		pairs = append(pairs, ps)
	}
	steps, err := timeLadder(ctx, s.ladder, pairs, maxTime)
	if err != nil || steps == nil {
		return nil, 0, err
	}
	switch s.kind {
	case kindStores:
		slowestThreads(steps, pairs)
		return steps, crossoverBytes(steps), nil
	case kindZMM:
		return steps, crossoverLast(steps), nil
	}
	return steps, crossoverPiece(steps), nil
}

// timedPair is one comparison at a ladder size: the baseline (one) first.
type timedPair struct {
	name     string
	one, two tuneTarget
}

// timeLadder times every pair of every ladder size, all interleaved, and
// returns a step per size whose speedup is the geometric mean, over its
// pairs, of the baseline's median over the other's; nil when cut short
// before minDecisionSamples.
func timeLadder(ctx context.Context, ladder []int, pairs [][]timedPair, maxTime time.Duration) ([]tune.Step, error) {
	var targets []measure.Target
	for _, ps := range pairs {
		for _, p := range ps {
			targets = append(targets, p.one, p.two)
		}
	}
	res, err := measure.Interleaved(ctx, targets, tuneOptions(maxTime))
	if err != nil && !errors.Is(err, measure.ErrInterrupted) {
		return nil, err
	}
	steps := make([]tune.Step, len(ladder))
	i := 0
	for k, b := range ladder {
		st := tune.Step{Bytes: b, NS: map[string][2]float64{}}
		logSum := 0.0
		for _, p := range pairs[k] {
			one, two := res[i], res[i+1]
			i += 2
			if one.Err != nil || two.Err != nil {
				return nil, errors.Join(one.Err, two.Err)
			}
			if one.Stats.N < minDecisionSamples || two.Stats.N < minDecisionSamples {
				return nil, nil
			}
			st.NS[p.name] = [2]float64{one.Stats.Median, two.Stats.Median}
			logSum += math.Log(one.Stats.Median / two.Stats.Median)
		}
		st.Speedup = math.Exp(logSum / float64(len(pairs[k])))
		steps[k] = st
	}
	return steps, nil
}

// slowestThreads sets each step's speedup to the least, over the thread
// counts, of the geometric mean over the kernels at that count: one store
// kind's threshold serves every thread count, and the bytes a call moves
// are split between its threads. On the 2-vCPU Zen 5 Turin VM ReLU over
// 2 MiB moved ran 1.3× as fast with non-temporal stores on one thread
// (its 1 MiB L2 overflowed) and 0.87–0.93× as fast on two (each half fits
// its own), and the mean over both chose them from 2 MiB: the suite's ReLU
// of 256 Ki f32 on two threads then took 1.37× as long.
func slowestThreads(steps []tune.Step, pairs [][]timedPair) {
	for k := range steps {
		logs := map[int][]float64{}
		for _, p := range pairs[k] {
			if ns, ok := steps[k].NS[p.name]; ok && ns[1] > 0 {
				logs[p.one.threads] = append(logs[p.one.threads], math.Log(ns[0]/ns[1]))
			}
		}
		least := math.Inf(1)
		for _, l := range logs {
			sum := 0.0
			for _, v := range l {
				sum += v
			}
			least = min(least, math.Exp(sum/float64(len(l))))
		}
		if !math.IsInf(least, 1) {
			steps[k].Speedup = least
		}
	}
}

// crossoverPiece is the piece size the steps give: half the smallest size
// from which N threads are winMargin faster and no larger size is slower
// than one thread; past the ladder's top (its largest size: a split from
// twice that) when none is.
func crossoverPiece(steps []tune.Step) int {
	from := crossover(steps)
	if from == len(steps) {
		return steps[len(steps)-1].Bytes
	}
	return steps[from].Bytes / 2
}

// crossoverBytes is the size from which non-temporal stores are used: the
// smallest from which they are winMargin faster and no larger size is
// slower with them; twice the ladder's top when none is.
func crossoverBytes(steps []tune.Step) int {
	from := crossover(steps)
	if from == len(steps) {
		return 2 * steps[len(steps)-1].Bytes
	}
	return steps[from].Bytes
}

// crossoverLast is the largest size before the smallest from which the
// second way is winMargin faster and no larger size is slower (zmm.*: the
// most bytes the AVX-512 kernels move); 0 when the second way wins from the
// ladder's foot, tune.MaxPieceBytes when it never does.
func crossoverLast(steps []tune.Step) int {
	switch from := crossover(steps); from {
	case len(steps):
		return tune.MaxPieceBytes
	case 0:
		return 0
	default:
		return steps[from-1].Bytes
	}
}

// crossover is the index of the smallest size from which the second way
// is winMargin faster and no larger size is slower; len(steps) when none.
func crossover(steps []tune.Step) int {
	from := len(steps)
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Speedup < 1 {
			break
		}
		if steps[i].Speedup >= winMargin {
			from = i
		}
	}
	return from
}

// runTune is `-tune`: it searches every parameter within the budget and
// writes what it found (all of it, or on Ctrl-C or at the end of the
// budget the parameters decided so far, the others at their defaults) to
// the tune file.
func runTune(ctx context.Context, stderr io.Writer, cfg *config) error {
	return tuneWith(ctx, stderr, cfg, tuneSearches, nil)
}

// tuneWith is runTune over the searches made by makeSearches (their
// buffers allocated once the flags are checked); after, when set, runs
// after each parameter (tests cancel ctx there).
func tuneWith(ctx context.Context, stderr io.Writer, cfg *config, makeSearches func() []tuneSearch, after func(field string)) error {
	threads := slices.Max(cfg.threads)
	if threads < 2 {
		return usagef("-tune: compares 1 thread with more: give -threads of 2 or more (the default is every CPU, %d here)", runtime.NumCPU())
	}
	m := tuneMachine(peak.DetectMachine())
	path, _, err := tuneFilePath(cfg, m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("-tune: %v", err)
	}
	if err := atomicfile.CheckWritable(path); err != nil {
		return usagef("-tune-file: %v", err)
	}
	noteStop(stopTune, path)
	defer tune.Save().Restore() // the search leaves the parameters as they were
	searches := makeSearches()
	start := time.Now()
	progressf(stderr, "tuning the go and asm kernels (%s) on %s: 1 thread against %d, for up to %v; Ctrl-C stops and keeps what was found", isa.Best, m.Brand, threads, cfg.tuneBudget)
	f := &tune.File{Version: tune.Version, Machine: m, Params: tune.Defaults(), Measured: tune.Measured{
		How:     fmt.Sprintf("each parameter's kernels over a ladder of sizes, interleaved (bench/measure), medians; parallel.*: at 1 and %d threads, the piece half the smallest size from which %d threads are %.2f× as fast or more (geometric mean over the kernels) and no larger size is slower; nontemporal.*: ordinary and non-temporal stores at 1 and %d threads, the size from which non-temporal stores are %.2f× as fast or more at each thread count (geometric mean over the kernels) and no larger size is slower; zmm.*: the AVX-512 and the AVX2 kernels at 1 and %d threads, the size below the smallest from which AVX2 is %.2f× as fast or more and no larger size is slower", threads, threads, winMargin, threads, winMargin, threads, winMargin),
		Threads: threads, Budget: cfg.tuneBudget.String(), Peakbench: peakbenchVersion(), Go: runtime.Version(),
		Ladders: map[string][]tune.Step{}, Tuned: []string{}, Host: map[string]tune.HostLoad{},
	}}
	deadline := start.Add(cfg.tuneBudget)
	for i, s := range searches {
		left := time.Until(deadline)
		if ctx.Err() != nil {
			break
		}
		if left <= 0 { // a line for each parameter all the same
			for _, r := range searches[i:] {
				progressf(stderr, "tune %s: not searched (out of budget); it keeps its default", r.field)
			}
			break
		}
		share := left / time.Duration(len(searches)-i)
		sctx, cancel := context.WithTimeout(ctx, share)
		before := hostuse.Read()
		steps, piece, err := searchOne(sctx, s, f.Params, threads, share/2)
		load, loadOK := hostLoad(before, hostuse.Read())
		cancel()
		if err != nil {
			return fmt.Errorf("-tune: %s: %v", s.field, err)
		}
		if steps == nil {
			progressf(stderr, "tune %s: cut short before it was decided; it keeps its default", s.field)
		} else {
			values := []int{piece}
			if c, ok := customSearches[s.field]; ok && c.also != nil {
				values = append(values, c.also(steps)...)
			}
			for k, name := range s.fields() {
				setField(&f.Params, name, values[k])
				f.Measured.Tuned = append(f.Measured.Tuned, name)
				if loadOK {
					f.Measured.Host[name] = load
				}
			}
			f.Measured.Ladders[s.field] = steps
			progressf(stderr, "tune %s (%s): %s%s", s.field, opNamesOf(s.ops), describeSteps(s, steps, piece, threads), busyText(load))
		}
		if after != nil {
			after(s.field)
		}
	}
	f.Measured.When = time.Now().UTC()
	f.Measured.Took = time.Since(start).Round(time.Millisecond).String()
	all := 0
	for _, s := range searches {
		all += len(s.fields())
	}
	f.Measured.Complete = len(f.Measured.Tuned) == all
	switch {
	case ctx.Err() != nil:
		f.Measured.Stopped = "interrupted"
	case !f.Measured.Complete:
		f.Measured.Stopped = "out of budget"
	}
	if err := atomicfile.WriteFileAtomic(path, func(w *os.File) error { return f.Write(w) }); err != nil {
		return err
	}
	progressf(stderr, "wrote %s: %d of %d parameters tuned in %s", path, len(f.Measured.Tuned), all, f.Measured.Took)
	if busy := f.Measured.SearchedBusy(); len(busy) > 0 {
		fmt.Fprintf(stderr, "peakbench: warning: %d of the parameters were searched while the host was busy (%s): their values are the load's as much as the machine's; run -tune again when it is quiet\n", len(busy), strings.Join(busy, ", "))
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: wrote the %d parameters found before the stop", len(f.Measured.Tuned))
	}
	return nil
}

// hostLoad is what the machine did besides this process between a and b;
// ok is false where /proc/stat or this process's CPU time could not be
// read.
func hostLoad(a, b hostuse.Snapshot) (tune.HostLoad, bool) {
	var u hostuse.Use
	u.Add(a, b)
	steal, okSteal := u.StealShare()
	others, okOthers := u.OtherThreads()
	return tune.HostLoad{Steal: steal, OtherThreads: others}, okSteal && okOthers
}

// busyText is what a search's progress line adds where the host was busy
// during it: "" where it was not.
func busyText(h tune.HostLoad) string {
	if !h.Busy() {
		return ""
	}
	return fmt.Sprintf(" (the host was busy meanwhile: hypervisor steal %s, other processes %.2f CPUs)", units.Percent(h.Steal), h.OtherThreads)
}

// setField sets p's parameter name; a name tune.Params does not have is a
// programming error (a search of a parameter nothing reads).
func setField(p *tune.Params, name string, v int) {
	for _, f := range p.Fields() {
		if f.Name == name {
			*f.Ptr = v
			return
		}
	}
	panic("tune: no parameter " + name)
}

func opNamesOf(ops []tuneOp) string {
	s := make([]string, len(ops))
	for i, op := range ops {
		s[i] = op.name
	}
	return strings.Join(s, ", ")
}

// describeSteps is one line: each size's speedup and the value chosen.
func describeSteps(s tuneSearch, steps []tune.Step, v, threads int) string {
	if c, ok := customSearches[s.field]; ok {
		return c.describe(steps, v, threads)
	}
	var b strings.Builder
	for _, st := range steps {
		fmt.Fprintf(&b, "%s %.2f× ", units.Bytes(st.Bytes), st.Speedup)
	}
	switch s.kind {
	case kindZMM:
		if v >= tune.MaxPieceBytes {
			return fmt.Sprintf("AVX2 over AVX-512 (1 and %d threads): %s→ AVX-512 at every size", threads, b.String())
		}
		return fmt.Sprintf("AVX2 over AVX-512 (1 and %d threads): %s→ AVX-512 up to %s moved", threads, b.String(), units.Bytes(v))
	case kindStores:
		return fmt.Sprintf("non-temporal stores over ordinary ones (the least of 1 and %d threads): %s→ non-temporal from %s moved", threads, b.String(), units.Bytes(v))
	}
	return fmt.Sprintf("%d threads over 1: %s→ split from %s (piece %s)", threads, b.String(), units.Bytes(2*v), units.Bytes(v))
}
