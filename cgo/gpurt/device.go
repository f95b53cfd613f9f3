// An opened device: its stream, the lock that serializes calls on it, its
// memory and copy bandwidth.

package gpurt

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// Device is an opened device: a non-blocking stream of its own, on which
// its libraries and jobs run. Calls on one Device are serialized.
type Device struct {
	rt   *Runtime
	info DeviceInfo
	h    devHandle

	mu     sync.Mutex
	refs   int // the Device itself while open, plus each Retain
	closed bool
}

// OpenDevice opens device n (0 .. DeviceCount()-1).
func (r *Runtime) OpenDevice(n int) (*Device, error) {
	info, err := r.Device(n)
	if err != nil {
		return nil, err
	}
	h, err := r.openDevice(n)
	if err != nil {
		return nil, err
	}
	return &Device{rt: r, info: info, h: h, refs: 1}, nil
}

// Info returns the device's attributes as read when it was opened.
func (d *Device) Info() DeviceInfo { return d.info }

// Runtime returns the device's runtime.
func (d *Device) Runtime() *Runtime { return d.rt }

func (d *Device) String() string { return d.info.ID() }

var errClosed = errors.New("device is closed")

// Do runs f with the C handle of the device (a pb_gpu *, include/peakbench.h)
// while holding the device, so that no other call on it interleaves. It is
// for the packages that wrap libraries on the device; f must not keep the
// pointer beyond a Retain.
func (d *Device) Do(f func(gpu unsafe.Pointer) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("%s: %w", d.info.Label(), errClosed)
	}
	return f(d.ptr())
}

// Retain keeps the device's C handle alive until release is called, even
// after Close: libraries and jobs on the device hold one each.
func (d *Device) Retain() (release func(), err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.retainLocked()
}

// retainLocked is Retain for a caller already inside Do (the device is held).
func (d *Device) retainLocked() (func(), error) {
	if d.closed {
		return nil, fmt.Errorf("%s: %w", d.info.Label(), errClosed)
	}
	d.refs++
	var once sync.Once
	return func() { once.Do(d.unref) }, nil
}

func (d *Device) unref() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refs--
	if d.refs == 0 {
		d.free()
	}
}

// Close closes the device once its libraries and jobs are closed. Closing
// twice is a no-op.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.mu.Unlock()
	d.unref()
	return nil
}

// MemInfo returns the free and total device memory in bytes.
func (d *Device) MemInfo() (free, total uint64, err error) {
	err = d.Do(func(unsafe.Pointer) error {
		free, total, err = d.memInfo()
		return err
	})
	return free, total, err
}

// CopyBandwidth copies bytes from one device buffer to another iters times
// (after two untimed copies) and returns the time the copies took, measured
// with device events. Each copy moves 2·bytes (read and write).
func (d *Device) CopyBandwidth(bytes int64, iters int) (time.Duration, error) {
	if bytes < 1 || iters < 1 {
		return 0, fmt.Errorf("%s: CopyBandwidth(%d, %d): both must be positive", d.info.Label(), bytes, iters)
	}
	var t time.Duration
	err := d.Do(func(unsafe.Pointer) error {
		var err error
		t, err = d.copyBandwidth(bytes, iters)
		return err
	})
	return t, err
}
