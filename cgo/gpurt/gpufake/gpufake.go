// Package gpufake builds stand-ins for the CUDA runtime, cuBLAS (with its
// libcublasLt companion), cuFFT, cuSPARSE, cuDNN 9 and cuDNN 8 (with their
// sub-libraries),
// NVML (current and pre-NVML-13), HIP and rocBLAS from the C sources in
// csrc/, so that peakbench's GPU loaders, call sequences and backends are
// tested on machines without a GPU.
//
// The fakes keep "device" memory in host memory behind a header naming its
// device, compute naively with the vendors' column-major semantics, and are
// stricter than the real libraries where those would silently misbehave:
// every pointer must be a device allocation of the handle's device, leading
// dimensions must fit, the calling thread's current device must be the
// handle's, and cuBLAS's pointer mode must be host for gemm, gemv and axpy
// and device for dot. Streams behave as on a GPU: a library call's work
// goes on the stream bound to its handle (the default stream when none) and
// is carried out only when that stream, or an event recorded on it, is
// synchronized; events time only their own stream's work. A library left
// unbound to the stream a job times leaves the output at zero, and the
// conformance suite fails it (see csrc/fake_runtime.c). The fake libraries link to each other by soname, like
// the real ones (libcublas needs libcudart and libcublasLt, libcudnn.so.9
// needs libcudart and libcudnn_ops, librocblas needs libamdhip64, cuDNN 8's
// sub-libraries need each other as cuDNN 8's do), without run paths: a
// companion loads only if peakbench's loader loaded it first. The cuDNN
// shims also open their sub-libraries by soname when a call needs one, as
// the real ones do (see csrc/fake_cudnn.c).
//
// A plain fake needs nothing here: every csrc/fake_<lib>.c that no step
// below builds is a CUDA library, built into the file its
// `#define PB_FAKE_SONAME "…"` names (else lib<lib>.so), linked to the fake
// runtime and libm; Libs.Lib("<lib>") is its path and Setenv points
// PEAKBENCH_<LIB> at it (csrc/fake_cufft.c is one). The runtimes,
// cuBLAS, cuDNN, NVML, rocBLAS and cuSPARSE have steps of their own.
//
// The libraries are built once per test process (a process can load only
// one library per soname) with the C compiler "cc" into a temporary folder;
// call Cleanup from TestMain to remove it. Their behavior is steered by
// environment variables read at each call (see csrc/fake_runtime.c):
// Knobs lists them.
package gpufake

import (
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/peakbench/peakbench/cgo/gpurt"
)

//go:embed csrc/*.c
var sources embed.FS

// Libs are the paths of the built fake libraries.
type Libs struct {
	Dir      string
	CUDART   string // libcudart.so.12
	CUBLASLt string // libcublasLt.so.12 (needs libcudart): fp8 matmul
	CUBLAS   string // libcublas.so.12 (needs libcudart and libcublasLt)
	CUSPARSE string // libcusparse.so.12 (needs libcudart): CSR SpMV and SpMM
	CUDNNOps string // libcudnn_ops.so.9
	CUDNNCNN string // libcudnn_cnn.so.9 (needs libcudnn_ops; the shim opens it for convolutions)
	CUDNN    string // libcudnn.so.9 (needs libcudart and libcudnn_ops)
	NVML     string // libnvidia-ml.so.1 of NVML 13 (nvmlDeviceGetTemperatureV)
	NVMLOld  string // nvml-old/libnvidia-ml.so.1, without nvmlDeviceGetTemperatureV
	HIP      string // libamdhip64.so.6
	ROCBLAS  string // librocblas.so.4 (needs libamdhip64)

	// CUDNN8 is cudnn8/libcudnn.so.8 (needs libcudart), with its
	// sub-libraries, CUDNN8Sub, beside it in dependency order.
	CUDNN8    string
	CUDNN8Sub []string

	// Plain are the fakes built by convention (see the package comment),
	// by library name: "cufft" → libcufft.so.11 (direct DFTs on the host).
	Plain map[string]string
}

// Lib returns the path of the plain fake of name ("cufft"); it panics when
// csrc/ has no fake_<name>.c built by convention, a test's own mistake.
func (l *Libs) Lib(name string) string {
	p, ok := l.Plain[name]
	if !ok {
		panic("gpufake: no plain fake " + name)
	}
	return p
}

// cudnn8Sub are cuDNN 8's sub-libraries and the ones each needs.
var cudnn8Sub = []struct {
	name string
	deps []string
}{
	{"libcudnn_ops_infer.so.8", nil},
	{"libcudnn_ops_train.so.8", []string{"libcudnn_ops_infer.so.8"}},
	{"libcudnn_cnn_infer.so.8", []string{"libcudnn_ops_infer.so.8"}},
	{"libcudnn_cnn_train.so.8", []string{"libcudnn_ops_infer.so.8", "libcudnn_ops_train.so.8", "libcudnn_cnn_infer.so.8"}},
	{"libcudnn_adv_infer.so.8", []string{"libcudnn_ops_infer.so.8"}},
	{"libcudnn_adv_train.so.8", []string{"libcudnn_ops_infer.so.8", "libcudnn_ops_train.so.8", "libcudnn_adv_infer.so.8"}},
}

var (
	once     sync.Once
	built    *Libs
	buildErr error
)

// Build compiles the fakes (once per process) and returns their paths.
func Build() (*Libs, error) {
	once.Do(func() { built, buildErr = build() })
	return built, buildErr
}

// Cleanup removes the folder Build made.
func Cleanup() {
	if built != nil {
		os.RemoveAll(built.Dir)
	}
}

func build() (*Libs, error) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return nil, fmt.Errorf("gpufake: no C compiler: %v", err)
	}
	dir, err := os.MkdirTemp("", "peakbench-gpufake-")
	if err != nil {
		return nil, err
	}
	entries, err := sources.ReadDir("csrc")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := sources.ReadFile("csrc/" + e.Name())
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			return nil, err
		}
	}
	for _, sub := range []string{"nvml-old", "cudnn8"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	l := &Libs{
		Dir:      dir,
		CUDART:   filepath.Join(dir, "libcudart.so.12"),
		CUBLASLt: filepath.Join(dir, "libcublasLt.so.12"),
		CUBLAS:   filepath.Join(dir, "libcublas.so.12"),
		CUSPARSE: filepath.Join(dir, "libcusparse.so.12"),
		CUDNNOps: filepath.Join(dir, "libcudnn_ops.so.9"),
		CUDNNCNN: filepath.Join(dir, "libcudnn_cnn.so.9"),
		CUDNN:    filepath.Join(dir, "libcudnn.so.9"),
		NVML:     filepath.Join(dir, "libnvidia-ml.so.1"),
		NVMLOld:  filepath.Join(dir, "nvml-old", "libnvidia-ml.so.1"),
		HIP:      filepath.Join(dir, "libamdhip64.so.6"),
		ROCBLAS:  filepath.Join(dir, "librocblas.so.4"),
		CUDNN8:   filepath.Join(dir, "cudnn8", "libcudnn.so.8"),
	}
	src := func(name string) string { return filepath.Join(dir, name) }
	// The runtimes' sonames are their own and unique to this build
	// (libpbfake_*-TAG), so that no runtime loaded earlier in the process, a
	// real one or another build's fake, stands in for them when the fake
	// libraries that call into them load; the companions keep the real
	// sonames, and are linked without using a symbol of theirs.
	tag := filepath.Base(dir)
	steps := []step{
		{l.CUDART, "libpbfake_cudart-" + tag + ".so", []string{src("fake_runtime.c"), "-lpthread"}},
		{l.HIP, "libpbfake_amdhip64-" + tag + ".so", []string{"-DPB_FAKE_HIP", src("fake_runtime.c"), "-lpthread"}},
		{l.CUBLASLt, "", []string{src("fake_cublaslt.c"), "-Wl,--no-as-needed", l.CUDART}},
		{l.CUSPARSE, "", []string{src("fake_cusparse.c"), "-Wl,--no-as-needed", l.CUDART}},
		{l.CUDNNOps, "", []string{src("fake_sublib.c")}},
		{l.CUDNNCNN, "", []string{src("fake_sublib.c"), "-Wl,--no-as-needed", l.CUDNNOps}},
		{l.CUBLAS, "", []string{src("fake_cublas.c"), "-Wl,--no-as-needed", l.CUDART, l.CUBLASLt}},
		{l.CUDNN, "", []string{src("fake_cudnn.c"), "-Wl,--no-as-needed", l.CUDART, l.CUDNNOps, "-lm"}},
		{l.NVML, "", []string{src("fake_nvml.c")}},
		{l.NVMLOld, "", []string{"-DPB_FAKE_NVML_OLD", src("fake_nvml.c")}},
		{l.ROCBLAS, "", []string{src("fake_rocblas.c"), "-Wl,--no-as-needed", l.HIP}},
		// cuDNN 8's shim needs none of its sub-libraries to load: it opens them when called.
		{l.CUDNN8, "", []string{"-DPB_FAKE_CUDNN_MAJOR=8", src("fake_cudnn.c"), "-Wl,--no-as-needed", l.CUDART, "-lm"}},
	}
	d8 := filepath.Dir(l.CUDNN8)
	for _, sub := range cudnn8Sub {
		out := filepath.Join(d8, sub.name)
		args := []string{src("fake_sublib.c"), "-Wl,--no-as-needed"}
		for _, dep := range sub.deps {
			args = append(args, filepath.Join(d8, dep))
		}
		steps = append(steps, step{out, "", args})
		l.CUDNN8Sub = append(l.CUDNN8Sub, out)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	plain, err := plainFakes(names, steps, func(name string) ([]byte, error) { return sources.ReadFile("csrc/" + name) })
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	l.Plain = map[string]string{}
	for _, p := range plain {
		out := filepath.Join(dir, p.file)
		l.Plain[p.name] = out
		steps = append(steps, step{out, "", []string{src(p.source), "-Wl,--no-as-needed", l.CUDART, "-lm"}})
	}
	for _, s := range steps {
		soname := s.soname
		if soname == "" {
			soname = filepath.Base(s.out)
		}
		args := append([]string{"-shared", "-fPIC", "-O1", "-Wall", "-o", s.out, "-Wl,-soname," + soname}, s.args...)
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("gpufake: cc %v: %v\n%s", args, err, out)
		}
	}
	return l, nil
}

// step is one cc run: the library out, its soname (out's name when
// empty), and the sources, flags and libraries it links.
type step struct {
	out, soname string
	args        []string
}

// plainFake is a csrc/fake_<name>.c built by convention into file.
type plainFake struct{ name, source, file string }

var sonameDefine = regexp.MustCompile(`(?m)^#define PB_FAKE_SONAME "([^"/]+)"$`)

// plainFakes are the csrc/fake_*.c sources that no step compiles, in name
// order, each with the file it is built into (read returns a source's text).
func plainFakes(sources []string, steps []step, read func(string) ([]byte, error)) ([]plainFake, error) {
	used := map[string]bool{}
	for _, s := range steps {
		for _, a := range s.args {
			if strings.HasSuffix(a, ".c") {
				used[filepath.Base(a)] = true
			}
		}
	}
	var out []plainFake
	for _, src := range sources {
		name, ok := strings.CutPrefix(strings.TrimSuffix(src, ".c"), "fake_")
		if !ok || !strings.HasSuffix(src, ".c") || used[src] {
			continue
		}
		b, err := read(src)
		if err != nil {
			return nil, err
		}
		file := "lib" + name + ".so"
		if m := sonameDefine.FindSubmatch(b); m != nil {
			file = string(m[1])
		}
		out = append(out, plainFake{name, src, file})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// Knobs are the environment variables that steer the fakes.
var Knobs = []string{
	"PB_FAKE_CUDA_DEVICES", "PB_FAKE_CUDA_ERROR", "PB_FAKE_CUDA_MEM", "PB_FAKE_CUDA_DRIVER", "PB_FAKE_CUDA_NO_CLOCKS", "PB_FAKE_CUDA_CC",
	"PB_FAKE_HIP_DEVICES", "PB_FAKE_HIP_ERROR", "PB_FAKE_HIP_MEM", "PB_FAKE_HIP_DRIVER",
	"PB_FAKE_NVML_REASONS", "PB_FAKE_NVML_SM_MHZ", "PB_FAKE_CUBLAS_MAJOR", "PB_FAKE_CUDNN_CUDART",
	"PB_FAKE_LT_NO_SCALES",
}

// Setenv points peakbench's loader at the fakes for the duration of t:
// PEAKBENCH_CUDART, PEAKBENCH_CUBLAS, PEAKBENCH_CUSPARSE, PEAKBENCH_CUDNN,
// PEAKBENCH_NVML, PEAKBENCH_HIP, PEAKBENCH_ROCBLAS and each plain fake's
// PEAKBENCH_<LIB> (PEAKBENCH_CUFFT); and clears the Knobs (the fakes'
// defaults), which t may then set.
func (l *Libs) Setenv(t testing.TB) {
	t.Helper()
	for _, k := range Knobs {
		t.Setenv(k, "")
	}
	t.Setenv("PEAKBENCH_CUDART", l.CUDART)
	t.Setenv("PEAKBENCH_CUBLAS", l.CUBLAS)
	t.Setenv("PEAKBENCH_CUSPARSE", l.CUSPARSE)
	t.Setenv("PEAKBENCH_CUDNN", l.CUDNN)
	t.Setenv("PEAKBENCH_NVML", l.NVML)
	t.Setenv("PEAKBENCH_HIP", l.HIP)
	t.Setenv("PEAKBENCH_ROCBLAS", l.ROCBLAS)
	for name, path := range l.Plain {
		t.Setenv("PEAKBENCH_"+strings.ToUpper(name), path)
	}
}

// Require builds the fakes and points the loader at them for t, skipping t
// when no C compiler is installed.
func Require(t testing.TB) *Libs {
	t.Helper()
	l, err := Build()
	if err != nil {
		if _, lerr := exec.LookPath("cc"); lerr != nil {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	l.Setenv(t)
	return l
}

// Device builds the fakes (Require), opens a runtime with open (gpurt.Open or
// gpurt.OpenHIP) and its device 0, and closes the device when the test ends.
func Device(t *testing.T, open func() (*gpurt.Runtime, error)) (*Libs, *gpurt.Device) {
	t.Helper()
	libs := Require(t)
	rt, err := open()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := rt.OpenDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return libs, dev
}
