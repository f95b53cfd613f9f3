// Package worker runs backends that live in another process — frameworks
// such as PyTorch and NumPy — through the worker protocol of
// docs/workers.md: JSON lines over the worker's standard input and output,
// inputs and outputs in a shared memory file, iterations timed by the
// worker's own clock. Verification, statistics, peaks and reports stay
// peakbench's: a worker's kernel is a backend.Kernel like any other.
//
// It registers "torch" (PyTorch on the CPU), "torch-cuda" (PyTorch on the
// selected GPU) and "numpy" (NumPy and SciPy), whose workers ship in
// python/ and are built into the binary (python.go). The same protocol
// runs peakbench's own vendor-library backends in a child process
// (isolate.go, serve.go), so that a library that crashes or hangs costs
// its own results only.
package worker

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/workload"
)

// DefaultTimeout bounds the wait for a hello: imports of a large framework
// on a loaded machine stay well within it. It is also the watchdog's limit
// for the other requests when the backend was opened without one
// (backend.OpenOptions.Timeout; watchdog.go).
const DefaultTimeout = 2 * time.Minute

// Spec says how to start a worker.
type Spec struct {
	Name    string          // the backend's name, e.g. "torch"
	Command []string        // program and arguments
	Env     []string        // added to peakbench's environment
	Device  platform.Device // what hello asks for: the host (the zero value) or "cuda:N"
	// Timeout is the least time a request may take before the worker is
	// taken to hang and stopped (watchdog.go); 0: DefaultTimeout.
	Timeout time.Duration
	// Builtin marks peakbench itself serving one of its own backends
	// (isolate.go): the hello's details are the backend's own and are
	// reported as they are, its messages already name the backend, and the
	// C layer in the child sets the idle-wait variables itself.
	Builtin bool
}

// Backend is a running worker process as a peakbench backend.
type Backend struct {
	spec   Spec
	hello  reply
	device platform.Device // the hello's, read once
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan line
	stderr *tail
	exited chan struct{} // closed when the process has been waited for
	quit   chan struct{} // closed when peakbench stops the worker
	once   sync.Once

	// interrupted is set by Interrupt, which stops the worker without
	// waiting for the request under way (it holds mu).
	interrupted atomic.Bool

	mu     sync.Mutex
	dead   error // set once the worker failed; every later request returns it
	nextID int
}

type line struct {
	b   []byte
	err error
}

// Start starts the worker and exchanges hellos. The error is one line:
// why the worker could not start, or what its hello refused.
func Start(spec Spec) (*Backend, error) {
	b, err := start(spec)
	if err != nil {
		return nil, err
	}
	if err := b.greet(); err != nil {
		b.kill()
		return nil, err
	}
	return b, nil
}

func start(spec Spec) (*Backend, error) {
	if len(spec.Command) == 0 {
		return nil, fmt.Errorf("%s: worker: no command", spec.Name)
	}
	if spec.Timeout <= 0 {
		spec.Timeout = DefaultTimeout
	}
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Env = os.Environ()
	if !spec.Builtin {
		cmd.Env = append(cmd.Env, idleWait()...)
	}
	cmd.Env = append(cmd.Env, spec.Env...)
	// Its own process group: a terminal's Ctrl-C reaches peakbench, which
	// then stops the worker (Interrupt) and writes what it measured, rather
	// than the worker dying mid-reply unseen; and killed with its parent
	// (procattr_linux.go), so a library hung in the child never outlives it.
	cmd.SysProcAttr = procAttr()
	b := &Backend{spec: spec, cmd: cmd, lines: make(chan line, 1), stderr: &tail{}, exited: make(chan struct{}), quit: make(chan struct{})}
	cmd.Stderr = b.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: worker: %v", spec.Name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: worker: %v", spec.Name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: worker %s: %w", spec.Name, strings.Join(spec.Command, " "), err)
	}
	b.stdin = stdin
	go b.read(stdout)
	return b, nil
}

// read passes the worker's lines to requests; at the end of its output it
// waits for the process, so that the exit status is known to the request
// that finds the pipe closed.
func (b *Backend) read(stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			b.cmd.Wait()
			close(b.exited)
			select { // nobody waits for it when a late reply fills the buffer
			case b.lines <- line{err: err}:
			default:
			}
			close(b.lines)
			return
		}
		select {
		case b.lines <- line{b: bytes.TrimSpace(l)}:
		case <-b.quit: // stopped: nobody reads any more
		}
	}
}

// greet sends hello and checks the reply: the protocol version, a name,
// and what the worker computes.
func (b *Backend) greet() error {
	rep, err := b.callWithin(request{Cmd: "hello", Protocol: Protocol, Device: b.spec.Device.String()}, max(b.spec.Timeout, DefaultTimeout), "")
	if err != nil {
		return err
	}
	if rep.Protocol != Protocol {
		err := fmt.Errorf("%s: worker speaks protocol %d; peakbench speaks %d (docs/workers.md)", b.spec.Name, rep.Protocol, Protocol)
		b.fail(err)
		return err
	}
	if rep.Version == "" {
		err := fmt.Errorf("%s: worker's hello names no version", b.spec.Name)
		b.fail(err)
		return err
	}
	b.device = b.spec.Device
	if rep.Device != "" {
		if b.device, err = platform.ParseDevice(rep.Device); err != nil {
			err = fmt.Errorf("%s: worker's hello: %v", b.spec.Name, err)
			b.fail(err)
			return err
		}
	}
	b.hello = *rep
	return nil
}

// errMissing marks a hello refused because the framework is not
// installed for this interpreter (reply.Missing): another may have it.
type errMissing struct{ msg string }

func (e errMissing) Error() string { return e.msg }

// call sends one request and returns the worker's reply. A reply that says
// ok: false comes back as an error with the worker's message (wrapping
// backend.ErrUnsupported when it says unsupported). A worker that exits,
// hangs past the timeout or writes a malformed line is stopped, and this
// and every later request return the error that says so.
func (b *Backend) call(req request) (*reply, error) { return b.callWithin(req, b.spec.Timeout, "") }

// callWithin is call with a time limit; what names the workload the
// request is about ("gemm f32 256x256x256"), for the messages of faults.
func (b *Backend) callWithin(req request, timeout time.Duration, what string) (*reply, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead != nil {
		return nil, b.dead
	}
	msg, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%s: worker: %v", b.spec.Name, err) // a bug: every field marshals
	}
	if _, err := b.stdin.Write(append(msg, '\n')); err != nil {
		return nil, b.failExited(req.Cmd, what)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var l line
	select {
	case got, ok := <-b.lines:
		if !ok || got.err != nil {
			return nil, b.failExited(req.Cmd, what)
		}
		l = got
	case <-timer.C:
		return nil, b.failLocked(b.timedOut(req.Cmd, what, timeout))
	case <-b.quit: // Interrupt, from another goroutine
		return nil, b.failLocked(b.interruptedErr())
	}
	var rep reply
	dec := json.NewDecoder(bytes.NewReader(l.b))
	if err := dec.Decode(&rep); err != nil || rep.OK == nil || dec.More() {
		why := "no \"ok\" field"
		if err != nil {
			why = err.Error()
		} else if dec.More() {
			why = "more than one JSON value"
		}
		return nil, b.failLocked(fmt.Errorf("%s: worker's reply to %s is malformed (%s): %q; stopped it", b.spec.Name, req.Cmd, why, clip(l.b, 80)))
	}
	if !*rep.OK {
		return nil, b.refusal(&rep)
	}
	return &rep, nil
}

// refusal is the error of a reply with ok: false: the worker's message,
// prefixed with the backend's name. A builtin worker's message is its
// backend's error as it would be in process, whole (-list prints a
// library's missing files in full), and stays as it is.
func (b *Backend) refusal(rep *reply) error {
	msg := strings.TrimSpace(rep.Error)
	switch {
	case msg == "":
		msg = b.spec.Name + ": failed, without a message"
	case !b.spec.Builtin:
		msg = b.spec.Name + ": " + firstLine(msg)
	}
	switch {
	case rep.Unsupported: // of an op and dtype the hello listed: this shape or configuration
		msg = strings.TrimSuffix(msg, ": "+backend.ErrUnsupported.Error())
		return backend.UnsupportedShape(fmt.Errorf("%s: %w", msg, backend.ErrUnsupported))
	case rep.Missing:
		return errMissing{msg}
	}
	return errors.New(msg)
}

// failExited records that the worker's pipe closed while a request was
// under way: how it died (fault.go), the workload it was on, and what it
// last wrote on standard error.
func (b *Backend) failExited(cmd, what string) error {
	select {
	case <-b.exited:
	case <-time.After(5 * time.Second):
	}
	if b.interrupted.Load() {
		return b.failLocked(b.interruptedErr())
	}
	return b.failLocked(fmt.Errorf("%s: worker %s while %s%s", b.spec.Name, b.death(), doing(cmd, what), b.stderr.last()))
}

// Interrupt stops the worker at once, even while a request is under way
// (a library call that never returns): that request and every later one
// return an error saying the run was interrupted. Call it when the run is
// cancelled (main does, on Ctrl-C, SIGTERM and SIGHUP).
func (b *Backend) Interrupt() {
	b.interrupted.Store(true)
	b.kill()
}

func (b *Backend) interruptedErr() error {
	return fmt.Errorf("%s: interrupted; stopped the worker", b.spec.Name)
}

// fail marks the worker dead with err and stops it.
func (b *Backend) fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failLocked(err)
}

func (b *Backend) failLocked(err error) error {
	if b.dead == nil {
		b.dead = err
	}
	b.kill()
	return b.dead
}

// idleWaitVars are what the C layer sets for the libraries it loads
// (quiet_idle_threads in native/loader.c), so that a worker's idle BLAS
// threads sleep rather than spin on the cores the next backend sampled
// needs: Intel OpenMP's block time, and OpenBLAS's thread timeout (its
// default spins about a tenth of a second after every call). A value
// the user set is kept.
var idleWaitVars = [][2]string{{"KMP_BLOCKTIME", "1"}, {"OPENBLAS_THREAD_TIMEOUT", "22"}}

func idleWait() []string {
	var out []string
	for _, kv := range idleWaitVars {
		if _, set := os.LookupEnv(kv[0]); !set {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	return out
}

// idleWaitDetail records the idle-wait settings the worker runs with, as
// the C backends' "idle_wait" detail does, with libgomp's, which
// PyTorch's OpenMP reads, when the user set them.
func idleWaitDetail(env []string) string {
	var parts []string
	for _, name := range []string{"KMP_BLOCKTIME", "OPENBLAS_THREAD_TIMEOUT", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				parts = append(parts, name+"="+v)
			}
		}
	}
	return strings.Join(parts, " ")
}

// kill stops the worker's process group and waits for it.
func (b *Backend) kill() {
	b.once.Do(func() { close(b.quit) })
	if p := b.cmd.Process; p != nil {
		syscall.Kill(-p.Pid, syscall.SIGKILL)
	}
	b.stdin.Close()
	select {
	case <-b.exited:
	case <-time.After(5 * time.Second):
	}
}

// PID is the worker's process id: the results' memory figures are that
// process's (bench/harness: OwnProcess); 0 once it has exited.
func (b *Backend) PID() int {
	if b.cmd == nil || b.cmd.Process == nil || b.cmd.ProcessState != nil {
		return 0
	}
	return b.cmd.Process.Pid
}

// Name implements backend.Backend.
func (b *Backend) Name() string { return b.spec.Name }

// Device implements backend.Backend: the device the worker's hello named,
// else the one it was asked for.
func (b *Backend) Device() platform.Device { return b.device }

// Info implements backend.Backend: the framework's version and the
// details its worker reports (its BLAS, threading, interpreter). A builtin
// worker's are its backend's own, unchanged: the same as in process.
func (b *Backend) Info() backend.Info {
	if b.spec.Builtin {
		// As the backend has it now (a GPU's clocks and throttling are
		// read again after a run); the hello's once the worker is gone.
		rep := &b.hello
		if now, err := b.call(request{Cmd: "info"}); err == nil {
			rep = now
		}
		d := make(map[string]string, len(rep.Details))
		for k, v := range rep.Details {
			d[k] = v
		}
		return backend.Info{Version: rep.Version, Details: d}
	}
	d := map[string]string{"worker": strings.Join(b.spec.Command, " "), "protocol": fmt.Sprint(Protocol)}
	if w := idleWaitDetail(b.cmd.Env); w != "" {
		d["idle_wait"] = w
	}
	for k, v := range b.hello.Details {
		d[k] = v
	}
	return backend.Info{Version: b.hello.Version, Details: d}
}

// Warnings reports what makes a builtin worker's numbers suspect, as its
// backend says (a GPU that throttled while it ran); nil for a framework's.
func (b *Backend) Warnings() []string {
	if !b.spec.Builtin {
		return nil
	}
	rep, err := b.call(request{Cmd: "info"})
	if err != nil {
		return nil
	}
	return rep.Warnings
}

// WhyNot implements backend.Explainer: the hello's reason for w's op in
// its dtype, else for the op; "" when it gave none.
func (b *Backend) WhyNot(w workload.Workload) string {
	if b.supports(w) {
		return ""
	}
	if why := b.hello.Unavailable[string(w.Op)+" "+string(w.DType)]; why != "" {
		return firstLine(why)
	}
	return firstLine(b.hello.Unavailable[string(w.Op)])
}

// Declared implements backend.Declarer: the ops and dtypes the worker's
// hello listed (for peakbench's own workers, what the backend in the child
// declares). Prepare asks the worker for these only; a worker that refuses
// one of them ("unsupported": true) refuses that shape or configuration.
func (b *Backend) Declared() backend.Support {
	s := backend.Support{}
	for op, dts := range b.hello.Ops {
		for _, dt := range dts {
			s.Add([]workload.DType{workload.DType(dt)}, workload.Op(op))
		}
	}
	return s
}

// supports says whether the hello listed w's op and dtype.
func (b *Backend) supports(w workload.Workload) bool {
	for _, dt := range b.hello.Ops[string(w.Op)] {
		if dt == string(w.DType) {
			return true
		}
	}
	return false
}

// Algorithms implements backend.BackendAlgorithms: those the hello listed
// for w's op.
func (b *Backend) Algorithms(w workload.Workload) []string { return b.hello.Algorithms[string(w.Op)] }

// Prepare implements backend.Backend: the inputs go into a shared file,
// and the worker builds the kernel from them.
func (b *Backend) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !b.supports(w) {
		if why := b.WhyNot(w); why != "" {
			return nil, fmt.Errorf("%s: %s %s: %s: %w", b.spec.Name, w.Op, w.DType, why, backend.ErrUnsupported)
		}
		return nil, backend.Unsupported(b.spec.Name, w)
	}
	if cfg.Threads < 0 || cfg.Copies < 0 {
		return nil, fmt.Errorf("%s: bad config: threads %d, copies %d", b.spec.Name, cfg.Threads, cfg.Copies)
	}
	if algs := b.Algorithms(w); cfg.Algorithm != "" && !slices.Contains(algs, cfg.Algorithm) {
		if len(algs) == 0 {
			return nil, fmt.Errorf("%s: %s: unknown algorithm %q (the worker has one way)", b.spec.Name, w.Op, cfg.Algorithm)
		}
		return nil, fmt.Errorf("%s: %s: unknown algorithm %q (accepted: %s)", b.spec.Name, w.Op, cfg.Algorithm, strings.Join(algs, ", "))
	}
	b.mu.Lock()
	dead := b.dead
	b.nextID++
	id := b.nextID
	b.mu.Unlock()
	if dead != nil {
		return nil, dead
	}
	sh, err := newShared(b.spec.Name, wideElems(w), in.Args, w.OutputLen(), b.sparseIndex(w))
	if err != nil {
		return nil, fmt.Errorf("%s: %s %s: %v", b.spec.Name, w.Op, w.DType, err)
	}
	defer sh.remove() // the worker has mapped it by the time prepare returns
	out := sh.output
	k := &kernel{b: b, id: id, sh: sh, what: w.String(), estimate: cfg.Estimate}
	rep, err := b.callWithin(request{
		Cmd: "prepare", ID: id, Op: string(w.Op), DType: string(w.DType),
		Shape: w.Shape.Format(w.Op), Dims: dimsOf(w), Alpha: in.Alpha,
		Threads: cfg.Threads, Copies: max(cfg.Copies, 1),
		File: sh.path, Inputs: sh.inputs, Output: &out, Index: sh.index, Algorithm: cfg.Algorithm,
	}, b.spec.Timeout, k.what)
	if err != nil {
		sh.close()
		return nil, err
	}
	k.impl, k.alg, k.unit = rep.Implementation, rep.Algorithm, rep.ComputeUnit
	k.plan = time.Duration(rep.PlanNS)
	if k.alg == "" {
		k.alg = cfg.Algorithm
	}
	return k, nil
}

// sparseIndex is the CSR pattern a framework's worker needs beside the
// values of a sparse workload (Data holds the values and x only): the row
// pointers and column indices. nil for other ops, and for peakbench's own
// workers, which make the matrix again from the shape.
func (b *Backend) sparseIndex(w workload.Workload) [][]int32 {
	if !w.Op.Sparse() || b.spec.Builtin {
		return nil
	}
	m := w.SparseMatrix()
	return [][]int32{m.RowPtr, m.ColIdx}
}

// Close implements backend.Backend: it asks the worker to exit, and stops
// it when it does not within a few seconds.
func (b *Backend) Close() error {
	b.mu.Lock()
	dead := b.dead
	b.mu.Unlock()
	if dead == nil {
		b.callWithin(request{Cmd: "close"}, 5*time.Second, "")
		b.stdin.Close()
		select {
		case <-b.exited:
			return nil
		case <-time.After(5 * time.Second):
		}
	}
	b.kill()
	return nil
}

// kernel is one workload prepared in the worker.
type kernel struct {
	b    *Backend
	id   int
	sh   *shared
	impl string
	alg  string
	unit string        // the compute unit the served kernel named
	plan time.Duration // the served kernel's plan time (backend.KernelPlanTime)
	what string        // the workload, for messages: "gemm f32 256x256x256"

	// For the watchdog (watchdog.go): the harness's bound on one
	// iteration, and the slowest iteration seen so far.
	estimate, perIter time.Duration
}

// Run implements backend.Kernel: the worker runs iters iterations and
// times them with its own clock (synchronizing its device first and last).
func (k *kernel) Run(iters int) (time.Duration, error) {
	if iters < 1 {
		return 0, fmt.Errorf("%s: Run(%d): iterations must be at least 1", k.b.spec.Name, iters)
	}
	rep, err := k.b.callWithin(request{Cmd: "run", ID: k.id, Iters: iters}, k.runLimit(iters), k.what)
	if err != nil {
		return 0, err
	}
	if rep.NS == nil || *rep.NS <= 0 {
		got := "none"
		if rep.NS != nil {
			got = strconv.FormatInt(*rep.NS, 10)
		}
		err := fmt.Errorf("%s: worker's reply to run has no positive \"ns\" (%s); stopped it", k.b.spec.Name, got)
		k.b.fail(err)
		return 0, err
	}
	d := time.Duration(*rep.NS)
	k.perIter = max(k.perIter, d/time.Duration(iters))
	return d, nil
}

// Output implements backend.Kernel: the worker writes its latest result
// into the shared output region, which peakbench reads.
func (k *kernel) Output() ([]float64, error) {
	k.sh.clearOutput()
	if _, err := k.b.callWithin(request{Cmd: "output", ID: k.id}, k.b.spec.Timeout, k.what); err != nil {
		return nil, err
	}
	return k.sh.read(k.sh.output), nil
}

// Close implements backend.Kernel.
func (k *kernel) Close() error {
	k.b.callWithin(request{Cmd: "free", ID: k.id}, k.b.spec.Timeout, k.what) // a dead worker has freed everything
	k.sh.close()
	return nil
}

// Implementation implements backend.KernelImplementation: the call the
// worker times, as it names it.
func (k *kernel) Implementation() string { return k.impl }

// ComputeUnit implements backend.KernelComputeUnit: the unit the served
// kernel named.
func (k *kernel) ComputeUnit() string { return k.unit }

// PlanTime implements backend.KernelPlanTime: the served kernel's.
func (k *kernel) PlanTime() time.Duration { return k.plan }

// Algorithm implements backend.KernelAlgorithm: the algorithm the worker
// says the kernel runs, else the one asked for.
func (k *kernel) Algorithm() string { return k.alg }

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
