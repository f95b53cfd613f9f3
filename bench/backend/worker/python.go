package worker

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform"
)

// The Python workers are built into the binary, so that `go run ./bench`,
// a built binary and one copied to another machine all find them; at run
// time they are written once to a cache directory and run from there.
// PEAKBENCH_WORKERS names a directory to run them from instead (to work on
// a worker without rebuilding).
//
//go:embed python/*.py
var pythonFiles embed.FS

// python describes one framework worker written in Python.
type python struct {
	name, script, module, description string
	device                            func(backend.OpenOptions) platform.Device
}

var pythons = []python{
	{name: "torch", script: "torch_worker.py", module: "torch",
		description: "PyTorch on the CPU through a Python worker (gemm, gemv, axpy, dot, element-wise, activations, sum, max, softmax, conv, pools, norms; fft, ifft, rfft by torch.fft; spmv, spmm on sparse CSR tensors; quantize, dequantize in i8, u8 by quantize_per_tensor, quantize_per_channel and dequantize)",
		device:      hostDevice},
	{name: "torch-cuda", script: "torch_worker.py", module: "torch",
		description: "PyTorch on the GPU (-device) through a Python worker, timed with CUDA synchronization (torch's ops; torch.fft through cuFFT, sparse CSR products through cuSPARSE)",
		device: func(o backend.OpenOptions) platform.Device {
			return platform.Device{Kind: platform.CUDA, Index: o.Device}
		}},
	{name: "numpy", script: "numpy_worker.py", module: "numpy",
		description: "NumPy and SciPy through a Python worker (gemm, gemv, axpy, dot, element-wise, activations, sum, max, softmax; fft, ifft, rfft by scipy.fft, which keeps f32 in complex64; spmv, spmm by scipy.sparse's CSR product, single-threaded)",
		device:      hostDevice},
}

func hostDevice(backend.OpenOptions) platform.Device { return platform.HostCPU() }

func init() {
	for _, p := range pythons {
		backend.Register(backend.Factory{
			Name:        p.name,
			Description: p.description,
			Open:        func(o backend.OpenOptions) (backend.Backend, error) { return p.open(o) },
		})
	}
}

// open starts the worker with the first interpreter that has the
// framework. The error lists every interpreter tried and why it failed.
func (p python) open(o backend.OpenOptions) (*Backend, error) {
	dir, err := workerDir()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p.name, err)
	}
	script := filepath.Join(dir, p.script)
	var (
		tried []string
		fault error // the first interpreter that has the framework but failed
	)
	for _, py := range interpreters() {
		b, err := Start(Spec{Name: p.name, Command: []string{py, script}, Device: p.device(o), Timeout: o.Timeout})
		if err == nil {
			return b, nil
		}
		var miss errMissing
		if !errors.As(err, &miss) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, exec.ErrNotFound) && fault == nil {
			fault = err
		}
		tried = append(tried, fmt.Sprintf("%s: %s", py, strings.TrimPrefix(err.Error(), p.name+": ")))
	}
	if fault != nil {
		return nil, fault
	}
	how := fmt.Sprintf("install it (scripts/install-deps.sh installs Debian's python3-%s), or name an interpreter that has it in PEAKBENCH_PYTHON", p.module)
	if py := os.Getenv("PEAKBENCH_PYTHON"); py != "" {
		how = "PEAKBENCH_PYTHON names an interpreter without it"
		if _, err := exec.LookPath(py); err != nil {
			how = "PEAKBENCH_PYTHON names no interpreter that can run (" + py + ")"
		}
	}
	return nil, fmt.Errorf("%s: no Python with %s (%s); %s", p.name, p.module, strings.Join(tried, "; "), how)
}

// interpreters lists the Python interpreters to try, in order:
// PEAKBENCH_PYTHON alone when set; else the python3 first on PATH (a
// virtual environment's or pyenv's, which may lack the distribution's
// packages), then the distribution's.
func interpreters() []string {
	if py := os.Getenv("PEAKBENCH_PYTHON"); py != "" {
		return []string{py}
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p == "" || seen[p] {
			return
		}
		if _, err := os.Stat(p); err != nil {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	if p, err := exec.LookPath("python3"); err == nil {
		add(p)
	}
	add("/usr/bin/python3")
	add("/usr/local/bin/python3")
	if len(out) == 0 {
		out = []string{"python3"} // its error says it is not found
	}
	return out
}

var (
	dirOnce sync.Once
	dirPath string
	dirErr  error
)

// workerDir returns the directory holding the Python workers:
// PEAKBENCH_WORKERS, or the embedded files written to the user's cache
// directory (a directory named by their hash, so an edited worker gets a
// new one and two peakbench runs never see a half-written one).
func workerDir() (string, error) {
	if d := os.Getenv("PEAKBENCH_WORKERS"); d != "" {
		return d, nil
	}
	dirOnce.Do(func() { dirPath, dirErr = writeWorkers() })
	return dirPath, dirErr
}

func writeWorkers() (string, error) {
	entries, err := pythonFiles.ReadDir("python")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := pythonFiles.ReadFile("python/" + e.Name())
		if err != nil {
			return "", err
		}
		files[e.Name()] = b
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(b))
		h.Write(b)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	parent := filepath.Join(base, "peakbench")
	dir := filepath.Join(parent, "workers-"+hex.EncodeToString(h.Sum(nil))[:12])
	if _, err := os.Stat(filepath.Join(dir, "peakbench_worker.py")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("writing the Python workers: %v", err)
	}
	tmp, err := os.MkdirTemp(parent, ".workers-")
	if err != nil {
		return "", fmt.Errorf("writing the Python workers: %v", err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			os.RemoveAll(tmp)
			return "", fmt.Errorf("writing the Python workers: %v", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp) // another run wrote it first
		if _, serr := os.Stat(dir); serr != nil {
			return "", fmt.Errorf("writing the Python workers: %v", err)
		}
	}
	return dir, nil
}
