//go:build cgo

// Package fftw is the Go API over native/fftw.c: FFTW 3 loaded at run
// time, one library per precision, plans timed in C.
package fftw

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdlib.h>
#include "peakbench_fftw.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	_ "github.com/peakbench/peakbench/native" // links the C layer
)

// ErrCannotPlan marks a transform FFTW made no plan for.
var ErrCannotPlan = errors.New("fftw cannot plan this transform")

// Library is FFTW in one precision.
type Library struct {
	f   *C.pb_fftw
	F64 bool
}

func cerr(st C.pb_status, buf []C.char) error {
	msg := C.GoString(&buf[0])
	if st == C.PB_ERR_UNSUPPORTED {
		return fmt.Errorf("%s: %w", msg, ErrCannotPlan)
	}
	return errors.New(msg)
}

// Open loads FFTW in double (f64) or single precision.
func Open(f64 bool) (*Library, error) {
	var f *C.pb_fftw
	buf := make([]C.char, 4096)
	d := C.int(0)
	if f64 {
		d = 1
	}
	if st := C.pb_fftw_open(d, &f, &buf[0], C.size_t(len(buf))); st != C.PB_OK {
		return nil, cerr(st, buf)
	}
	return &Library{f: f, F64: f64}, nil
}

// Version is FFTW's version string ("fftw-3.3.10-sse2-avx").
func (l *Library) Version() string { return C.GoString(C.pb_fftw_version(l.f)) }

// Path is the file loaded.
func (l *Library) Path() string { return C.GoString(C.pb_fftw_path(l.f)) }

// Threads reports whether FFTW's threads library loaded.
func (l *Library) Threads() bool { return C.pb_fftw_has_threads(l.f) != 0 }

// ImportWisdom reads plans saved by ExportWisdom; false when none.
func (l *Library) ImportWisdom(path string) bool {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	return C.pb_fftw_import_wisdom(l.f, p) != 0
}

// ExportWisdom saves the plans made so far.
func (l *Library) ExportWisdom(path string) bool {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	return C.pb_fftw_export_wisdom(l.f, p) != 0
}

// Close frees the handle (the library stays loaded).
func (l *Library) Close() { C.pb_fftw_close(l.f) }

// Plan is a planned batch of transforms over its own buffers.
type Plan struct {
	p    *C.pb_fftw_plan
	nout int
	// Took is the planner's time.
	Took time.Duration
}

// NewPlan plans (Spec) and fills every copy's input from in.
func (l *Library) NewPlan(s Spec, in []float64, nout int) (*Plan, error) {
	dims := make([]C.int, len(s.Dims))
	for i, d := range s.Dims {
		dims[i] = C.int(d)
	}
	var p *C.pb_fftw_plan
	var ns C.double
	buf := make([]C.char, 4096)
	st := C.pb_fftw_plan_new(l.f, C.int(s.Kind), C.int(len(dims)), &dims[0], C.int(s.Batch), C.uint(s.Flags),
		C.int(s.Threads), C.double(s.TimeLimit.Seconds()), (*C.double)(&in[0]), C.size_t(len(in)),
		C.size_t(nout), C.int(max(s.Copies, 1)), &p, &ns, &buf[0], C.size_t(len(buf)))
	if st != C.PB_OK {
		return nil, cerr(st, buf)
	}
	return &Plan{p: p, nout: nout, Took: time.Duration(ns)}, nil
}

// Run executes iters times and returns the time taken, measured in C.
func (p *Plan) Run(iters int) (time.Duration, error) {
	var ns C.double
	buf := make([]C.char, 512)
	if st := C.pb_fftw_run(p.p, C.long(iters), &ns, &buf[0], C.size_t(len(buf))); st != C.PB_OK {
		return 0, cerr(st, buf)
	}
	return time.Duration(ns), nil
}

// Output returns the latest run's output.
func (p *Plan) Output() []float64 {
	out := make([]float64, p.nout)
	C.pb_fftw_output(p.p, (*C.double)(&out[0]))
	return out
}

// Close frees the plan and its buffers.
func (p *Plan) Close() { C.pb_fftw_plan_free(p.p) }
