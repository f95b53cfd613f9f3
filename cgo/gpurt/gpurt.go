// Package gpurt loads a GPU runtime at run time — NVIDIA's CUDA runtime
// (libcudart) or AMD's HIP (libamdhip64), whose API mirrors it — and
// describes and opens its devices; it also reads NVML's clocks and throttle
// reasons, and runs GPU jobs: operations prepared on device buffers by the
// library packages (github.com/peakbench/peakbench/cgo/cublas, cgo/cudnn,
// cgo/rocblas) and timed with device events.
//
// Nothing touches a GPU until Open (or OpenHIP) is called, and nothing
// exits the process: a missing library, driver or device is an error whose
// message names the files tried, and which errors.Is matches against
// ErrNoDevice, ErrInsufficientDriver or ErrOutOfMemory.
//
//	rt, err := gpurt.Open()           // libcudart: PEAKBENCH_CUDART, or the standard places
//	n, err := rt.DeviceCount()       // errors.Is(err, gpurt.ErrNoDevice) on a machine without one
//	info, err := rt.Device(0)        // name, compute capability, SMs, clocks, memory
//	dev, err := rt.OpenDevice(0)     // a stream of its own, for libraries and jobs
//
// The C layer is github.com/peakbench/peakbench/native (include/peakbench.h,
// native/gpu.c, native/cuda.c); see there for where libraries are searched
// for. Built without cgo, every Open returns an error wrapping ErrNoCgo.
package gpurt

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// Vendor is a GPU runtime.
type Vendor int

// The runtimes.
const (
	CUDA Vendor = 1 // NVIDIA's CUDA runtime, libcudart
	HIP  Vendor = 2 // AMD's HIP runtime, libamdhip64
)

func (v Vendor) String() string {
	switch v {
	case CUDA:
		return "cuda"
	case HIP:
		return "hip"
	}
	return fmt.Sprintf("Vendor(%d)", int(v))
}

// Prefix is what device labels start with: "cuda" or "rocm".
func (v Vendor) Prefix() string {
	if v == HIP {
		return "rocm"
	}
	return "cuda"
}

// DType is an element type of a GPU job (the values of pb_gpu_dtype).
type DType int

// The element types.
const (
	F16  DType = 1 // IEEE binary16
	BF16 DType = 2 // bfloat16
	F32  DType = 3
	TF32 DType = 4 // f32 storage, TF32 tensor-core arithmetic (gemm only)
	F64  DType = 5
)

var dtypeNames = map[DType]string{F16: "f16", BF16: "bf16", F32: "f32", TF32: "tf32", F64: "f64"}

func (d DType) String() string {
	if s, ok := dtypeNames[d]; ok {
		return s
	}
	return fmt.Sprintf("DType(%d)", int(d))
}

// Runtime error codes (equal in CUDA and HIP).
const (
	CodeOutOfMemory        = 2   // cudaErrorMemoryAllocation, hipErrorOutOfMemory
	CodeInsufficientDriver = 35  // cudaErrorInsufficientDriver: no driver, or one older than the runtime
	CodeNoDevice           = 100 // cudaErrorNoDevice
	CodeInvalidDevice      = 101 // cudaErrorInvalidDevice
)

// Errors that returned errors match with errors.Is.
var (
	// ErrNoDevice: the runtime loaded but found no device.
	ErrNoDevice = errors.New("no GPU device")
	// ErrInsufficientDriver: no driver, or one too old for the runtime.
	ErrInsufficientDriver = errors.New("GPU driver missing or older than the runtime")
	// ErrOutOfMemory: a device allocation failed.
	ErrOutOfMemory = errors.New("out of device memory")
	// ErrUnsupported: the library cannot do this.
	ErrUnsupported = native.ErrUnsupported
	// ErrInvalid: a bad argument.
	ErrInvalid = native.ErrInvalid
	// ErrNoCgo: built without cgo.
	ErrNoCgo = native.ErrNoCgo
)

// Error is a failed call into the C layer: its status, the runtime's error
// code when one is known (CodeNoDevice, ...; 0 otherwise) and the message.
type Error struct {
	Status native.Status
	Code   int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Is matches ErrNoDevice, ErrInsufficientDriver, ErrOutOfMemory,
// ErrUnsupported and ErrInvalid.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNoDevice:
		return e.Code == CodeNoDevice
	case ErrInsufficientDriver:
		return e.Code == CodeInsufficientDriver
	case ErrOutOfMemory:
		return e.Status == native.NoMem || e.Code == CodeOutOfMemory
	case ErrUnsupported:
		return e.Status == native.Unsupported
	case ErrInvalid:
		return e.Status == native.Invalid || e.Code == CodeInvalidDevice
	}
	return false
}

func newError(status, code int, msg string) error {
	if native.Status(status) == native.OK {
		return nil
	}
	if msg == "" {
		msg = native.Status(status).String()
	}
	return &Error{Status: native.Status(status), Code: code, Msg: msg}
}

// LoadError says why a library could not be loaded.
type LoadError struct {
	// Library is what was looked for: "libcudart", "libcublas", ...
	Library string
	// Path is the file asked for; empty when searching.
	Path string
	// Tried lists each candidate and why it failed ("FILE: dlerror text").
	Tried []string
	// Reason is the loader's one-line message: the candidates and folders
	// tried, and how to install the library.
	Reason string
	// Err is the underlying *Error, or ErrNoCgo.
	Err error
}

func (e *LoadError) Error() string { return e.Reason }

func (e *LoadError) Unwrap() error { return e.Err }

// Runtime is a loaded GPU runtime. Runtimes stay loaded for the life of
// the process (unloading one is unsafe); a Runtime needs no Close.
type Runtime struct {
	vendor  Vendor
	h       rtHandle
	path    string
	version string
	driver  string
}

// Open loads the CUDA runtime: the file PEAKBENCH_CUDART names, or the
// newest of libcudart.so.13, .12 and .11.0 found (see package native).
func Open() (*Runtime, error) { return OpenRuntime(CUDA, "") }

// OpenHIP loads AMD's HIP runtime: PEAKBENCH_HIP, or libamdhip64.so.7, .6
// or .5 from the standard places and /opt/rocm*/lib.
func OpenHIP() (*Runtime, error) { return OpenRuntime(HIP, "") }

// OpenRuntime loads the runtime of vendor from path (the search when empty).
func OpenRuntime(v Vendor, path string) (*Runtime, error) {
	if v != CUDA && v != HIP {
		return nil, fmt.Errorf("cuda: OpenRuntime: bad vendor %d", int(v))
	}
	h, info, err := openRuntime(v, path)
	if err != nil {
		return nil, err
	}
	kv := parseInfo(info)
	return &Runtime{vendor: v, h: h, path: kv["path"], version: kv["version"], driver: kv["driver_version"]}, nil
}

// Vendor reports which runtime this is.
func (r *Runtime) Vendor() Vendor { return r.vendor }

// Path returns the file loaded (links resolved).
func (r *Runtime) Path() string { return r.path }

// Version returns the runtime's version: "12.4" (CUDA), "6.2.41134" (HIP).
func (r *Runtime) Version() string { return r.version }

// DriverVersion returns the CUDA version the driver supports ("12.4"; "none"
// without a driver), or HIP's driver version number.
func (r *Runtime) DriverVersion() string { return r.driver }

func (r *Runtime) String() string {
	return fmt.Sprintf("%s runtime %s (%s; driver %s)", r.vendor, r.version, r.path, r.driver)
}

// DeviceCount returns the number of devices. Without a usable driver or
// device the error matches ErrInsufficientDriver or ErrNoDevice and
// carries the runtime's own text ("no CUDA-capable device is detected").
func (r *Runtime) DeviceCount() (int, error) { return r.deviceCount() }

// DeviceInfo describes a device, from the runtime's attributes.
type DeviceInfo struct {
	Vendor         Vendor `json:"-"`
	Index          int    `json:"index"`
	Name           string `json:"name"`
	PCIBusID       string `json:"pci_bus_id,omitempty"`
	Major          int    `json:"major"` // compute capability (HIP: its approximation, e.g. 9.4 for gfx942)
	Minor          int    `json:"minor"`
	SMs            int    `json:"sms"`              // streaming multiprocessors / compute units
	ClockKHz       int    `json:"clock_khz"`        // peak SM clock
	MemoryClockKHz int    `json:"memory_clock_khz"` // peak memory clock; the data rate is twice this
	BusWidthBits   int    `json:"bus_width_bits"`
	L2Bytes        int    `json:"l2_bytes"`
	TotalMemory    uint64 `json:"total_memory"` // bytes
	FreeMemory     uint64 `json:"free_memory"`  // bytes, when read
}

// Label is "cuda:N" or "rocm:N".
func (d DeviceInfo) Label() string { return fmt.Sprintf("%s:%d", d.Vendor.Prefix(), d.Index) }

// ID is the device as results name it: "cuda:0 NVIDIA H100 80GB HBM3".
func (d DeviceInfo) ID() string { return d.Label() + " " + d.Name }

// ComputeCapability is "9.0".
func (d DeviceInfo) ComputeCapability() string { return fmt.Sprintf("%d.%d", d.Major, d.Minor) }

// Device returns the attributes of device n.
func (r *Runtime) Device(n int) (DeviceInfo, error) {
	info, err := r.deviceProps(n)
	info.Vendor, info.Index = r.vendor, n
	return info, err
}

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

// retainLocked is Retain for a caller already inside Do (the device is held).
func (d *Device) retainLocked() (func(), error) {
	if d.closed {
		return nil, fmt.Errorf("%s: %w", d.info.Label(), errClosed)
	}
	d.refs++
	var once sync.Once
	return func() { once.Do(d.unref) }, nil
}

// Reasons is NVML's bit mask of why the clocks are what they are
// (nvmlClocksEventReason*, formerly ...ThrottleReason*).
type Reasons uint64

// The reasons.
const (
	ReasonGPUIdle       Reasons = 0x1
	ReasonAppClocks     Reasons = 0x2
	ReasonSWPowerCap    Reasons = 0x4
	ReasonHWSlowdown    Reasons = 0x8
	ReasonSyncBoost     Reasons = 0x10
	ReasonSWThermal     Reasons = 0x20
	ReasonHWThermal     Reasons = 0x40
	ReasonHWPowerBrake  Reasons = 0x80
	ReasonDisplayClocks Reasons = 0x100
)

var reasonNames = []struct {
	r    Reasons
	name string
}{
	{ReasonGPUIdle, "gpu_idle"}, {ReasonAppClocks, "applications_clocks"},
	{ReasonSWPowerCap, "sw_power_cap"}, {ReasonHWSlowdown, "hw_slowdown"},
	{ReasonSyncBoost, "sync_boost"}, {ReasonSWThermal, "sw_thermal_slowdown"},
	{ReasonHWThermal, "hw_thermal_slowdown"}, {ReasonHWPowerBrake, "hw_power_brake_slowdown"},
	{ReasonDisplayClocks, "display_clocks"},
}

// Throttling keeps the reasons that hold a busy GPU below its boost
// clock: power caps, thermal and hardware slowdowns, sync boost.
func (r Reasons) Throttling() Reasons {
	return r & (ReasonSWPowerCap | ReasonHWSlowdown | ReasonSyncBoost | ReasonSWThermal | ReasonHWThermal | ReasonHWPowerBrake)
}

// String names the reasons, comma-separated ("none" for none).
func (r Reasons) String() string {
	var s []string
	for _, n := range reasonNames {
		if r&n.r != 0 {
			s = append(s, n.name)
			r &^= n.r
		}
	}
	if r != 0 {
		s = append(s, fmt.Sprintf("0x%x", uint64(r)))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}

// What a Sample holds (Sample.Have).
const (
	HaveSMClock = 1 << iota
	HaveMemClock
	HaveMaxSMClock
	HaveMaxMemClock
	HaveTemp
	HavePower
	HaveReasons
)

// Sample is one reading of NVML.
type Sample struct {
	SMMHz, MemMHz, MaxSMMHz, MaxMemMHz uint
	TempC                              uint
	PowerMW                            uint
	Reasons                            Reasons
	Have                               int // Have* bits of the fields read
}

// Monitor reads an NVIDIA device's clocks, temperature and throttle
// reasons through NVML (libnvidia-ml.so.1, installed with the driver).
type Monitor struct {
	mu     sync.Mutex
	h      nvmlHandle
	path   string
	driver string
}

// OpenMonitor initializes NVML (PEAKBENCH_NVML, else libnvidia-ml.so.1) and
// finds the device with PCI bus id pciBusID (DeviceInfo.PCIBusID: NVML and
// CUDA number devices differently).
func OpenMonitor(pciBusID string) (*Monitor, error) {
	h, info, err := openNVML(pciBusID)
	if err != nil {
		return nil, err
	}
	kv := parseInfo(info)
	return &Monitor{h: h, path: kv["path"], driver: kv["driver"]}, nil
}

// Path returns the NVML library loaded.
func (m *Monitor) Path() string { return m.path }

// Driver returns the driver version NVML reports ("550.54.15").
func (m *Monitor) Driver() string { return m.driver }

// Read samples the device now.
func (m *Monitor) Read() (Sample, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h == nil {
		return Sample{}, errors.New("nvml: monitor is closed")
	}
	return m.read()
}

// Close shuts NVML down (the library stays loaded). Closing twice is a no-op.
func (m *Monitor) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h != nil {
		m.close()
		m.h = nil
	}
	return nil
}

func parseInfo(s string) map[string]string {
	kv := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = v
		}
	}
	return kv
}

// ParseInfo splits the C layer's "key=value" lines (exported for the
// library packages).
func ParseInfo(s string) map[string]string { return parseInfo(s) }
