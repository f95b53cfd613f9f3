// GPU jobs: operations prepared by the library packages on a device's
// buffers, run and timed with its events (native.Job underneath).

package gpurt

import (
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// JobOptions says how a prepared job runs.
type JobOptions struct {
	// Copies is the number of buffer sets rotated through, one per
	// iteration: 1 (the default) for hot-cache runs.
	Copies int
}

// Job is an operation prepared on device buffers by a library package: the
// job contract's Go type (native.Job) on a device, whose calls hold the
// device. Its inputs are copied in once, Run enqueues iters iterations
// between two device events on the device's stream, waits for the second
// and returns the time between the two, and Output waits for the device
// and copies the latest result back. A Job is safe for use by one
// goroutine at a time.
type Job struct {
	*native.Job
	dev *Device
}

// Device returns the device the job runs on.
func (j *Job) Device() *Device { return j.dev }

// NewJob wraps a pb_gpu_job made on dev by a library package (passed as an
// unsafe.Pointer, since each cgo package has its own C types); the caller
// holds dev (Device.Do) while making it. release, if not nil, runs once
// when the Job is closed; the Job also holds dev until then. prefix starts
// every error message ("cublas: "). On an error the caller still owns p.
func NewJob(dev *Device, p unsafe.Pointer, prefix string, release func()) (*Job, error) {
	rel, err := dev.retainLocked()
	if err != nil {
		return nil, err
	}
	nj, err := native.WrapJob(p, native.JobConfig{
		Prefix: prefix,
		Release: func() {
			if release != nil {
				release()
			}
			rel()
		},
		Lock:  &dev.mu,
		Error: func(status int, msg string) error { return newError(status, 0, msg) },
	})
	if err != nil {
		rel()
		return nil, err
	}
	return &Job{Job: nj, dev: dev}, nil
}
