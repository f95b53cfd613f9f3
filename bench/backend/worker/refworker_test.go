package worker

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	_ "github.com/peakbench/peakbench/bench/backend/nvidia" // registered for the children of isolate_gpu_test.go
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

// The reference worker: the test binary, started with PEAKBENCH_REFWORKER
// set to a mode, speaks the protocol in Go without Python. It computes the
// float64 reference of the workload from the shared file, and misbehaves
// as its mode says:
//
//	ok         a correct worker
//	wrong      a result off by one in its first element
//	crash      exits with status 3 on the first run, saying why on stderr
//	hang       never answers the first run
//	malformed  answers the first run with a line that is not JSON
//	version    its hello names protocol 99
//	missing    its hello says the framework is not installed
//	device     its hello names a device peakbench cannot read
//	noisy      prints to its standard output outside of replies (a
//	           framework that prints): a protocol error it must avoid
//	nosparse   leaves spmv and spmm out of its hello, saying why
//
// In every mode it checks that a sparse workload's CSR pattern arrived
// whole in the index regions, as a framework's worker reads it.
const refWorkerEnv = "PEAKBENCH_REFWORKER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(refWorkerEnv); mode != "" {
		os.Exit(refWorker(mode))
	}
	if name, opt, ok := ServeArgs(os.Args); ok { // isolate_test.go
		os.Exit(ServeMain(name, opt))
	}
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

type refKernel struct {
	w    workload.Workload
	data workload.Data
	mem  []byte
	sh   *shared // views over mem (path unused)
	out  []float64
}

func refWorker(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	enc := json.NewEncoder(os.Stdout)
	kernels := map[int]*refKernel{}
	ok, fail := true, false
	say := func(r reply) {
		if err := enc.Encode(r); err != nil {
			os.Exit(1)
		}
	}
	bad := func(msg string) { say(reply{OK: &fail, Error: msg}) }
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			bad("bad request: " + err.Error())
			continue
		}
		switch req.Cmd {
		case "hello":
			switch mode {
			case "missing":
				say(reply{OK: &fail, Missing: true, Error: "No module named 'ref'"})
				continue
			case "version":
				say(reply{OK: &ok, Protocol: 99, Name: "ref", Version: "1"})
				continue
			case "noisy":
				fmt.Println("a framework's banner")
			}
			device := "cpu"
			if mode == "device" {
				device = "gpu zero"
			}
			ops, unavailable := map[string][]string{}, map[string]string{}
			for _, op := range workload.Ops {
				if mode == "nosparse" && op.Sparse() {
					unavailable[string(op)] = "ref 1.0 has no sparse matrices"
					continue
				}
				if !op.Layer() && op.Accepts(workload.F32) {
					ops[string(op)] = []string{"f32", "f64"}
				}
			}
			if mode == "nosparse" { // and a reason for one dtype of a listed op
				unavailable["gemm bf16"] = "ref 1.0 multiplies no bf16"
			}
			say(reply{OK: &ok, Protocol: Protocol, Name: "ref", Version: "1.0", Device: device, Ops: ops,
				Threads: true, Details: map[string]string{"mode": mode}, Unavailable: unavailable})
		case "prepare":
			k, err := refPrepare(req)
			if err != nil {
				bad(err.Error())
				continue
			}
			kernels[req.ID] = k
			say(reply{OK: &ok, Implementation: "reference"})
		case "run":
			switch mode {
			case "crash":
				fmt.Fprintln(os.Stderr, "Traceback (most recent call last):\nFatal: simulated crash")
				return 3
			case "hang":
				time.Sleep(time.Hour)
			case "malformed":
				fmt.Println("this is not JSON")
				continue
			case "zerons":
				zero := int64(0)
				say(reply{OK: &ok, NS: &zero})
				continue
			}
			k := kernels[req.ID]
			start := time.Now()
			for range req.Iters {
				k.out = k.w.Reference(k.data)
				if k.w.Op == workload.AXPY {
					k.data.Args[1] = k.out // axpy accumulates into y
				}
			}
			if mode == "wrong" {
				k.out[0]++
			}
			ns := max(time.Since(start).Nanoseconds(), 1)
			say(reply{OK: &ok, NS: &ns})
		case "output":
			k := kernels[req.ID]
			k.sh.write(k.sh.output, k.out)
			say(reply{OK: &ok})
		case "free":
			if k := kernels[req.ID]; k != nil {
				unix.Munmap(k.mem)
				delete(kernels, req.ID)
			}
			say(reply{OK: &ok})
		case "close":
			say(reply{OK: &ok})
			return 0
		default:
			bad("unknown command " + req.Cmd)
		}
	}
	return 0
}

// refPrepare rebuilds the workload from the request (its shape string, as
// ParseShape reads it) and reads the inputs from the shared file.
func refPrepare(req request) (*refKernel, error) {
	op, err := workload.ParseOp(req.Op)
	if err != nil {
		return nil, err
	}
	dt, err := workload.ParseDType(req.DType)
	if err != nil {
		return nil, err
	}
	sh, err := workload.ParseShape(op, req.Shape)
	if err != nil {
		return nil, err
	}
	w := workload.Workload{Op: op, DType: dt, Shape: sh}
	f, err := os.OpenFile(req.File, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	k := &refKernel{w: w, mem: mem, sh: &shared{mem: mem, wide: wideElems(w), inputs: req.Inputs, output: *req.Output}}
	k.data.Alpha = req.Alpha
	for _, r := range req.Inputs {
		k.data.Args = append(k.data.Args, k.sh.read(r))
	}
	if k.sh.output.Count != w.OutputLen() {
		return nil, fmt.Errorf("output region holds %d elements, the workload %d", k.sh.output.Count, w.OutputLen())
	}
	if err := checkIndex(w, mem, req.Index); err != nil {
		return nil, err
	}
	return k, nil
}

// checkIndex compares a sparse workload's index regions with its matrix:
// the row pointers, then the column indices, as int32.
func checkIndex(w workload.Workload, mem []byte, index []region) error {
	if !w.Op.Sparse() {
		return nil
	}
	m := w.SparseMatrix()
	want := [][]int32{m.RowPtr, m.ColIdx}
	if len(index) != len(want) {
		return fmt.Errorf("%s: %d index regions; want the row pointers and the column indices", w.Op, len(index))
	}
	for i, r := range index {
		if r.Count != len(want[i]) || r.Offset < 0 || r.Offset+4*int64(r.Count) > int64(len(mem)) {
			return fmt.Errorf("%s: index region %d %+v: want %d elements inside the %d-byte file", w.Op, i, r, len(want[i]), len(mem))
		}
		got := unsafe.Slice((*int32)(unsafe.Pointer(&mem[r.Offset])), r.Count)
		if !slices.Equal(got, want[i]) {
			return fmt.Errorf("%s: index region %d differs from the matrix's", w.Op, i)
		}
	}
	return nil
}
