package native

/*
#include <stdlib.h>
#include "peakbench.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// errLen is the size of the message buffers handed to C.
const errLen = 1024

// Job is an operation prepared for timing, on the host or on a device (the
// C layer's one job contract, pb_job): its buffers live in C or device
// memory, one set per copy, inputs are copied in once, Run times
// iterations in C (CLOCK_MONOTONIC on the host, device events on a GPU),
// and Output copies the latest result back. A Job is safe for use by one
// goroutine at a time; its methods serialize.
type Job struct {
	mu      sync.Locker
	c       *C.pb_job
	nargs   int
	output  int
	lens    []int
	desc    string
	prefix  string
	release func()
	wrapErr func(status int, msg string) error
}

// NewJob wraps a pb_job made by a cgo/<family> package (passed as an
// unsafe.Pointer, since each cgo package has its own C types). release, if
// not nil, runs once when the Job is closed (e.g. to drop a reference on
// the library). prefix starts every error message (e.g. "cblas: openblas: ").
func NewJob(p unsafe.Pointer, prefix string, release func()) (*Job, error) {
	return WrapJob(p, JobConfig{Prefix: prefix, Release: release})
}

// WrapJob wraps a pb_job, host or device, as cfg says. On an error the
// caller still owns p.
func WrapJob(p unsafe.Pointer, cfg JobConfig) (*Job, error) {
	prefix := cfg.Prefix
	if p == nil {
		return nil, errors.New(prefix + "NewJob: nil job")
	}
	j := &Job{c: (*C.pb_job)(p), prefix: prefix, release: cfg.Release, mu: cfg.Lock, wrapErr: cfg.Error}
	if j.mu == nil {
		j.mu = new(sync.Mutex)
	}
	if j.wrapErr == nil {
		j.wrapErr = func(status int, msg string) error { return NewError(status, prefix, msg) }
	}
	var nargs, output C.int
	errb := newErrBuf()
	defer errb.free()
	if st := C.pb_job_args(j.c, &nargs, &output, errb.p, errLen); st != C.PB_OK {
		return nil, j.err(st, errb)
	}
	j.nargs, j.output = int(nargs), int(output)
	for a := 0; a < j.nargs; a++ {
		var n C.size_t
		if st := C.pb_job_arg_len(j.c, C.int(a), &n, errb.p, errLen); st != C.PB_OK {
			return nil, j.err(st, errb)
		}
		j.lens = append(j.lens, int(n))
	}
	desc := (*C.char)(C.malloc(256))
	defer C.free(unsafe.Pointer(desc))
	if C.pb_job_describe(j.c, desc, 256, nil, 0) == C.PB_OK {
		j.desc = C.GoString(desc)
	}
	return j, nil
}

// errBuf is a C-allocated message buffer (C memory, so no Go pointer
// crosses into C and nothing escapes per call).
type errBuf struct{ p *C.char }

func newErrBuf() errBuf {
	p := (*C.char)(C.malloc(errLen))
	*p = 0
	return errBuf{p}
}

func (e errBuf) free() { C.free(unsafe.Pointer(e.p)) }

// err is the error of a failed C call, built as the Job's config says.
func (j *Job) err(st C.pb_status, e errBuf) error {
	return j.wrapErr(int(st), C.GoString(e.p))
}

// Args returns the number of arguments and the index of the output.
func (j *Job) Args() (n, output int) { return j.nargs, j.output }

// Len returns the element count of argument arg.
func (j *Job) Len(arg int) int {
	if arg < 0 || arg >= j.nargs {
		panic(fmt.Sprintf("%sJob.Len: argument %d out of range [0, %d)", j.prefix, arg, j.nargs))
	}
	return j.lens[arg]
}

// String describes what the job runs, e.g. "openblas cblas_sgemm NN m=2 n=3 k=4".
func (j *Job) String() string { return j.desc }

var errClosed = errors.New("job is closed")

// SetInput converts v to the job's element type and copies it into every
// copy of argument arg. len(v) must equal Len(arg).
func (j *Job) SetInput(arg int, v []float64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.c == nil {
		return fmt.Errorf("%s%w", j.prefix, errClosed)
	}
	if arg < 0 || arg >= j.nargs {
		return fmt.Errorf("%sSetInput: argument %d out of range [0, %d)", j.prefix, arg, j.nargs)
	}
	if len(v) != j.lens[arg] {
		return fmt.Errorf("%sSetInput: argument %d holds %d elements, got %d", j.prefix, arg, j.lens[arg], len(v))
	}
	var p *C.double
	if len(v) > 0 {
		p = (*C.double)(unsafe.Pointer(&v[0]))
	}
	errb := newErrBuf()
	defer errb.free()
	if st := C.pb_job_set_input(j.c, C.int(arg), p, C.size_t(len(v)), errb.p, errLen); st != C.PB_OK {
		return j.err(st, errb)
	}
	return nil
}

// Run executes iters iterations back to back in one C call, rotating
// through the copies, and returns the time they took: on the host
// CLOCK_MONOTONIC, read in C around the loop (the library's thread count
// is applied before the clock starts); on a device the time between two
// events recorded on its stream around the enqueued iterations.
func (j *Job) Run(iters int) (time.Duration, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.c == nil {
		return 0, fmt.Errorf("%s%w", j.prefix, errClosed)
	}
	if iters < 0 {
		return 0, fmt.Errorf("%sRun: iterations %d < 0", j.prefix, iters)
	}
	var ns C.int64_t
	errb := newErrBuf()
	defer errb.free()
	if st := C.pb_job_run(j.c, C.int64_t(iters), &ns, errb.p, errLen); st != C.PB_OK {
		return 0, j.err(st, errb)
	}
	return time.Duration(ns), nil
}

// Output returns the latest iteration's output, widened to float64.
func (j *Job) Output() ([]float64, error) {
	out := make([]float64, j.lens[j.output])
	return out, j.OutputInto(out)
}

// OutputInto is Output writing into dst, which must hold Len(output) elements.
func (j *Job) OutputInto(dst []float64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.c == nil {
		return fmt.Errorf("%s%w", j.prefix, errClosed)
	}
	if len(dst) != j.lens[j.output] {
		return fmt.Errorf("%sOutput: want %d elements, dst holds %d", j.prefix, j.lens[j.output], len(dst))
	}
	var p *C.double
	if len(dst) > 0 {
		p = (*C.double)(unsafe.Pointer(&dst[0]))
	}
	errb := newErrBuf()
	defer errb.free()
	if st := C.pb_job_output(j.c, p, C.size_t(len(dst)), errb.p, errLen); st != C.PB_OK {
		return j.err(st, errb)
	}
	return nil
}

// ArgOutput returns argument arg of the latest iteration, widened to
// float64: the other outputs of a job that has several (a CSC's values,
// rows and column pointers).
func (j *Job) ArgOutput(arg int) ([]float64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.c == nil {
		return nil, fmt.Errorf("%s%w", j.prefix, errClosed)
	}
	if arg < 0 || arg >= len(j.lens) {
		return nil, fmt.Errorf("%sArgOutput: no argument %d", j.prefix, arg)
	}
	dst := make([]float64, j.lens[arg])
	var p *C.double
	if len(dst) > 0 {
		p = (*C.double)(unsafe.Pointer(&dst[0]))
	}
	errb := newErrBuf()
	defer errb.free()
	if st := C.pb_job_arg_output(j.c, C.int(arg), p, C.size_t(len(dst)), errb.p, errLen); st != C.PB_OK {
		return nil, j.err(st, errb)
	}
	return dst, nil
}

// Close frees the job's buffers, then runs the release function outside
// the lock (it may take the lock of a device). Closing twice is a no-op.
func (j *Job) Close() error {
	j.mu.Lock()
	if j.c == nil {
		j.mu.Unlock()
		return nil
	}
	C.pb_job_free(j.c)
	j.c = nil
	release := j.release
	j.release = nil
	j.mu.Unlock()
	if release != nil {
		release()
	}
	return nil
}
