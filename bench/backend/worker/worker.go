// Package worker runs backends that live in another process — frameworks
// such as PyTorch and NumPy — through the worker protocol of
// docs/workers.md: JSON lines over the worker's standard input and output,
// inputs and outputs in a shared memory file, iterations timed by the
// worker's own clock. Verification, statistics, peaks and reports stay
// peakbench's: a worker's kernel is a backend.Kernel like any other.
//
// It registers "torch" (PyTorch on the CPU), "torch-cuda" (PyTorch on the
// selected GPU) and "numpy" (NumPy and SciPy), whose workers ship in
// python/ and are built into the binary (python.go).
package worker

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
)

// DefaultTimeout bounds the wait for any one reply: a worker silent for
// longer is taken to hang, and stopped. Imports of a large framework on a
// loaded machine and the largest suites' runs stay well within it.
const DefaultTimeout = 2 * time.Minute

// Spec says how to start a worker.
type Spec struct {
	Name    string   // the backend's name, e.g. "torch"
	Command []string // program and arguments
	Env     []string // added to peakbench's environment
	Device  string   // what hello asks for: "cpu" (default) or "cuda:N"
	Timeout time.Duration
}

// Backend is a running worker process as a peakbench backend.
type Backend struct {
	spec   Spec
	hello  reply
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan line
	stderr *tail
	exited chan struct{} // closed when the process has been waited for
	quit   chan struct{} // closed when peakbench stops the worker
	once   sync.Once

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
	if spec.Device == "" {
		spec.Device = "cpu"
	}
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Env = append(append(os.Environ(), idleWait()...), spec.Env...)
	// Its own process group: a terminal's Ctrl-C reaches peakbench, which
	// then closes the worker in order, rather than the worker dying mid-reply.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
	rep, err := b.call(request{Cmd: "hello", Protocol: Protocol, Device: b.spec.Device})
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
func (b *Backend) call(req request) (*reply, error) { return b.callWithin(req, b.spec.Timeout) }

func (b *Backend) callWithin(req request, timeout time.Duration) (*reply, error) {
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
		return nil, b.failExited(req.Cmd)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var l line
	select {
	case got, ok := <-b.lines:
		if !ok || got.err != nil {
			return nil, b.failExited(req.Cmd)
		}
		l = got
	case <-timer.C:
		return nil, b.failLocked(fmt.Errorf("%s: worker did not answer %s within %v; stopped it%s", b.spec.Name, req.Cmd, timeout, b.stderr.last()))
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
		msg := rep.Error
		if msg == "" {
			msg = "failed, without a message"
		}
		msg = firstLine(msg)
		switch {
		case rep.Unsupported:
			return nil, fmt.Errorf("%s: %s: %w", b.spec.Name, msg, backend.ErrUnsupported)
		case rep.Missing:
			return nil, errMissing{fmt.Sprintf("%s: %s", b.spec.Name, msg)}
		}
		return nil, fmt.Errorf("%s: %s", b.spec.Name, msg)
	}
	return &rep, nil
}

// failExited records that the worker's pipe closed while a request was
// under way, with its exit status and last line on standard error.
func (b *Backend) failExited(cmd string) error {
	select {
	case <-b.exited:
	case <-time.After(5 * time.Second):
	}
	status := "closed its output"
	if ps := b.cmd.ProcessState; ps != nil {
		status = "exited (" + ps.String() + ")"
	}
	return b.failLocked(fmt.Errorf("%s: worker %s while answering %s%s", b.spec.Name, status, cmd, b.stderr.last()))
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

// Device implements backend.Backend: the device the worker's hello named.
func (b *Backend) Device() string {
	if b.hello.Device != "" {
		return b.hello.Device
	}
	return b.spec.Device
}

// Info implements backend.Backend: the framework's version and the
// details its worker reports (its BLAS, threading, interpreter).
func (b *Backend) Info() backend.Info {
	d := map[string]string{"worker": strings.Join(b.spec.Command, " "), "protocol": fmt.Sprint(Protocol)}
	if w := idleWaitDetail(b.cmd.Env); w != "" {
		d["idle_wait"] = w
	}
	for k, v := range b.hello.Details {
		d[k] = v
	}
	return backend.Info{Version: b.hello.Version, Details: d}
}

// Ops lists the ops and dtypes the worker's hello said it computes.
func (b *Backend) Ops() map[string][]string { return b.hello.Ops }

// supports says whether the hello listed w's op and dtype.
func (b *Backend) supports(w workload.Workload) bool {
	for _, dt := range b.hello.Ops[string(w.Op)] {
		if dt == string(w.DType) {
			return true
		}
	}
	return false
}

// Prepare implements backend.Backend: the inputs go into a shared file,
// and the worker builds the kernel from them.
func (b *Backend) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !b.supports(w) {
		return nil, backend.Unsupported(b.spec.Name, w)
	}
	if cfg.Threads < 0 || cfg.Copies < 0 {
		return nil, fmt.Errorf("%s: bad config: threads %d, copies %d", b.spec.Name, cfg.Threads, cfg.Copies)
	}
	if cfg.Algorithm != "" {
		return nil, fmt.Errorf("%s: %s: unknown algorithm %q (the worker has one way)", b.spec.Name, w.Op, cfg.Algorithm)
	}
	b.mu.Lock()
	dead := b.dead
	b.nextID++
	id := b.nextID
	b.mu.Unlock()
	if dead != nil {
		return nil, dead
	}
	sh, err := newShared(b.spec.Name, w.DType, in.Args, w.OutputLen())
	if err != nil {
		return nil, fmt.Errorf("%s: %s %s: %v", b.spec.Name, w.Op, w.DType, err)
	}
	defer sh.remove() // the worker has mapped it by the time prepare returns
	out := sh.output
	rep, err := b.call(request{
		Cmd: "prepare", ID: id, Op: string(w.Op), DType: string(w.DType),
		Shape: w.Shape.Format(w.Op), Dims: dimsOf(w), Alpha: in.Alpha,
		Threads: cfg.Threads, Copies: max(cfg.Copies, 1),
		File: sh.path, Inputs: sh.inputs, Output: &out,
	})
	if err != nil {
		sh.close()
		return nil, err
	}
	return &kernel{b: b, id: id, sh: sh, impl: rep.Implementation}, nil
}

// Close implements backend.Backend: it asks the worker to exit, and stops
// it when it does not within a few seconds.
func (b *Backend) Close() error {
	b.mu.Lock()
	dead := b.dead
	b.mu.Unlock()
	if dead == nil {
		b.callWithin(request{Cmd: "close"}, 5*time.Second)
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
}

// Run implements backend.Kernel: the worker runs iters iterations and
// times them with its own clock (synchronizing its device first and last).
func (k *kernel) Run(iters int) (time.Duration, error) {
	if iters < 1 {
		return 0, fmt.Errorf("%s: Run(%d): iterations must be at least 1", k.b.spec.Name, iters)
	}
	rep, err := k.b.call(request{Cmd: "run", ID: k.id, Iters: iters})
	if err != nil {
		return 0, err
	}
	if rep.NS == nil || *rep.NS <= 0 {
		err := fmt.Errorf("%s: worker's reply to run has no positive \"ns\" (%v); stopped it", k.b.spec.Name, rep.NS)
		k.b.fail(err)
		return 0, err
	}
	return time.Duration(*rep.NS), nil
}

// Output implements backend.Kernel: the worker writes its latest result
// into the shared output region, which peakbench reads.
func (k *kernel) Output() ([]float64, error) {
	k.sh.clearOutput()
	if _, err := k.b.call(request{Cmd: "output", ID: k.id}); err != nil {
		return nil, err
	}
	return k.sh.read(k.sh.output), nil
}

// Close implements backend.Kernel.
func (k *kernel) Close() error {
	k.b.call(request{Cmd: "free", ID: k.id}) // a dead worker has freed everything
	k.sh.close()
	return nil
}

// Implementation implements backend.KernelImplementation: the call the
// worker times, as it names it.
func (k *kernel) Implementation() string { return k.impl }

// tail keeps the end of a worker's standard error, for error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

// last returns ": " and the last non-blank line written, or "".
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return ": " + clip([]byte(l), 200)
	}
	return ""
}

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
