package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Encodings recorded from the GNU assembler (as 2.40, Intel syntax:
// destination first).
func TestEncodingsRecorded(t *testing.T) {
	for _, c := range []struct {
		got, want []byte
		what      string
	}{
		{evexBytes(0x52, evexF3, 0, 30, 28), []byte{0x62, 0x92, 0x0e, 0x40, 0x52, 0xc4}, "vdpbf16ps zmm0, zmm30, zmm28"},
		{evexBytes(0x52, evexF3, 17, 3, 25), []byte{0x62, 0x82, 0x66, 0x48, 0x52, 0xc9}, "vdpbf16ps zmm17, zmm3, zmm25"},
		{evexBytes(0x52, evexF3, 9, 20, 12), []byte{0x62, 0x52, 0x5e, 0x40, 0x52, 0xcc}, "vdpbf16ps zmm9, zmm20, zmm12"},
		{evexBytes(0x50, evex66, 0, 30, 28), []byte{0x62, 0x92, 0x0d, 0x40, 0x50, 0xc4}, "vpdpbusd zmm0, zmm30, zmm28"},
		{vexBytes(0x50, 0, 14, 12), []byte{0xc4, 0xc2, 0x0d, 0x50, 0xc4}, "{vex} vpdpbusd ymm0, ymm14, ymm12"},
		{vexBytes(0x50, 9, 3, 10), []byte{0xc4, 0x42, 0x65, 0x50, 0xca}, "{vex} vpdpbusd ymm9, ymm3, ymm10"},
	} {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("%s: % x, want % x", c.what, c.got, c.want)
		}
	}
}

// TestEncodingsAssembler compares every register combination the encoders
// take with the GNU assembler's bytes, where one is installed.
func TestEncodingsAssembler(t *testing.T) {
	as, err := exec.LookPath("as")
	if err != nil {
		t.Skip("no GNU assembler:", err)
	}
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("no objdump:", err)
	}
	var src strings.Builder
	var want [][]byte
	src.WriteString(".intel_syntax noprefix\n")
	for d := byte(0); d < 32; d += 3 {
		for s1 := byte(0); s1 < 32; s1 += 5 {
			for s2 := byte(0); s2 < 32; s2 += 7 {
				fmt.Fprintf(&src, "vdpbf16ps zmm%d, zmm%d, zmm%d\n", d, s1, s2)
				want = append(want, evexBytes(0x52, evexF3, d, s1, s2))
				fmt.Fprintf(&src, "vpdpbusd zmm%d, zmm%d, zmm%d\n", d, s1, s2)
				want = append(want, evexBytes(0x50, evex66, d, s1, s2))
				if d < 16 && s1 < 16 && s2 < 16 {
					fmt.Fprintf(&src, "{vex} vpdpbusd ymm%d, ymm%d, ymm%d\n", d, s1, s2)
					want = append(want, vexBytes(0x50, d, s1, s2))
				}
			}
		}
	}
	dir := t.TempDir()
	s, o := filepath.Join(dir, "e.s"), filepath.Join(dir, "e.o")
	if err := os.WriteFile(s, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, s, "-o", o).CombinedOutput(); err != nil {
		t.Skipf("as cannot assemble these (an old binutils?): %v\n%s", err, out)
	}
	out, err := exec.Command(objdump, "-d", o).Output()
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^\s+[0-9a-f]+:\s+((?:[0-9a-f]{2} )+)`)
	var got [][]byte
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		var b []byte
		for _, h := range strings.Fields(m[1]) {
			var x byte
			fmt.Sscanf(h, "%x", &x)
			b = append(b, x)
		}
		got = append(got, b)
	}
	if len(got) != len(want) {
		t.Fatalf("objdump listed %d instructions, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("instruction %d: as % x, ours % x", i, got[i], want[i])
		}
	}
}

// TestAMXEncodings assembles every tile instruction of amxCode with the
// GNU assembler, where one is installed, and compares the bytes.
func TestAMXEncodings(t *testing.T) {
	as, err := exec.LookPath("as")
	if err != nil {
		t.Skip("no GNU assembler:", err)
	}
	dir := t.TempDir()
	for intel, want := range amxCode {
		s, o := filepath.Join(dir, "a.s"), filepath.Join(dir, "a.o")
		if err := os.WriteFile(s, []byte(".intel_syntax noprefix\n"+intel+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(as, s, "-o", o).CombinedOutput(); err != nil {
			t.Skipf("as cannot assemble %q (an old binutils?): %v\n%s", intel, err, out)
		}
		out, err := exec.Command("objcopy", "-O", "binary", "-j", ".text", o, filepath.Join(dir, "a.bin")).CombinedOutput()
		if err != nil {
			t.Skipf("objcopy: %v\n%s", err, out)
		}
		got, err := os.ReadFile(filepath.Join(dir, "a.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: as % x, ours % x", intel, got, want)
		}
	}
}
