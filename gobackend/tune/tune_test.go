package tune

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/gobackend/isa"
)

func machine() Machine {
	return Machine{
		Vendor: "GenuineIntel", Family: 6, Model: 85, Stepping: 7, Brand: "Intel(R) Xeon(R)",
		Microarch: "cascadelake", Arch: "amd64", ISA: "avx512", Features: []string{"avx2", "fma", "avx512f"},
		Cores: 1, Threads: 2, Caches: []Cache{{1, 32 << 10, 2}, {2, 1 << 20, 2}, {3, 32 << 20, 2}},
	}
}

func validFile() *File {
	p := Defaults()
	p.Parallel.Cheap.F64 = 256 << 10
	return &File{Version: Version, Machine: machine(), Params: p,
		Measured: Measured{When: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Complete: true}}
}

func encode(t *testing.T, f *File) []byte {
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestLoadValid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tune.json")
	if err := os.WriteFile(path, encode(t, validFile()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, machine())
	if err != nil {
		t.Fatal(err)
	}
	if f.Params.Parallel.Cheap.F64 != 256<<10 || f.Params.Parallel.Reduce != Defaults().Parallel.Reduce {
		t.Errorf("params %+v", f.Params)
	}
}

// TestLoadRefuses checks that every kind of file that must not be trusted
// is refused, with a reason naming what is wrong.
func TestLoadRefuses(t *testing.T) {
	other := machine()
	other.Stepping = 4
	moreThreads := machine()
	moreThreads.Threads = 4
	for _, c := range []struct {
		name string
		data func() []byte
		want string
	}{
		{"other CPU", func() []byte { f := validFile(); f.Machine = other; return encode(t, f) }, "stepping 4"},
		{"other threads", func() []byte { f := validFile(); f.Machine = moreThreads; return encode(t, f) }, "threads 4"},
		{"other version", func() []byte { f := validFile(); f.Version = Version + 1; return encode(t, f) }, "version"},
		{"negative", func() []byte { f := validFile(); f.Params.Parallel.Math.F32 = -1; return encode(t, f) }, "parallel.elem_math.f32 = -1"},
		{"too large", func() []byte { f := validFile(); f.Params.Parallel.Reduce.F64 = MaxPieceBytes + 1; return encode(t, f) }, "parallel.reduce.f64"},
		{"no such shape", func() []byte { f := validFile(); f.Params.GEMM.Shape.F64 = 2; return encode(t, f) }, "gemm.shape.f64 = 2"},
		{"negative shape", func() []byte { f := validFile(); f.Params.GEMM.Shape.F32 = -1; return encode(t, f) }, "gemm.shape.f32 = -1"},
		{"cut short", func() []byte { b := encode(t, validFile()); return b[:len(b)/2] }, "not a tune file"},
		{"not JSON", func() []byte { return []byte("\x00\x01garbage") }, "not a tune file"},
		{"no version", func() []byte { return []byte(`{"params":{}}`) }, "no version"},
		{"an array", func() []byte { return []byte(`[1, 2]`) }, "not a tune file: it holds a JSON array where a tune file has an object"},
		{"unknown parameter", func() []byte {
			return bytes.Replace(encode(t, validFile()), []byte(`"elem_cheap"`), []byte(`"elem_chaep"`), 1)
		}, "elem_chaep"},
		{"wrong type", func() []byte {
			return bytes.Replace(encode(t, validFile()), []byte(`"f32": 65536`), []byte(`"f32": "big"`), 1)
		}, "not a valid tune file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.data(), machine())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestLoadWithoutShape: a file without gemm.shape or gemm.kc reads as
// their defaults, their zero values (gemm.shape came without a bump of
// Version for that).
func TestLoadWithoutShape(t *testing.T) {
	f := validFile()
	f.Params.GEMM.Shape = PerDType{F32: ShapeWide, F64: ShapeWide}
	f.Params.GEMM.KC = PerDType{F32: 384, F64: 384}
	b := encode(t, f)
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	delete(tree["params"].(map[string]any)["gemm"].(map[string]any), "shape")
	delete(tree["params"].(map[string]any)["gemm"].(map[string]any), "kc")
	b, _ = json.Marshal(tree)
	got, err := Decode(b, machine())
	if err != nil {
		t.Fatal(err)
	}
	if got.Params.GEMM.Shape != Defaults().GEMM.Shape || got.Params.GEMM.KC != Defaults().GEMM.KC {
		t.Errorf("shape %+v, kc %+v; want the defaults %+v, %+v", got.Params.GEMM.Shape, got.Params.GEMM.KC, Defaults().GEMM.Shape, Defaults().GEMM.KC)
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.json"), machine())
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want fs.ErrNotExist", err)
	}
}

func TestMismatchFeatureOrder(t *testing.T) {
	m := machine()
	m.Features = []string{"avx512f", "fma", "avx2"}
	if err := machine().Mismatch(m); err != nil {
		t.Errorf("features in another order: %v", err)
	}
}

func TestFileName(t *testing.T) {
	a, b := machine(), machine()
	b.Caches = b.Caches[:2]
	if FileName(a) == FileName(b) {
		t.Errorf("machines with other caches share %s", FileName(a))
	}
	if FileName(a) != FileName(machine()) || !strings.HasPrefix(FileName(a), "tune-GenuineIntel-6-85-7-") {
		t.Errorf("file name %s", FileName(a))
	}
}

func TestApply(t *testing.T) {
	defer Apply(Defaults(), DefaultSource)
	p := Defaults()
	p.Parallel.Reduce.F32 = 0
	Apply(p, "file x")
	if Current().Parallel.Reduce.F32 != 0 || Source() != "file x" {
		t.Errorf("after Apply: %+v from %q", *Current(), Source())
	}
	defer func() {
		if recover() == nil {
			t.Error("Apply of an out-of-range value did not panic")
		}
	}()
	p.Parallel.Reduce.F32 = -1
	Apply(p, "bad")
}

// TestFieldsComplete checks that Fields lists every parameter of the JSON
// once, so that none escapes Validate or the search.
func TestFieldsComplete(t *testing.T) {
	if err := Defaults().Validate(); err != nil {
		t.Error(err)
	}
	p := Defaults()
	seen := map[*int]bool{}
	for _, f := range p.Fields() {
		if seen[f.Ptr] {
			t.Errorf("%s listed twice", f.Name)
		}
		seen[f.Ptr] = true
	}
	b, _ := json.Marshal(p)
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	n := leaves(tree)
	if n != len(p.Fields()) {
		t.Errorf("Fields lists %d parameters, the JSON has %d", len(p.Fields()), n)
	}
}

// leaves counts the numbers under a decoded JSON object, at any depth.
func leaves(v any) int {
	m, ok := v.(map[string]any)
	if !ok {
		return 1
	}
	n := 0
	for _, c := range m {
		n += leaves(c)
	}
	return n
}

// TestDefaultDirectBytes: the unpacked GEMM's default is the measured
// bytes, capped at 1.5 L2s where L2 is known.
func TestDefaultDirectBytes(t *testing.T) {
	for _, c := range []struct{ measured, l2, want int }{
		{2 << 20, 2 << 20, 2 << 20}, // the Intel VM: as measured
		{2 << 20, 1 << 20, 3 << 19}, // Zen 4 and 5: 512² f32 packed
		{1 << 20, 1 << 20, 1 << 20},
		{2 << 20, 0, 2 << 20}, // L2 unknown
	} {
		if got := DefaultDirectBytes(c.measured, c.l2); got != c.want {
			t.Errorf("DefaultDirectBytes(%d, %d) = %d, want %d", c.measured, c.l2, got, c.want)
		}
	}
	l2 := isa.Caches().L2
	if d := Defaults().GEMM.Direct; d.F32 != DefaultDirectBytes(2<<20, l2) || d.F64 != DefaultDirectBytes(1<<20, l2) {
		t.Errorf("default gemm.direct %+v with L2 %d", d, l2)
	}
}

// TestNonTemporalParams: the non-temporal crossovers load from a file, are
// range-checked as the others, and default to half the reported last level
// cache, bounded by llcPerCPU a CPU.
func TestNonTemporalParams(t *testing.T) {
	f := validFile()
	f.Params.NonTemporal = NonTemporal{Quantize: 0, Dequantize: 80 << 20}
	got, err := Decode(encode(t, f), machine())
	if err != nil {
		t.Fatal(err)
	}
	if got.Params.NonTemporal != f.Params.NonTemporal {
		t.Errorf("loaded %+v, wrote %+v", got.Params.NonTemporal, f.Params.NonTemporal)
	}
	for _, c := range []struct {
		name string
		set  func(*NonTemporal)
		want string
	}{
		{"negative", func(n *NonTemporal) { n.Quantize = -1 }, "nontemporal.quantize = -1"},
		{"too large", func(n *NonTemporal) { n.Dequantize = MaxPieceBytes + 1 }, "nontemporal.dequantize"},
	} {
		f := validFile()
		c.set(&f.Params.NonTemporal)
		if _, err := Decode(encode(t, f), machine()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
		}
	}
	missing := bytes.Replace(encode(t, validFile()), []byte(`"dequantize"`), []byte(`"dequantise"`), 1)
	if _, err := Decode(missing, machine()); err == nil || !strings.Contains(err.Error(), "dequantise") {
		t.Errorf("a misspelt crossover: err = %v", err)
	}
	d := Defaults().NonTemporal
	if def := DefaultNonTemporalBytes(runtime.NumCPU(), isa.Caches().L3); d.Quantize != def || d.Dequantize != def || d.Elem != def {
		t.Errorf("default crossovers %+v: want each by DefaultNonTemporalBytes (%d)", d, def)
	}
	for _, c := range []struct{ cpus, llc, want int }{
		{2, 480 << 20, 8 << 20},  // a VM reporting its host's cache: 4 MiB a CPU
		{16, 32 << 20, 16 << 20}, // half a cache that is the process's
		{1, 8 << 20, 4 << 20},
	} {
		if got := DefaultNonTemporalBytes(c.cpus, c.llc); got != c.want {
			t.Errorf("DefaultNonTemporalBytes(%d CPUs, %d MiB) = %d, want %d", c.cpus, c.llc>>20, got, c.want)
		}
	}
}

// TestLevels checks that the memory-bound kernels' level follows
// zmm.memory and the math kernels' zmm.math, each on its own.
func TestLevels(t *testing.T) {
	p := Params{ZMM: ZMM{Memory: 1 << 20, Math: 4 << 20}}
	for _, c := range []struct {
		bytes      int
		mem, mathL isa.Level
	}{
		{1 << 20, isa.AVX512, isa.AVX512},
		{1<<20 + 1, isa.AVX2, isa.AVX512},
		{4<<20 + 1, isa.AVX2, isa.AVX2},
	} {
		if got := p.Level(isa.AVX512, c.bytes); got != c.mem {
			t.Errorf("Level(AVX512, %d) = %v, want %v", c.bytes, got, c.mem)
		}
		if got := p.MathLevel(isa.AVX512, c.bytes); got != c.mathL {
			t.Errorf("MathLevel(AVX512, %d) = %v, want %v", c.bytes, got, c.mathL)
		}
	}
	p.ZMM = ZMM{MaxPieceBytes, MaxPieceBytes}
	if got := p.Level(isa.AVX512, 1<<39); got != isa.AVX512 {
		t.Errorf("Level at zmm.memory 1 TiB = %v, want AVX512", got)
	}
}

// TestDefaultFFTShareBytes: threads that share one L2 (SMT) share a
// transform from two thirds of the L2's size (its three arrays fill it), as
// Intel's cores do; other separate cores from one byte past the last-level
// cache, counted at most 4 MiB a CPU.
func TestDefaultFFTShareBytes(t *testing.T) {
	for _, c := range []struct {
		name   string
		caches isa.CacheSizes
		cpus   int
		intel  bool
		want   int
	}{
		{"two SMT threads of one core", isa.CacheSizes{L1: 48 << 10, L2: 2 << 20, L3: 480 << 20, L2SharedBy: 2}, 2, false, 2 << 21 / 3},
		{"two cores, 32 MiB L3", isa.CacheSizes{L1: 48 << 10, L2: 1 << 20, L3: 32 << 20, L2SharedBy: 1}, 2, false, 8<<20 + 1},
		{"two Intel cores, 48 MiB L3", isa.CacheSizes{L1: 48 << 10, L2: 1280 << 10, L3: 48 << 20, L2SharedBy: 1}, 2, true, 1280 << 11 / 3},
		{"two cores, 6 MiB L3", isa.CacheSizes{L1: 32 << 10, L2: 1 << 20, L3: 6 << 20, L2SharedBy: 1}, 2, false, 6<<20 + 1},
		{"two cores, no L3", isa.CacheSizes{L1: 32 << 10, L2: 1 << 20, L2SharedBy: 1}, 2, false, 2<<20 + 1},
		{"two Intel cores, no L2 known", isa.CacheSizes{L1: 32 << 10, L3: 16 << 20, L2SharedBy: 1}, 2, true, 8<<20 + 1},
		{"eight SMT threads on four cores", isa.CacheSizes{L1: 32 << 10, L2: 1 << 20, L3: 16 << 20, L2SharedBy: 2}, 8, false, 16<<20 + 1},
		{"one CPU", isa.CacheSizes{L1: 32 << 10, L2: 1 << 20, L3: 16 << 20, L2SharedBy: 1}, 1, false, 2 << 20 / 3},
	} {
		if got := DefaultFFTShareBytes(c.caches, c.cpus, c.intel); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// TestDefaultGEMVByRow checks the GEMV's default by vendor: eight rows at
// every size on Intel's cores, one row at a time above a core's L2 on
// others.
func TestDefaultGEMVByRow(t *testing.T) {
	want := isa.Caches().L2
	if isa.Vendor() == isa.VendorIntel {
		want = MaxPieceBytes
	}
	if got := Defaults().GEMV.ByRow; got != (PerDType{F32: want, F64: want}) {
		t.Errorf("vendor %q: default gemv.by_row %+v, want %d for both", isa.Vendor(), got, want)
	}
}

// TestSearchedBusy: the parameters searched while the host took a tenth of
// the CPUs or other processes kept 0.3 CPUs busy, in search order; one
// without a reading, or not searched, is not listed.
func TestSearchedBusy(t *testing.T) {
	m := Measured{
		Tuned: []string{"a", "b", "c", "d", "e"},
		Host: map[string]HostLoad{
			"a": {Steal: 0.02, OtherThreads: 0.1},
			"b": {Steal: 0.1},
			"c": {OtherThreads: 0.3},
			"e": {Steal: 0.099, OtherThreads: 0.299},
			"f": {Steal: 0.5}, // not searched
		},
	}
	if got, want := m.SearchedBusy(), []string{"b", "c"}; !slices.Equal(got, want) {
		t.Errorf("SearchedBusy() = %v, want %v", got, want)
	}
}

// TestDefaultWalk: calls walk up between L1 and L2 where the prefetchers do
// not follow falling streams, and the offsets decide at every size where
// they do.
func TestDefaultWalk(t *testing.T) {
	c := isa.CacheSizes{L1: 48 << 10, L2: 1 << 20}
	for _, k := range []struct {
		falling bool
		bytes   int
		want    bool
	}{
		{true, 512 << 10, true}, // prefetched either way: any size
		{true, 1 << 30, true},
		{false, 48 << 10, true},       // in L1
		{false, 48<<10 + 1, false},    // past it: walks up
		{false, 1 << 20, false},       // in L2
		{false, 1<<20 + 1, true},      // past L2
		{false, 3 * 256 << 10, false}, // a 256 KiB add's three operands
	} {
		if got := walkFor(k.falling, c).DownPays(k.bytes); got != k.want {
			t.Errorf("falling %v: %d bytes may walk down = %v, want %v", k.falling, k.bytes, got, k.want)
		}
	}
	if got, want := Defaults().Walk, walkFor(isa.PrefetchesFallingStreams(), isa.Caches()); got != want {
		t.Errorf("default walk %+v, want %+v", got, want)
	}
	if (Walk{UpAbove: 64 << 10, UpTo: 32 << 10}).DownPays(48<<10) != true {
		t.Error("an empty range (up_above ≥ up_to) kept a call from walking down")
	}
}
