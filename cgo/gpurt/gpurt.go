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
// native/gpu_runtime.c, native/cuda.c); see there for where libraries are searched
// for. Built without cgo, every Open returns an error wrapping ErrNoCgo.
package gpurt

import (
	"errors"
	"fmt"

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
	I8   DType = 6 // signed 8-bit integers (gemm inputs)
	I32  DType = 7 // signed 32-bit integers (an integer gemm's output)
	E4M3 DType = 8 // OCP 8-bit float, 4 exponent bits, no infinities (gemm inputs)
	E5M2 DType = 9 // OCP 8-bit float, 5 exponent bits (gemm inputs)
)

var dtypeNames = map[DType]string{
	F16: "f16", BF16: "bf16", F32: "f32", TF32: "tf32", F64: "f64",
	I8: "i8", I32: "i32", E4M3: "e4m3", E5M2: "e5m2",
}

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
		return nil, fmt.Errorf("gpurt: OpenRuntime: bad vendor %d", int(v))
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
