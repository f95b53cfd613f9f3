// Command _asm generates the assembly kernels of peakbench's gobackend with
// avo (github.com/mmcloughlin/avo): for each kernel package a
// <pkg>_amd64.s and the Go declarations of its functions, <pkg>_stubs_amd64.go,
// both built only without the purego tag.
//
// It is a module of its own, as the standard library's crypto/*/_asm are, so
// that avo is a dependency of the generator only; the leading underscore
// keeps it out of ./... in the main module. Run it from this directory:
//
//	go run .              regenerate every package's files in ../<pkg>/
//	go run . -pkg gemm    regenerate one package's
//	go run . -check       compare the files on disk with a fresh generation;
//	                      exit status 1 and a list of stale files when they differ
//
// `make generate` (go generate ./... in the main module) and `make
// check-generate` call it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"
)

// packages maps each kernel package (a directory beside this one) to the
// function that builds its assembly.
var packages = map[string]func(g *gen){
	"gemm":   func(g *gen) { genGemm(g); genGemmStream(g) },
	"elem":   genElem,
	"reduce": genReduce,
	"nn":     genNN,
	"conv":   genConv,
	"quant":  genQuant,
	"fft":    genFFT,
	"isa":    genISA,
	"sparse": func(g *gen) { genSparse(g); genSparseConvert(g) },
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("_asm: ")
	// A flag set of our own: avo's build package registers its flags
	// (-out, -stubs, -pkg) on flag.CommandLine.
	fs := flag.NewFlagSet("_asm", flag.ExitOnError)
	pkgFlag := fs.String("pkg", "", "generate only this package's files (default: all)")
	check := fs.Bool("check", false, "compare the files on disk with a fresh generation instead of writing them")
	dir := fs.String("dir", "..", "directory holding the kernel packages")
	fs.Parse(os.Args[1:])

	var names []string
	for name := range packages {
		names = append(names, name)
	}
	sort.Strings(names)
	if *pkgFlag != "" {
		if packages[*pkgFlag] == nil {
			log.Fatalf("unknown package %q (accepted: %s)", *pkgFlag, strings.Join(names, ", "))
		}
		names = []string{*pkgFlag}
	}

	var stale []string
	for _, name := range names {
		files, err := generate(name)
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		for _, f := range files {
			path := filepath.Join(*dir, name, f.name)
			if *check {
				old, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(old, f.data) {
					stale = append(stale, path)
				}
				continue
			}
			if err := os.WriteFile(path, f.data, 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
	if len(stale) > 0 {
		fmt.Fprintf(os.Stderr, "generated files are stale (run `make generate` and commit them):\n\t%s\n", strings.Join(stale, "\n\t"))
		os.Exit(1)
	}
}

type file struct {
	name string
	data []byte
}

// generate builds one package's assembly and stubs in memory.
func generate(pkg string) ([]file, error) {
	g := &gen{Context: build.NewContext()}
	g.ConstraintExpr("!purego")
	packages[pkg](g)
	f, err := g.Result()
	if err != nil {
		return nil, err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return nil, err
	}
	// A fixed command line in the header, not os.Args, so that -check and
	// -dir do not change the output.
	cfg := printer.Config{Argv: []string{"go", "run", ".", "-pkg", pkg}, Pkg: pkg}
	asm, err := printer.NewGoAsm(cfg).Print(f)
	if err != nil {
		return nil, err
	}
	stubs, err := printer.NewStubs(cfg).Print(f)
	if err != nil {
		return nil, err
	}
	if stubs, err = format.Source(stubs); err != nil {
		return nil, err
	}
	return []file{
		{pkg + "_amd64.s", asm},
		{pkg + "_stubs_amd64.go", stubs},
	}, nil
}

// gen is the build context of one package, with the helpers the kernel
// generators share.
type gen struct {
	*build.Context
	labels int
	consts map[string]Mem // vector constants defined so far (vconst)
	masks  *Mem           // the tail mask table, once defined
	mask   Op             // the active tail mask, while emitting a tail
	// w is the width of the kernel the width-generic generators emit
	// (zero: ymm); with zmm, vconst gives broadcast scalars (scalars).
	w       width
	scalars map[Symbol]bool
	// pins are the scalar constants a zmm kernel holds in registers
	// (pin): the instruction helpers use the register in place of the
	// constant's embedded broadcast.
	pins map[Symbol]reg.VecVirtual
}

// label returns a label name unique within the file.
func (g *gen) label(prefix string) string {
	g.labels++
	return fmt.Sprintf("%s%d", prefix, g.labels)
}
