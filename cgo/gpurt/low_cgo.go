//go:build cgo

package gpurt

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdlib.h>
#include "peakbench.h"
*/
import "C"

import (
	"strings"
	"time"
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

type (
	rtHandle   = *C.pb_gpu_rt
	devHandle  = *C.pb_gpu
	nvmlHandle = *C.pb_nvml
)

const (
	errLen   = 4096
	triedLen = 16384
	infoLen  = 4096
)

// cbuf is a C-allocated text buffer: no Go pointer crosses into C.
type cbuf struct {
	p *C.char
	n int
}

func newBuf(n int) cbuf {
	p := (*C.char)(C.malloc(C.size_t(n)))
	*p = 0
	return cbuf{p, n}
}

func (b cbuf) free()          { C.free(unsafe.Pointer(b.p)) }
func (b cbuf) len() C.size_t  { return C.size_t(b.n) }
func (b cbuf) String() string { return C.GoString(b.p) }

func cstr(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}

func loadError(library, path string, st C.pb_status, code C.int, errb, tried cbuf) *LoadError {
	msg := errb.String()
	le := &LoadError{Library: library, Path: path, Reason: msg, Err: newError(int(st), int(code), msg)}
	if t := tried.String(); t != "" {
		le.Tried = strings.Split(t, "\n")
	}
	return le
}

func openRuntime(v Vendor, path string) (rtHandle, string, error) {
	cpath := cstr(path)
	defer C.free(unsafe.Pointer(cpath))
	errb, tried, info := newBuf(errLen), newBuf(triedLen), newBuf(infoLen)
	defer errb.free()
	defer tried.free()
	defer info.free()
	var h *C.pb_gpu_rt
	var code C.int
	if st := C.pb_gpu_rt_open(C.pb_gpu_vendor(v), cpath, &h, &code, tried.p, tried.len(), errb.p, errb.len()); st != C.PB_OK {
		lib := "libcudart"
		if v == HIP {
			lib = "libamdhip64"
		}
		return nil, "", loadError(lib, path, st, code, errb, tried)
	}
	if st := C.pb_gpu_rt_info(h, info.p, info.len(), errb.p, errb.len()); st != C.PB_OK {
		return nil, "", newError(int(st), 0, errb.String())
	}
	return h, info.String(), nil
}

func (r *Runtime) deviceCount() (int, error) {
	errb := newBuf(errLen)
	defer errb.free()
	var n, code C.int
	if st := C.pb_gpu_device_count(r.h, &n, &code, errb.p, errb.len()); st != C.PB_OK {
		return 0, newError(int(st), int(code), errb.String())
	}
	return int(n), nil
}

func (r *Runtime) deviceProps(n int) (DeviceInfo, error) {
	errb := newBuf(errLen)
	defer errb.free()
	p := (*C.pb_gpu_props)(C.calloc(1, C.sizeof_pb_gpu_props))
	defer C.free(unsafe.Pointer(p))
	var code C.int
	if st := C.pb_gpu_device_props(r.h, C.int(n), p, &code, errb.p, errb.len()); st != C.PB_OK {
		return DeviceInfo{}, newError(int(st), int(code), errb.String())
	}
	return DeviceInfo{
		Name:           C.GoString(&p.name[0]),
		PCIBusID:       C.GoString(&p.pci_bus_id[0]),
		Major:          int(p.major),
		Minor:          int(p.minor),
		SMs:            int(p.sms),
		ClockKHz:       int(p.clock_khz),
		MemoryClockKHz: int(p.mem_clock_khz),
		BusWidthBits:   int(p.bus_width_bits),
		L2Bytes:        int(p.l2_bytes),
		TotalMemory:    uint64(p.total_mem),
		FreeMemory:     uint64(p.free_mem),
	}, nil
}

func (r *Runtime) openDevice(n int) (devHandle, error) {
	errb := newBuf(errLen)
	defer errb.free()
	var g *C.pb_gpu
	var code C.int
	if st := C.pb_gpu_open(r.h, C.int(n), &g, &code, errb.p, errb.len()); st != C.PB_OK {
		return nil, newError(int(st), int(code), errb.String())
	}
	return g, nil
}

func (d *Device) ptr() unsafe.Pointer { return unsafe.Pointer(d.h) }

func (d *Device) free() {
	C.pb_gpu_close(d.h)
	d.h = nil
}

func (d *Device) memInfo() (free, total uint64, err error) {
	errb := newBuf(errLen)
	defer errb.free()
	var f, t C.ulonglong
	if st := C.pb_gpu_mem_info(d.h, &f, &t, errb.p, errb.len()); st != C.PB_OK {
		return 0, 0, newError(int(st), 0, errb.String())
	}
	return uint64(f), uint64(t), nil
}

func (d *Device) copyBandwidth(bytes int64, iters int) (time.Duration, error) {
	errb := newBuf(errLen)
	defer errb.free()
	var ns C.int64_t
	if st := C.pb_gpu_copy_bandwidth(d.h, C.size_t(bytes), C.int(iters), &ns, errb.p, errb.len()); st != C.PB_OK {
		return 0, newError(int(st), 0, errb.String())
	}
	return time.Duration(ns), nil
}

func openNVML(pciBusID string) (nvmlHandle, string, error) {
	cbus := C.CString(pciBusID)
	defer C.free(unsafe.Pointer(cbus))
	errb, tried, info := newBuf(errLen), newBuf(triedLen), newBuf(infoLen)
	defer errb.free()
	defer tried.free()
	defer info.free()
	var h *C.pb_nvml
	if st := C.pb_nvml_open(cbus, &h, tried.p, tried.len(), errb.p, errb.len()); st != C.PB_OK {
		return nil, "", loadError("libnvidia-ml", "", st, 0, errb, tried)
	}
	if st := C.pb_nvml_info(h, info.p, info.len(), errb.p, errb.len()); st != C.PB_OK {
		C.pb_nvml_close(h)
		return nil, "", newError(int(st), 0, errb.String())
	}
	return h, info.String(), nil
}

func (m *Monitor) read() (Sample, error) {
	errb := newBuf(errLen)
	defer errb.free()
	s := (*C.pb_nvml_sample)(C.calloc(1, C.sizeof_pb_nvml_sample))
	defer C.free(unsafe.Pointer(s))
	if st := C.pb_nvml_read(m.h, s, errb.p, errb.len()); st != C.PB_OK {
		return Sample{}, newError(int(st), 0, errb.String())
	}
	return Sample{
		SMMHz: uint(s.sm_mhz), MemMHz: uint(s.mem_mhz),
		MaxSMMHz: uint(s.max_sm_mhz), MaxMemMHz: uint(s.max_mem_mhz),
		TempC: uint(s.temp_c), PowerMW: uint(s.power_mw),
		Reasons: Reasons(s.reasons), Have: int(s.have),
	}, nil
}

func (m *Monitor) close() { C.pb_nvml_close(m.h) }

// The Go constants must equal the C ones: each index is out of range, a
// compile error, unless the two agree.
var _ = [1]int{}[int(CUDA)-C.PB_GPU_CUDA+int(HIP)-C.PB_GPU_HIP]
var _ = [1]int{}[int(F16)-C.PB_GPU_F16+int(BF16)-C.PB_GPU_BF16+int(F32)-C.PB_GPU_F32+int(TF32)-C.PB_GPU_TF32+int(F64)-C.PB_GPU_F64]
var _ = [1]int{}[int(I8)-C.PB_GPU_I8+int(I32)-C.PB_GPU_I32+int(E4M3)-C.PB_GPU_E4M3+int(E5M2)-C.PB_GPU_E5M2]
var _ = [1]int{}[CodeOutOfMemory-C.PB_GPU_CODE_OUT_OF_MEMORY+CodeInsufficientDriver-C.PB_GPU_CODE_INSUFFICIENT_DRIVER+CodeNoDevice-C.PB_GPU_CODE_NO_DEVICE+CodeInvalidDevice-C.PB_GPU_CODE_INVALID_DEVICE]
var _ = [1]int{}[HaveSMClock-C.PB_NVML_HAVE_SM_CLOCK+HaveMemClock-C.PB_NVML_HAVE_MEM_CLOCK+HaveMaxSMClock-C.PB_NVML_HAVE_MAX_SM_CLOCK+HaveMaxMemClock-C.PB_NVML_HAVE_MAX_MEM_CLOCK+HaveTemp-C.PB_NVML_HAVE_TEMP+HavePower-C.PB_NVML_HAVE_POWER+HaveReasons-C.PB_NVML_HAVE_REASONS]

// native is imported for its C files (the go command compiles them there).
var _ = native.OK
