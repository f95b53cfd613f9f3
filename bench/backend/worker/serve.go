package worker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/harness"
	"github.com/peakbench/peakbench/bench/workload"
)

// Serve is the worker side of the protocol in Go: it serves the backend
// open returns (opened at hello, so that a library that is missing is the
// hello's refusal, in the backend's own words) on in and out until close
// or the end of in. peakbench's isolated backends run it in a child
// process (isolate.go); the parent drives it with this package's adapter,
// as it drives a framework's worker.
func Serve(open func() (backend.Backend, error), in io.Reader, out io.Writer) error {
	// Vendor libraries keep per-thread state (OpenBLAS's buffers, MKL's
	// thread settings): in process every call came from the harness's
	// goroutine, so here every call comes from one thread too.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := &server{open: open, enc: json.NewEncoder(out), kernels: map[int]*served{}}
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		l, err := r.ReadBytes('\n')
		if len(l) > 0 {
			var req request
			if jerr := json.Unmarshal(l, &req); jerr != nil {
				s.fail(fmt.Errorf("bad request: %v", jerr))
			} else if done := s.handle(req); done {
				return s.err
			}
		}
		if err != nil {
			s.closeAll() // peakbench is gone: release the library in order
			if errors.Is(err, io.EOF) {
				return s.err
			}
			return err
		}
		if s.err != nil {
			return s.err
		}
	}
}

type server struct {
	open    func() (backend.Backend, error)
	b       backend.Backend
	enc     *json.Encoder
	kernels map[int]*served
	err     error // writing a reply failed: peakbench is gone
}

// served is one prepared kernel and its view of the shared file.
type served struct {
	k  backend.Kernel
	sh *shared
}

var yes, no = true, false

func (s *server) say(r reply) {
	if err := s.enc.Encode(r); err != nil && s.err == nil {
		s.err = err
	}
}

func (s *server) ok(r reply) { r.OK = &yes; s.say(r) }

// fail answers ok: false with err's message, whole: a backend's error is
// the same in a child as in process.
func (s *server) fail(err error) {
	s.say(reply{OK: &no, Error: err.Error(), Unsupported: errors.Is(err, backend.ErrUnsupported)})
}

// handle answers one request; it reports whether the worker should exit.
func (s *server) handle(req request) bool {
	if req.Cmd != "hello" && req.Cmd != "close" && s.b == nil {
		s.fail(fmt.Errorf("%s before hello", req.Cmd))
		return false
	}
	switch req.Cmd {
	case "hello":
		s.hello(req)
	case "prepare":
		s.prepare(req)
	case "run":
		k, err := s.kernel(req)
		if err != nil {
			s.fail(err)
			return false
		}
		d, err := k.k.Run(req.Iters)
		if err != nil {
			s.fail(err)
			return false
		}
		ns := max(d.Nanoseconds(), 1)
		s.ok(reply{NS: &ns})
	case "output":
		s.output(req)
	case "free":
		if k, err := s.kernel(req); err == nil {
			k.close()
			delete(s.kernels, req.ID)
		}
		s.ok(reply{})
	case "info":
		info := s.b.Info()
		r := reply{Version: info.Version, Details: info.Details}
		if w, ok := s.b.(interface{ Warnings() []string }); ok {
			r.Warnings = w.Warnings()
		}
		s.ok(r)
	case "close":
		s.closeAll()
		s.ok(reply{})
		return true
	default:
		s.fail(fmt.Errorf("unknown command %q", req.Cmd))
	}
	return false
}

// hello opens the backend and describes it: what the in-process backend
// would report, so that a run's listing and JSON are the same either way.
func (s *server) hello(req request) {
	if req.Protocol != Protocol {
		s.fail(fmt.Errorf("peakbench's worker speaks protocol %d, not %d", Protocol, req.Protocol))
		return
	}
	if s.b == nil {
		b, err := s.open()
		if err != nil {
			s.fail(err)
			return
		}
		s.b = b
	}
	info := s.b.Info()
	ops, algs := map[string][]string{}, map[string][]string{}
	declared := backend.DeclaredBy(s.b) // the ops: what the backend declares
	dtypes := append(append([]workload.DType(nil), workload.DTypes...), workload.GEMMDTypes...)
	for _, op := range workload.QuantOps { // the quantization ops' own (u8, bf16, …)
		for _, dt := range op.QuantDTypes() {
			if !slices.Contains(dtypes, dt) {
				dtypes = append(dtypes, dt)
			}
		}
	}
	for _, op := range workload.Ops {
		w := workload.Workload{Op: op}
		for _, dt := range dtypes {
			if declared != nil && !declared.Has(op, dt) {
				continue
			}
			if op.Accepts(dt) && harness.SupportsDType(s.b, dt) {
				ops[string(op)] = append(ops[string(op)], string(dt))
			}
		}
		if a, ok := s.b.(backend.BackendAlgorithms); ok {
			if list := a.Algorithms(w); len(list) > 0 {
				algs[string(op)] = list
			}
		}
	}
	s.ok(reply{Protocol: Protocol, Name: s.b.Name(), Version: info.Version, Device: s.b.Device().String(),
		Ops: ops, Algorithms: algs, Threads: true, Details: info.Details})
}

// prepare reads the inputs from the shared file and prepares the kernel in
// the backend, as the harness would in process.
func (s *server) prepare(req request) {
	w, data, sh, err := readShared(req)
	if err != nil {
		s.fail(fmt.Errorf("%s: %v", s.b.Name(), err))
		return
	}
	k, err := s.b.Prepare(w, data, backend.Config{Threads: req.Threads, Copies: req.Copies, Algorithm: req.Algorithm})
	if err != nil {
		unix.Munmap(sh.mem)
		s.fail(err)
		return
	}
	if old := s.kernels[req.ID]; old != nil {
		old.close()
	}
	s.kernels[req.ID] = &served{k: k, sh: sh}
	alg := backend.AlgorithmOf(k, req.Algorithm)
	s.ok(reply{Implementation: backend.ImplementationOf(k), Algorithm: alg, ComputeUnit: backend.ComputeUnitOf(k),
		PlanNS: backend.PlanTimeOf(k).Nanoseconds()})
}

func (s *server) output(req request) {
	k, err := s.kernel(req)
	if err != nil {
		s.fail(err)
		return
	}
	out, err := k.k.Output()
	if err != nil {
		s.fail(err)
		return
	}
	if len(out) != k.sh.output.Count {
		s.fail(fmt.Errorf("%s: the output has %d elements, its region %d", s.b.Name(), len(out), k.sh.output.Count))
		return
	}
	k.sh.write(k.sh.output, out)
	s.ok(reply{})
}

func (s *server) kernel(req request) (*served, error) {
	k := s.kernels[req.ID]
	if k == nil {
		return nil, fmt.Errorf("no kernel %d (prepare it first)", req.ID)
	}
	return k, nil
}

func (k *served) close() {
	k.k.Close()
	unix.Munmap(k.sh.mem)
}

// closeAll frees every kernel and closes the backend.
func (s *server) closeAll() {
	for id, k := range s.kernels {
		k.close()
		delete(s.kernels, id)
	}
	if s.b != nil {
		s.b.Close()
		s.b = nil
	}
}

// readShared rebuilds a prepare request's workload from its shape string
// (as workload.ParseShape reads it) and maps its shared file, reading the
// inputs. The mapping stays for the output.
func readShared(req request) (workload.Workload, workload.Data, *shared, error) {
	var (
		w    workload.Workload
		data workload.Data
		err  error
	)
	if w.Op, err = workload.ParseOp(req.Op); err != nil {
		return w, data, nil, err
	}
	if w.DType, err = workload.ParseDType(req.DType); err != nil {
		return w, data, nil, err
	}
	if w.Shape, err = workload.ParseShape(w.Op, req.Shape); err != nil {
		return w, data, nil, err
	}
	if req.Output == nil || req.Output.Count != w.OutputLen() {
		return w, data, nil, fmt.Errorf("%s: the output region does not hold the workload's %d elements", w, w.OutputLen())
	}
	f, err := os.OpenFile(req.File, os.O_RDWR, 0)
	if err != nil {
		return w, data, nil, fmt.Errorf("shared inputs: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return w, data, nil, fmt.Errorf("shared inputs: %v", err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return w, data, nil, fmt.Errorf("shared inputs: mapping %s: %v", req.File, err)
	}
	sh := &shared{mem: mem, wide: wideElems(w), inputs: req.Inputs, output: *req.Output}
	for _, r := range append(append([]region(nil), req.Inputs...), *req.Output) {
		if r.Offset < 0 || r.Count < 0 || r.Offset+int64(r.Count*elemSize(sh.wide)) > int64(len(mem)) {
			unix.Munmap(mem)
			return w, data, nil, fmt.Errorf("shared inputs: region %+v outside the %d-byte file", r, len(mem))
		}
	}
	data.Alpha = req.Alpha
	for _, r := range req.Inputs {
		data.Args = append(data.Args, sh.read(r))
	}
	return w, data, sh, nil
}
