package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// dtype selects the packed-single or packed-double form of an instruction.
type dtype struct {
	f64  bool
	size int    // bytes per element
	char string // BLAS prefix: "s" or "d"
}

var (
	f32 = dtype{false, 4, "s"}
	f64 = dtype{true, 8, "d"}
)

// width is a vector register width.
type width struct {
	bytes int
	name  string // ISA suffix of kernel names: "AVX2" or "AVX512"
}

var (
	ymm = width{32, "AVX2"}
	zmm = width{64, "AVX512"}
)

// lanes is the number of elements of t in a register of w.
func (w width) lanes(t dtype) int { return w.bytes / t.size }

// vec returns the physical vector register i of width w.
func (w width) vec(i int) reg.VecPhysical {
	if w.bytes == 64 {
		return zregs[i]
	}
	if i >= 16 {
		panic(fmt.Sprintf("ymm register %d: AVX2 has 16", i))
	}
	return yregs[i]
}

var (
	yregs = []reg.VecPhysical{reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
		reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15}
	zregs = []reg.VecPhysical{reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7,
		reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15,
		reg.Z16, reg.Z17, reg.Z18, reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z23,
		reg.Z24, reg.Z25, reg.Z26, reg.Z27, reg.Z28, reg.Z29, reg.Z30, reg.Z31}
)

// The packed instructions, by dtype. Operands are in Go assembler order:
// sources first, destination last.

// vmovu moves a vector; from a broadcast constant (vconst in a zmm kernel)
// it broadcasts the scalar.
func (g *gen) vmovu(t dtype, src, dst Op) {
	src, bc := g.constant(src)
	if bc {
		g.vbroadcast(t, src, dst)
		return
	}
	if t.f64 {
		g.VMOVUPD(src, dst)
	} else {
		g.VMOVUPS(src, dst)
	}
}

func (g *gen) vbroadcast(t dtype, src, dst Op) {
	if t.f64 {
		g.VBROADCASTSD(src, dst)
	} else {
		g.VBROADCASTSS(src, dst)
	}
}

// vfmadd231 computes acc += x·y.
func (g *gen) vfmadd231(t dtype, y, x, acc Op) {
	if t.f64 {
		g.VFMADD231PD(y, x, acc)
	} else {
		g.VFMADD231PS(y, x, acc)
	}
}

// vfmadd213 computes x = x·y + z.
func (g *gen) vfmadd213(t dtype, z, y, x Op) {
	switch z, bc := g.constant(z); {
	case bc && t.f64:
		g.VFMADD213PD_BCST(z, y, x)
	case bc:
		g.VFMADD213PS_BCST(z, y, x)
	case t.f64:
		g.VFMADD213PD(z, y, x)
	default:
		g.VFMADD213PS(z, y, x)
	}
}

// vfnmadd231 computes acc -= x·y.
func (g *gen) vfnmadd231(t dtype, y, x, acc Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VFNMADD231PD_BCST(y, x, acc)
	case bc:
		g.VFNMADD231PS_BCST(y, x, acc)
	case t.f64:
		g.VFNMADD231PD(y, x, acc)
	default:
		g.VFNMADD231PS(y, x, acc)
	}
}

func (g *gen) vmul(t dtype, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VMULPD_BCST(y, x, dst)
	case bc:
		g.VMULPS_BCST(y, x, dst)
	case t.f64:
		g.VMULPD(y, x, dst)
	default:
		g.VMULPS(y, x, dst)
	}
}

func (g *gen) vadd(t dtype, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VADDPD_BCST(y, x, dst)
	case bc:
		g.VADDPS_BCST(y, x, dst)
	case t.f64:
		g.VADDPD(y, x, dst)
	default:
		g.VADDPS(y, x, dst)
	}
}

func (g *gen) vsub(t dtype, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VSUBPD_BCST(y, x, dst)
	case bc:
		g.VSUBPS_BCST(y, x, dst)
	case t.f64:
		g.VSUBPD(y, x, dst)
	default:
		g.VSUBPS(y, x, dst)
	}
}

func (g *gen) vdiv(t dtype, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VDIVPD_BCST(y, x, dst)
	case bc:
		g.VDIVPS_BCST(y, x, dst)
	case t.f64:
		g.VDIVPD(y, x, dst)
	default:
		g.VDIVPS(y, x, dst)
	}
}

func (g *gen) vmax(t dtype, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VMAXPD_BCST(y, x, dst)
	case bc:
		g.VMAXPS_BCST(y, x, dst)
	case t.f64:
		g.VMAXPD(y, x, dst)
	default:
		g.VMAXPS(y, x, dst)
	}
}

func (g *gen) vmin(t dtype, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VMINPD_BCST(y, x, dst)
	case bc:
		g.VMINPS_BCST(y, x, dst)
	case t.f64:
		g.VMINPD(y, x, dst)
	default:
		g.VMINPS(y, x, dst)
	}
}

func (g *gen) vand(t dtype, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VANDPD_BCST(y, x, dst)
	case bc:
		g.VANDPS_BCST(y, x, dst)
	case t.f64:
		g.VANDPD(y, x, dst)
	default:
		g.VANDPS(y, x, dst)
	}
}

func (g *gen) vandn(t dtype, y, x, dst Op) {
	if t.f64 {
		g.VANDNPD(y, x, dst)
	} else {
		g.VANDNPS(y, x, dst)
	}
}

func (g *gen) vor(t dtype, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VORPD_BCST(y, x, dst)
	case bc:
		g.VORPS_BCST(y, x, dst)
	case t.f64:
		g.VORPD(y, x, dst)
	default:
		g.VORPS(y, x, dst)
	}
}

func (g *gen) vxor(t dtype, y, x, dst Op) {
	if t.f64 {
		g.VXORPD(y, x, dst)
	} else {
		g.VXORPS(y, x, dst)
	}
}

// vcmp sets dst to the lanes where x pred y holds (Go order: pred, y, x, dst).
// With zmm sources dst is a mask register.
func (g *gen) vcmp(t dtype, pred int, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VCMPPD_BCST(Imm(uint64(pred)), y, x, dst)
	case bc:
		g.VCMPPS_BCST(Imm(uint64(pred)), y, x, dst)
	case t.f64:
		g.VCMPPD(Imm(uint64(pred)), y, x, dst)
	default:
		g.VCMPPS(Imm(uint64(pred)), y, x, dst)
	}
}

// vpsub subtracts packed integers of t's width: dst = x − y.
func (g *gen) vpsub(t dtype, y, x, dst Op) {
	switch y, bc := g.constant(y); {
	case bc && t.f64:
		g.VPSUBQ_BCST(y, x, dst)
	case bc:
		g.VPSUBD_BCST(y, x, dst)
	case t.f64:
		g.VPSUBQ(y, x, dst)
	default:
		g.VPSUBD(y, x, dst)
	}
}

// Comparison predicates of VCMPPS/VCMPPD.
const (
	cmpEQ    = 0x00 // ordered, quiet
	cmpLT    = 0x11 // ordered, quiet
	cmpLE    = 0x12 // ordered, quiet
	cmpUNORD = 0x03
	cmpNEQ   = 0x04 // unordered, quiet
	cmpNLT   = 0x15 // unordered, quiet: not less than
	cmpNLE   = 0x16 // unordered, quiet: not less than or equal
	cmpGE    = 0x1d // ordered, quiet
	cmpGT    = 0x1e // ordered, quiet
)

// Scalar moves and compares, for tails.

func (g *gen) movs(t dtype, src, dst Op) {
	if t.f64 {
		g.VMOVSD(src, dst)
	} else {
		g.VMOVSS(src, dst)
	}
}

// addr is the frame address of a scalar argument, for instructions that
// read it from memory (a broadcast, a compare).
func (g *gen) addr(name string) Mem {
	b, err := g.Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}
