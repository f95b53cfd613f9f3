package native

import "sync"

// JobConfig says how WrapJob wraps a pb_job.
type JobConfig struct {
	// Prefix starts every error message ("cblas: openblas: ", "cublas: ").
	Prefix string
	// Release, if not nil, runs once when the Job is closed, after its
	// buffers are freed (e.g. to drop a reference on the library).
	Release func()
	// Lock, if not nil, is held around every call in place of the Job's
	// own mutex: a GPU job holds its device, whose calls must not
	// interleave with those of the device's other jobs and libraries.
	Lock sync.Locker
	// Error, if not nil, builds the error of a failed C call from its
	// status and message (default: NewError with Prefix).
	Error func(status int, msg string) error
}
