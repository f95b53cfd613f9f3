package gpurt

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// VendorLib is what the GPU library packages (cublas, cudnn, rocblas) share:
// a vendor handle on one device, which keeps the device retained and is
// destroyed once it is closed and the last job made from it is closed.
type VendorLib struct {
	name    string
	dev     *Device
	details map[string]string
	release func()
	free    func()               // destroys the vendor handle; runs holding the device
	freeJob func(unsafe.Pointer) // frees a job that could not be wrapped

	mu     sync.Mutex
	jobs   int
	closed bool
	freed  bool
}

// OpenVendorLib retains dev and calls open holding it; open creates the
// vendor handle and returns the library's info string ("key=value;…").
func OpenVendorLib(dev *Device, name string, open func(gpu unsafe.Pointer) (info string, err error),
	free func(), freeJob func(unsafe.Pointer)) (*VendorLib, error) {
	if dev == nil {
		return nil, fmt.Errorf("%s: Open: nil device", name)
	}
	release, err := dev.Retain()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var info string
	err = dev.Do(func(gpu unsafe.Pointer) error {
		var err error
		info, err = open(gpu)
		return err
	})
	if err != nil {
		release()
		return nil, err
	}
	return &VendorLib{name: name, dev: dev, details: ParseInfo(info), release: release, free: free, freeJob: freeJob}, nil
}

// Version returns the library's version, e.g. "12.4.5".
func (l *VendorLib) Version() string { return l.details["version"] }

// Path returns the file loaded.
func (l *VendorLib) Path() string { return l.details["path"] }

// Details describes the library: "path", and companions such as "lt_path".
func (l *VendorLib) Details() map[string]string {
	m := map[string]string{}
	for k, v := range l.details {
		if k != "version" {
			m[k] = v
		}
	}
	return m
}

// Device returns the device the handle is on.
func (l *VendorLib) Device() *Device { return l.dev }

func (l *VendorLib) String() string {
	return fmt.Sprintf("%s %s (%s) on %s", l.name, l.Version(), l.Path(), l.dev)
}

// Close destroys the handle once every job is closed. Closing twice is a no-op.
func (l *VendorLib) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	last := l.jobs == 0 && !l.freed
	l.freed = l.freed || last
	l.mu.Unlock()
	if last {
		l.destroy()
	}
	return nil
}

func (l *VendorLib) destroy() {
	l.dev.Do(func(unsafe.Pointer) error { l.free(); return nil })
	l.release()
}

func (l *VendorLib) jobDone() {
	l.mu.Lock()
	l.jobs--
	last := l.jobs == 0 && l.closed && !l.freed
	l.freed = l.freed || last
	l.mu.Unlock()
	if last {
		l.destroy()
	}
}

// MakeJob makes a job with mk (called holding the device) and wraps it; the
// handle stays alive until the job is closed.
func (l *VendorLib) MakeJob(mk func() (unsafe.Pointer, error)) (*Job, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, errors.New(l.name + ": library is closed")
	}
	l.jobs++
	l.mu.Unlock()
	var job *Job
	err := l.dev.Do(func(unsafe.Pointer) error {
		p, err := mk()
		if err != nil {
			return err
		}
		job, err = NewJob(l.dev, p, l.name+": ", l.jobDone)
		if err != nil {
			l.freeJob(p)
		}
		return err
	})
	if err != nil {
		l.jobDone()
		return nil, err
	}
	return job, nil
}
