package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// FMA throughput loops of gobackend/isa, whose probe (isa.FullRateZMM)
// times them to learn whether the core runs a 512-bit FMA as fast as a
// 256-bit one (two full-width units, as Zen 5 and Intel's server cores)
// or as two halves (Zen 4, Zen 5's mobile parts):
//
//	fmaLoopAVX2, fmaLoopAVX512  n rounds of fmaChains independent FMAs
//
// Twelve chains cover two pipes of four-cycle latency with room to spare,
// so the loop runs at the FMA units' throughput, not their latency.
//
// And the read of the CPU a thread runs on (isa.CurrentCPU), and of its
// vendor (isa.Vendor):
//
//	cpuSegmentLimit  LSL of the selector Linux gives the CPU and NUMA node
//	cpuVendor        CPUID leaf 0's vendor words

const fmaChains = 12

func genISA(g *gen) {
	for _, w := range []width{ymm, zmm} {
		g.fmaLoop(w)
	}
	g.cpuSegmentLimit()
	g.cpuVendor()
}

// cpuVendor returns CPUID leaf 0's EBX, EDX and ECX: the twelve bytes of
// the vendor string in that order ("Genu", "ineI", "ntel").
func (g *gen) cpuVendor() {
	g.Function("cpuVendor")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func() (ebx, edx, ecx uint32)")
	g.Doc("cpuVendor returns CPUID leaf 0's EBX, EDX and ECX: the vendor string's twelve bytes in order.")
	g.XORL(EAX, EAX)
	g.XORL(ECX, ECX)
	g.CPUID()
	g.Store(EBX, g.ReturnIndex(0))
	g.Store(EDX, g.ReturnIndex(1))
	g.Store(ECX, g.ReturnIndex(2))
	g.RET()
}

// cpuNodeSelector is the segment selector whose limit Linux on x86-64 sets,
// on each CPU, to node<<12 | cpu (GDT entry 15, ring 3): what its vDSO's
// getcpu reads with LSL where the CPU lacks RDPID. A system call to getcpu
// takes a microsecond on a VM with page-table isolation; LSL tens of
// nanoseconds.
const cpuNodeSelector = 15*8 + 3

// cpuSegmentLimit returns the limit of cpuNodeSelector's segment, or
// 0xFFFFFFFF when LSL finds no such segment (it then leaves its
// destination as it was). Whether the limit names the CPU is for its
// caller to check: another system may use the selector otherwise.
func (g *gen) cpuSegmentLimit() {
	g.Function("cpuSegmentLimit")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func() uint32")
	g.Doc("cpuSegmentLimit returns the limit of the segment of selector 0x7b (Linux: node<<12 | cpu), or 0xFFFFFFFF when there is none.")
	g.MOVL(U32(cpuNodeSelector), EBX)
	g.MOVL(U32(0xFFFFFFFF), EAX)
	g.raw("LSLL", EBX, EAX)
	g.Store(EAX, g.ReturnIndex(0))
	g.RET()
}

func (g *gen) fmaLoop(w width) {
	name := "fmaLoop" + w.name
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(n int)")
	g.Doc(fmt.Sprintf("%s runs n rounds (n ≥ 1) of %d independent %d-bit f32 FMAs.", name, fmaChains, 8*w.bytes))
	n := g.Load(g.Param("n"), g.GP64())
	acc := make([]VecVirtual, fmaChains)
	for i := range acc {
		acc[i] = g.vec(w)
		g.VXORPS(acc[i], acc[i], acc[i])
	}
	a, b := g.vec(w), g.vec(w)
	g.VXORPS(a, a, a)
	g.VXORPS(b, b, b)
	loop := g.label("fmaloop")
	g.Label(loop)
	for _, r := range acc {
		g.VFMADD231PS(a, b, r)
	}
	g.DECQ(n)
	g.JNE(LabelRef(loop))
	g.VZEROUPPER()
	g.RET()
}
