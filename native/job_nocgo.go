//go:build !cgo

package native

import (
	"time"
	"unsafe"
)

// Job is an operation prepared for timing; without cgo none can exist.
type Job struct{}

// NewJob returns ErrNoCgo in a build without cgo.
func NewJob(p unsafe.Pointer, prefix string, release func()) (*Job, error) {
	return nil, ErrNoCgo
}

// WrapJob returns ErrNoCgo in a build without cgo.
func WrapJob(p unsafe.Pointer, cfg JobConfig) (*Job, error) { return nil, ErrNoCgo }

// Args returns the number of arguments and the index of the output.
func (j *Job) Args() (n, output int) { return 0, 0 }

// Len returns the element count of argument arg.
func (j *Job) Len(arg int) int { return 0 }

func (j *Job) String() string { return "" }

// SetInput returns ErrNoCgo.
func (j *Job) SetInput(arg int, v []float64) error { return ErrNoCgo }

// Run returns ErrNoCgo.
func (j *Job) Run(iters int) (time.Duration, error) { return 0, ErrNoCgo }

// Output returns ErrNoCgo.
func (j *Job) Output() ([]float64, error) { return nil, ErrNoCgo }

// OutputInto returns ErrNoCgo.
func (j *Job) OutputInto(dst []float64) error { return ErrNoCgo }

// ArgOutput returns ErrNoCgo.
func (j *Job) ArgOutput(arg int) ([]float64, error) { return nil, ErrNoCgo }

// Close does nothing.
func (j *Job) Close() error { return nil }

// IdleWait reports nothing without cgo: no library is loaded.
func IdleWait() string { return "" }
