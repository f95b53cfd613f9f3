package worker

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"golang.org/x/sys/unix"
)

// ServeCommand is the hidden first argument that makes the peakbench
// binary a worker serving one of its own backends: `peakbench
// serve-worker openblas 0`, the last argument the GPU device (-device) the
// GPU backends open. main (and a test binary that runs backends isolated)
// calls ServeMain with it when it sees it.
const ServeCommand = "serve-worker"

// ServeArgs reads the arguments of a child process: the backend's name,
// the GPU device and, when given, -timeout (a Go duration: what a backend
// bounds its own waits by, FFTW's planner); ok is false when args are not
// a child's.
func ServeArgs(args []string) (name string, opt backend.OpenOptions, ok bool) {
	if (len(args) != 4 && len(args) != 5) || args[1] != ServeCommand {
		return "", opt, false
	}
	device, err := strconv.Atoi(args[3])
	if err != nil || device < 0 {
		return "", opt, false
	}
	opt.Device = device
	if len(args) == 5 {
		if opt.Timeout, err = time.ParseDuration(args[4]); err != nil || opt.Timeout < 0 {
			return "", opt, false
		}
	}
	return args[2], opt, true
}

// Isolated returns f opened in a child process: the running binary
// re-executed as `serve-worker NAME`, which opens f's backend there and
// serves it through the worker protocol (docs/workers.md). A library that
// crashes or hangs then costs its own backend's results only. Name,
// description, version and details are the in-process backend's.
func Isolated(f backend.Factory) backend.Factory {
	f.Open = func(o backend.OpenOptions) (backend.Backend, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("%s: starting it in a child process: %v (-isolate=off runs it in process)", f.Name, err)
		}
		dev := strconv.Itoa(o.Device)
		b, err := Start(Spec{Name: f.Name, Command: []string{exe, ServeCommand, f.Name, dev, o.Timeout.String()}, Builtin: true, Timeout: o.Timeout})
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return f
}

// ServeMain is the child's main: it serves the registered backend named
// name, opened with opt (the device ServeArgs read), on standard input and
// output and returns the exit status. Standard
// output is kept for the protocol alone: the process's descriptor 1 is
// moved to standard error, so that what a library prints (MKL's verbose
// mode, a warning) cannot corrupt a reply.
func ServeMain(name string, opt backend.OpenOptions) int {
	f, err := backend.Lookup(name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "peakbench %s: %v\n", ServeCommand, err)
		return 2
	}
	fd, err := unix.Dup(1)
	if err != nil {
		fmt.Fprintf(os.Stderr, "peakbench %s: %v\n", ServeCommand, err)
		return 1
	}
	if err := unix.Dup2(2, 1); err != nil {
		fmt.Fprintf(os.Stderr, "peakbench %s: %v\n", ServeCommand, err)
		return 1
	}
	out := os.NewFile(uintptr(fd), "protocol")
	open := func() (backend.Backend, error) { return f.Open(opt) }
	if err := Serve(open, os.Stdin, out); err != nil {
		fmt.Fprintf(os.Stderr, "peakbench %s %s: %v\n", ServeCommand, name, err)
		return 1
	}
	return 0
}
