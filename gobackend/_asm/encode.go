package main

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Instructions that avo v0.5.0 lacks. VPDPBUSD (EVEX) is known to the Go
// assembler and goes out by name (raw); VDPBF16PS and the VEX form of
// VPDPBUSD (AVX-VNNI) are not, and go out as BYTE sequences, each after a
// comment naming the instruction in Go operand order. Only the
// register-register forms are encoded: the kernels broadcast A into a
// register first. encode_test.go checks the bytes against the GNU
// assembler's where one is installed.

// raw emits an instruction the Go assembler knows by name.
func (g *gen) raw(opcode string, ops ...Op) {
	g.Instruction(&ir.Instruction{Opcode: opcode, Operands: ops})
}

// bytes emits b as BYTE directives.
func (g *gen) bytes(b []byte) {
	for _, x := range b {
		g.Instruction(&ir.Instruction{Opcode: "BYTE", Operands: []Op{U8(x)}})
	}
}

// The EVEX pp field: the implied legacy prefix.
const (
	evex66 = 1
	evexF3 = 2
)

// evex emits the 512-bit EVEX instruction opcode (map 0F38, W0, no mask)
// dst ← op(dst, src1, src2), src1 in EVEX.vvvv, src2 in ModRM.rm.
func (g *gen) evex(name string, opcode, pp byte, dst, src1, src2 reg.VecPhysical) {
	g.Comment(asmLine(name, src2, src1, dst))
	g.bytes(evexBytes(opcode, pp, idx(dst), idx(src1), idx(src2)))
}

// evexBytes is the encoding of evex: 62, P0, P1, P2, opcode, ModRM.
func evexBytes(opcode, pp byte, dst, src1, src2 byte) []byte {
	inv := func(v byte, bit uint) byte { return (^v >> bit) & 1 }
	p0 := inv(dst, 3)<<7 | inv(src2, 4)<<6 | inv(src2, 3)<<5 | inv(dst, 4)<<4 | 0x2 // mm = 0F38
	p1 := (^src1&0xf)<<3 | 1<<2 | pp                                                // W0, vvvv, 1, pp
	p2 := byte(0x40) | inv(src1, 4)<<3                                              // L'L = 512, V', no mask
	return []byte{0x62, p0, p1, p2, opcode, 0xc0 | (dst&7)<<3 | src2&7}
}

// vex256 emits the 256-bit VEX instruction opcode (prefix 66, map 0F38,
// W0) dst ← op(dst, src1, src2), src1 in VEX.vvvv, src2 in ModRM.rm.
func (g *gen) vex256(name string, opcode byte, dst, src1, src2 reg.VecPhysical) {
	g.Comment(asmLine(name, src2, src1, dst))
	g.bytes(vexBytes(opcode, idx(dst), idx(src1), idx(src2)))
}

// vexBytes is the three-byte VEX encoding of vex256: C4, RXB.mmmmm,
// W.vvvv.L.pp, opcode, ModRM.
func vexBytes(opcode, dst, src1, src2 byte) []byte {
	if dst > 15 || src1 > 15 || src2 > 15 {
		panic("VEX encodes registers 0–15 only")
	}
	inv := func(v byte, bit uint) byte { return (^v >> bit) & 1 }
	b1 := inv(dst, 3)<<7 | 1<<6 | inv(src2, 3)<<5 | 0x2 // R, X (unused), B, map 0F38
	b2 := (^src1&0xf)<<3 | 1<<2 | evex66                // W0, vvvv, L = 256, pp = 66
	return []byte{0xc4, b1, b2, opcode, 0xc0 | (dst&7)<<3 | src2&7}
}

func idx(r reg.VecPhysical) byte { return byte(r.PhysicalIndex()) }

// asmLine is the instruction as the Go assembler would write it.
func asmLine(name string, ops ...reg.VecPhysical) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = o.Asm()
	}
	return fmt.Sprintf("%s %s", name, strings.Join(s, ", "))
}
