package tune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// Version is the tune file format this peakbench reads and writes. A file
// of another version is ignored (with a warning), never read in part.
// Version 2 added the non-temporal crossovers (NonTemporal), 3 the GEMM's
// (GEMM), 4 the AVX-512 ones (ZMM), elem's non-temporal crossover
// (NonTemporal.Elem) and the GEMV's (GEMV), 5 the GEMV's own AVX-512
// crossover (GEMV.ZMM), 6 the FFT's thread crossover (FFT), 7 the GEMV's
// (GEMV.Parallel) and the GEMM's depth (GEMM.KC), 8 the GEMM's
// columns-outer sweep (GEMM.ColsOuter), 9 the walking direction of elem's
// kernels (Walk). GEMM.Shape and FFT.Pair came
// without a bump: their zero values are their defaults.
const Version = 9

// File is a tune file: the machine it was measured on, the parameters
// found, and how they were found. docs/tuning.md describes it.
type File struct {
	Version  int      `json:"version"`
	Machine  Machine  `json:"machine"`
	Params   Params   `json:"params"`
	Measured Measured `json:"measured"`
}

// Machine is what a tune file is valid for: the CPU's signature, the
// instruction sets the kernels were tuned at, how many cores and threads
// it has and its caches. A file is used only where all of it matches.
type Machine struct {
	Vendor    string   `json:"vendor"`
	Family    int      `json:"family"`
	Model     int      `json:"model"`
	Stepping  int      `json:"stepping"`
	Brand     string   `json:"brand"`
	Microarch string   `json:"microarch"`
	Arch      string   `json:"arch"`
	ISA       string   `json:"isa"` // isa.Best: the level the kernels were tuned at
	Features  []string `json:"features"`
	Cores     int      `json:"cores"`
	Threads   int      `json:"threads"` // logical CPUs usable
	Caches    []Cache  `json:"caches"`
}

// Cache is one data or unified cache level.
type Cache struct {
	Level    int `json:"level"`
	Bytes    int `json:"bytes"`
	SharedBy int `json:"shared_by"`
}

// Measured says how the parameters were found.
type Measured struct {
	When      time.Time `json:"when"`
	How       string    `json:"how"`
	Threads   int       `json:"threads"` // the thread count compared with one
	Budget    string    `json:"budget"`
	Took      string    `json:"took"`
	Complete  bool      `json:"complete"`          // every parameter searched
	Stopped   string    `json:"stopped,omitempty"` // why not: "interrupted", "out of budget"
	Tuned     []string  `json:"tuned"`             // the parameters searched; the others are defaults
	Peakbench string    `json:"peakbench"`
	Go        string    `json:"go"`
	// Ladders are the sizes timed for each parameter searched.
	Ladders map[string][]Step `json:"ladders,omitempty"`
	// Host is what else the machine did during each parameter's search,
	// where it could be read (/proc/stat).
	Host map[string]HostLoad `json:"host,omitempty"`
}

// HostLoad is what the machine did besides a search over its stretch: the
// share of all CPUs' time the hypervisor took, and how many CPUs other
// processes kept busy.
type HostLoad struct {
	Steal        float64 `json:"steal"`
	OtherThreads float64 `json:"other_threads"`
}

// Busy reports whether the host's load could have set the value found: the
// hypervisor took a tenth of the CPUs' time or more, or other processes
// kept 0.3 CPUs busy or more (the levels at which peakbench's findings
// call a result's threads descheduled rather than idle). A crossover
// timed so compares one thread with N that did not all run.
func (h HostLoad) Busy() bool { return h.Steal >= 0.1 || h.OtherThreads >= 0.3 }

// SearchedBusy lists the parameters searched while the host was busy
// (HostLoad.Busy), in the order they were searched.
func (m Measured) SearchedBusy() []string {
	var busy []string
	for _, name := range m.Tuned {
		if h, ok := m.Host[name]; ok && h.Busy() {
			busy = append(busy, name)
		}
	}
	return busy
}

// Step is one size of a parameter's ladder.
type Step struct {
	Bytes int `json:"bytes"` // of x
	// Speedup is the baseline's median time over the other way's,
	// geometric mean over the ops timed (parallel.*: 1 thread over N;
	// zmm.*: the AVX-512 kernels over the AVX2 ones); for nontemporal.*,
	// ordinary over non-temporal stores, the least over the thread counts
	// of that mean.
	Speedup float64 `json:"speedup"`
	// NS holds each op's median nanoseconds per call at 1 and N threads.
	NS map[string][2]float64 `json:"ns"`
}

// Write encodes f, indented.
func (f *File) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// Load reads the tune file at path and checks it before anything trusts
// it: its version, that it was made on here (Machine.Mismatch), that every
// value is in range. The error says why the file cannot be used; a file
// that does not exist gives an error wrapping fs.ErrNotExist.
func Load(path string, here Machine) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(data, here)
}

// Decode is Load on the file's bytes.
func Decode(data []byte, here Machine) (*File, error) {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) { // its words name Go's types, not the file's
			return nil, fmt.Errorf("not a tune file: it holds a JSON %s where a tune file has an object, or a version that is not a number", te.Value)
		}
		return nil, fmt.Errorf("not a tune file: %v", err)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("not a tune file: no version")
	}
	if *head.Version != Version {
		return nil, fmt.Errorf("tune file version %d, this peakbench reads version %d: run -tune again", *head.Version, Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a misspelt parameter would silently keep its default
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a valid tune file: %v", err)
	}
	if err := f.Machine.Mismatch(here); err != nil {
		return nil, err
	}
	if err := f.Params.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Mismatch says how the machine a file was made on (m) differs from
// here, or nil when it is the same.
func (m Machine) Mismatch(here Machine) error {
	for _, c := range []struct{ what, was, now string }{
		{"CPU", m.cpu(), here.cpu()},
		{"brand", m.Brand, here.Brand},
		{"micro-architecture", m.Microarch, here.Microarch},
		{"architecture", m.Arch, here.Arch},
		{"kernel level", m.ISA, here.ISA},
		{"cores", fmt.Sprint(m.Cores), fmt.Sprint(here.Cores)},
		{"threads", fmt.Sprint(m.Threads), fmt.Sprint(here.Threads)},
		{"caches", cachesText(m.Caches), cachesText(here.Caches)},
		{"CPU features", featuresText(m.Features), featuresText(here.Features)},
	} {
		if c.was != c.now {
			return fmt.Errorf("made on another machine: %s %s, this one has %s", c.what, c.was, c.now)
		}
	}
	return nil
}

func (m Machine) cpu() string {
	return fmt.Sprintf("%s family %d model %d stepping %d", m.Vendor, m.Family, m.Model, m.Stepping)
}

func cachesText(cs []Cache) string {
	var s []string
	for _, c := range cs {
		s = append(s, fmt.Sprintf("L%d %d B/%d", c.Level, c.Bytes, c.SharedBy))
	}
	return strings.Join(s, ", ")
}

func featuresText(fs []string) string {
	s := slices.Clone(fs)
	slices.Sort(s)
	return strings.Join(s, " ")
}
