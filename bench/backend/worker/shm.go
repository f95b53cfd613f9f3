package worker

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/peakbench/peakbench/bench/workload"
)

// shared is the file a kernel's inputs and output live in: peakbench
// writes the inputs, the worker maps the file and reads them, and on an
// output request writes its result into the output region, which
// peakbench reads from its own mapping. Nothing but commands crosses the
// pipe. The file is in /dev/shm (memory, never a disk) where there is one.
type shared struct {
	path    string
	mem     []byte
	wide    bool // elements are f64 (wideElems), else f32
	inputs  []region
	output  region
	index   []region // int32 regions: a sparse matrix's pattern
	removed bool
}

var fileSeq atomic.Int64

// shmDir is where shared files go: /dev/shm, or the temporary directory
// on systems without it.
func shmDir() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() && unix.Access("/dev/shm", unix.W_OK) == nil {
		return "/dev/shm"
	}
	return os.TempDir()
}

// slotStride staggers buffer starts within their pages as backend.Place
// does (k·576 mod 4096), so the worker's views start at the same page
// offsets as every other backend's buffers.
const slotStride = 9 * 64

const page = 4096

// newShared lays out the inputs and an output of outLen elements of dt,
// then index's int32 arrays (a sparse matrix's row pointers and column
// indices), each buffer on pages of its own at its staggered offset, and
// writes the inputs and the indices.
func newShared(name string, wide bool, inputs [][]float64, outLen int, index [][]int32) (*shared, error) {
	size := elemSize(wide)
	s := &shared{wide: wide}
	var end int64
	place := func(slot, count, size int) region {
		start := (end+page-1)/page*page + int64(slot*slotStride%page)
		end = start + int64(count*size)
		return region{Offset: start, Count: count}
	}
	for i, v := range inputs {
		s.inputs = append(s.inputs, place(i, len(v), size))
	}
	s.output = place(len(inputs), outLen, size)
	for i, v := range index {
		s.index = append(s.index, place(len(inputs)+1+i, len(v), 4))
	}
	total := max((end+page-1)/page*page, page)

	s.path = filepath.Join(shmDir(), fmt.Sprintf("peakbench-%d-%s-%d", os.Getpid(), name, fileSeq.Add(1)))
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("shared inputs: %v", err)
	}
	defer f.Close()
	if err := f.Truncate(total); err != nil {
		s.remove()
		return nil, fmt.Errorf("shared inputs: %v", err)
	}
	s.mem, err = unix.Mmap(int(f.Fd()), 0, int(total), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		s.remove()
		return nil, fmt.Errorf("shared inputs: mapping %s (%d bytes): %v", s.path, total, err)
	}
	for i, v := range inputs {
		s.write(s.inputs[i], v)
	}
	for i, v := range index {
		if len(v) > 0 {
			r := s.index[i]
			copy(unsafe.Slice((*int32)(unsafe.Pointer(&s.mem[r.Offset])), len(v)), v)
		}
	}
	return s, nil
}

// wideElems reports whether w's elements travel in the shared file as f64:
// f64, and the integer types (an i8 gemm's i32 result passes 2^24, beyond
// f32's exact integers), and the sparse conversions, whose outputs hold row
// and column indices beyond 2^24 of a large matrix beside the values. Every
// other workload travels as f32: the other low-precision gemm types (f16,
// bf16, tf32, fp8) too, as f32 holds their inputs and their f32 results
// exactly (the inputs are exact in the dtype: workload.Data); the worker
// converts them. (The Python workers compute no sparse conversion.)
func wideElems(w workload.Workload) bool {
	return w.DType == workload.F64 || w.DType.Integer() || w.Op.SparseConversion()
}

// elemSize is the bytes of one element in the shared file.
func elemSize(wide bool) int {
	if wide {
		return 8
	}
	return 4
}

// write stores v in r as the dtype (inputs are exact in it: workload.Data).
func (s *shared) write(r region, v []float64) {
	b := s.mem[r.Offset : r.Offset+int64(r.Count*elemSize(s.wide))]
	if len(v) == 0 {
		return
	}
	switch {
	case s.wide:
		copy(unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(v)), v)
	default:
		out := unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
	}
}

// read returns r's elements as float64.
func (s *shared) read(r region) []float64 {
	out := make([]float64, r.Count)
	if r.Count == 0 {
		return out
	}
	b := s.mem[r.Offset : r.Offset+int64(r.Count*elemSize(s.wide))]
	switch {
	case s.wide:
		copy(out, unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), r.Count))
	default:
		for i, x := range unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), r.Count) {
			out[i] = float64(x)
		}
	}
	return out
}

// clearOutput fills the output region with NaN, so that a worker that
// answers an output request without writing its result fails verification.
func (s *shared) clearOutput() {
	nan := make([]float64, s.output.Count)
	for i := range nan {
		nan[i] = math.NaN()
	}
	s.write(s.output, nan)
}

// remove unlinks the file; both mappings stay valid.
func (s *shared) remove() {
	if !s.removed {
		os.Remove(s.path)
		s.removed = true
	}
}

// close unlinks the file and unmaps it.
func (s *shared) close() {
	s.remove()
	if s.mem != nil {
		unix.Munmap(s.mem)
		s.mem = nil
	}
}
