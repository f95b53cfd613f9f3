// Package nvidia registers the NVIDIA GPU backends: "cublas" (gemm in f32,
// f64, f16, bf16, tf32, i8 and, on compute capability 8.9 or later, e4m3;
// gemv, axpy, dot), "cufft" (fft, ifft, rfft in f32 and f64), "cusparse"
// (spmv, spmm on CSR in f32 and f64; the format conversions csr2coo,
// coo2csr, csr2csc) and "cudnn" (add, mul, relu, sigmoid, tanh, softmax,
// sum, max, conv1d, conv2d, conv3d in f32), through
// github.com/peakbench/peakbench/cgo/gpurt, cgo/cublas, cgo/cufft,
// cgo/cusparse and cgo/cudnn, loaded at run time: nothing GPU is touched
// until one of them is opened. Each library is a backend of its own: each
// is a file (and a pip wheel) of its own that a machine may lack while it
// has the others. A library's backend may register in its own file
// (cufft.go), so that adding one touches no list here.
//
// Each backend opens the device -device names (backend.OpenOptions.Device;
// through the CUDA platform, bench/platform/cuda) with a stream of its own.
// Kernels are timed with device events around the enqueued iterations; inputs are copied to the device once, in Prepare
// (f16, bf16, i8 and e4m3 converted on the host), and results copied back
// by Output (f32, or i32 for i8, widened)
// for verification. Results name the device, e.g.
// "cuda:0 NVIDIA H100 80GB HBM3", and are compared with that GPU's peaks
// (bench/peak/gpu.go; the CUDA platform measures its copy bandwidth).
//
// Cold cache (backend.Config.Copies > 1): a kernel rotates through enough
// identical buffer sets that they exceed twice the GPU's L2 cache (at least
// the copies asked for, at most 4096, within 2 GiB and half the free
// memory), so each iteration reads from device memory, as on the CPU. No
// flush runs inside the timed region.
//
// NVML (the driver's libnvidia-ml, through the CUDA platform's Monitor) is
// read after each timed run, at most every 50 ms: the clocks, temperature
// and the throttle reasons seen while the backend ran are in
// Info().Details, and Warnings reports throttling.
package nvidia

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform"
	cudaplat "github.com/peakbench/peakbench/bench/platform/cuda"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cublas"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

func init() {
	backend.Register(backend.Factory{
		Name:        "cublas",
		Description: "NVIDIA cuBLAS on a CUDA GPU, loaded at run time (gemm f32/f64/f16/bf16/tf32/i8, e4m3 through cuBLASLt on Ada/Hopper; gemv, axpy, dot)",
		Open:        func(o backend.OpenOptions) (backend.Backend, error) { return OpenCUBLAS(o.Device) },
		Isolate:     true,
	})
	backend.Register(backend.Factory{
		Name:        "cusparse",
		Description: "NVIDIA cuSPARSE on a CUDA GPU, loaded at run time (spmv, spmm on CSR with the generic API; csr2coo, coo2csr, csr2csc conversions; f32, f64)",
		Open:        func(o backend.OpenOptions) (backend.Backend, error) { return OpenCUSPARSE(o.Device) },
		Isolate:     true,
	})
	backend.Register(backend.Factory{
		Name:        "cudnn",
		Description: "NVIDIA cuDNN on a CUDA GPU, loaded at run time (add, mul, relu, sigmoid, tanh, softmax, sum, max, conv1d, conv2d, conv3d; f32)",
		Open:        func(o backend.OpenOptions) (backend.Backend, error) { return OpenCUDNN(o.Device) },
		Isolate:     true,
	})
}

// base is what both backends share: the device and its monitor.
type base struct {
	name string
	dev  *gpurt.Device
	mon  *cudaplat.Monitor
}

func newBase(name string, dev *gpurt.Device) base {
	return base{name: name, dev: dev, mon: cudaplat.NewMonitor(dev.Info())}
}

// Name implements backend.Backend.
func (b *base) Name() string { return b.name }

// Device implements backend.Backend: "cuda:0 NVIDIA H100 80GB HBM3".
func (b *base) Device() platform.Device { return gpudev.Of(b.dev) }

// Warnings reports what makes the backend's numbers suspect, e.g. a GPU
// that throttled while it ran.
func (b *base) Warnings() []string { return b.mon.Warnings(b.Device().String(), b.name) }

func (b *base) details() map[string]string {
	info := b.dev.Info()
	rt := b.dev.Runtime()
	d := map[string]string{
		"device":             b.Device().String(),
		"compute_capability": info.ComputeCapability(),
		"sms":                strconv.Itoa(info.SMs),
		"clock_mhz":          strconv.Itoa(info.ClockKHz / 1000),
		"memory":             fmt.Sprintf("%.1f GiB", float64(info.TotalMemory)/(1<<30)),
		"pci_bus_id":         info.PCIBusID,
		"cudart":             rt.Path(),
		"cudart_version":     rt.Version(),
		"driver_cuda":        rt.DriverVersion(),
	}
	b.mon.Details(d)
	return d
}

// kernel is a prepared job; Run reads NVML after the timed region.
type kernel struct {
	job *gpurt.Job
	mon *cudaplat.Monitor
}

func (k kernel) Run(iters int) (time.Duration, error) {
	d, err := k.job.Run(iters)
	k.mon.Sample()
	return d, err
}
func (k kernel) Output() ([]float64, error) { return k.job.Output() }
func (k kernel) Close() error               { return k.job.Close() }

// String describes what the kernel runs.
func (k kernel) String() string { return k.job.String() }

// setInputs copies the workload's inputs into the job's arguments.
func setInputs(job *gpurt.Job, args ...[]float64) error {
	for i, a := range args {
		if err := job.SetInput(i, a); err != nil {
			return err
		}
	}
	return nil
}

// gpuDTypes are the workload types a GPU job takes, by the type of its
// inputs (a gemm's output type follows from it: f32, or i32 for i8).
var gpuDTypes = map[workload.DType]gpurt.DType{
	workload.F32: gpurt.F32, workload.F64: gpurt.F64,
	workload.F16: gpurt.F16, workload.BF16: gpurt.BF16, workload.TF32: gpurt.TF32,
	workload.I8: gpurt.I8, workload.E4M3: gpurt.E4M3, workload.E5M2: gpurt.E5M2,
}

// wrap makes a library's "cannot" (a tensor too large for its index
// type, a geometry no algorithm supports) an unsupported shape of a
// declared op, which the harness skips, and prefixes the workload to
// other errors.
func wrap(name string, w workload.Workload, err error) error {
	if errors.Is(err, gpurt.ErrUnsupported) {
		why := strings.TrimPrefix(err.Error(), name+": ") // the library's messages start with its name too
		return backend.UnsupportedShape(fmt.Errorf("%s: %s %s: %s: %w", name, w.Op, w.DType, why, backend.ErrUnsupported))
	}
	return &wrapped{fmt.Sprintf("%s: %s: %v", name, w, err), err}
}

type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// CUBLAS is cuBLAS as a peakbench backend.
type CUBLAS struct {
	base
	lib *cublas.Library
}

// OpenCUBLAS opens CUDA device index and cuBLAS on it.
func OpenCUBLAS(index int) (*CUBLAS, error) {
	dev, err := cudaplat.OpenDevice(index)
	if err != nil {
		return nil, err
	}
	lib, err := cublas.Open(dev)
	if err != nil {
		dev.Close()
		return nil, err
	}
	return &CUBLAS{base: newBase("cublas", dev), lib: lib}, nil
}

// Library returns the library behind the backend.
func (b *CUBLAS) Library() *cublas.Library { return b.lib }

// Info implements backend.Backend.
func (b *CUBLAS) Info() backend.Info {
	d := b.details()
	for k, v := range b.lib.Details() {
		d[k] = v
	}
	return backend.Info{Version: b.lib.Version(), Details: d}
}

// Declared implements backend.Declarer: gemm in f32, f64, f16, bf16, tf32
// and i8 (GemmEx), and e4m3 where cuBLASLt's fp8 matmul runs
// (cublas.Library.FP8: compute capability 8.9 or later); gemv, axpy and dot
// in f32 and f64. Not declared: e5m2, since the workload multiplies e5m2 by
// e5m2, for which cuBLASLt has no kernel (only E4M3 × E4M3, E4M3 × E5M2 and
// E5M2 × E4M3); and u8s8, which cuBLAS has no form of (its integer gemm is
// s8 × s8 only).
func (b *CUBLAS) Declared() backend.Support {
	s := backend.Support{}.Add(workload.DTypes, workload.GEMM, workload.GEMV, workload.AXPY, workload.Dot)
	s.Add([]workload.DType{workload.F16, workload.BF16, workload.TF32, workload.I8}, workload.GEMM)
	if ok, _ := b.lib.FP8(); ok {
		s.Add([]workload.DType{workload.E4M3}, workload.GEMM)
	}
	return s
}

// Close implements backend.Backend.
func (b *CUBLAS) Close() error {
	b.lib.Close()
	b.mon.Close()
	return b.dev.Close()
}

// Prepare implements backend.Backend.
func (b *CUBLAS) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !b.Declared().Has(w.Op, w.DType) {
		return nil, backend.Unsupported("cublas", w)
	}
	dt := gpuDTypes[w.DType]
	opt := gpurt.JobOptions{Copies: gpudev.Copies(cfg, w.Bytes(), b.dev)}
	s := w.Shape
	var (
		job  *gpurt.Job
		err  error
		args [][]float64
	)
	switch w.Op {
	case workload.GEMM:
		job, err = b.lib.PrepareGEMM(dt, s.TransA, s.TransB, s.M, s.N, s.K, opt)
		args = in.Args[:2]
	case workload.GEMV:
		job, err = b.lib.PrepareGEMV(dt, s.M, s.N, opt)
		args = in.Args[:2]
	case workload.AXPY:
		job, err = b.lib.PrepareAXPY(dt, s.N, in.Alpha, opt)
		args = in.Args[:2]
	case workload.Dot:
		job, err = b.lib.PrepareDot(dt, s.N, opt)
		args = in.Args[:2]
	default:
		return nil, backend.Unsupported("cublas", w)
	}
	if err != nil {
		return nil, wrap("cublas", w, err)
	}
	if err := setInputs(job, args...); err != nil {
		job.Close()
		return nil, wrap("cublas", w, err)
	}
	return kernel{job, b.mon}, nil
}
