package main

import (
	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/reg"
)

// genISA emits CPUID, which gobackend/isa reads the vendor and family from
// (golang.org/x/sys/cpu gives the features but neither).
func genISA(g *gen) {
	g.Function("cpuid")
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func(leaf, sub uint32) (eax, ebx, ecx, edx uint32)")
	g.Doc("cpuid executes CPUID with EAX = leaf and ECX = sub.")
	g.Load(g.Param("leaf"), EAX)
	g.Load(g.Param("sub"), ECX)
	g.CPUID()
	g.Store(EAX, g.Return("eax"))
	g.Store(EBX, g.Return("ebx"))
	g.Store(ECX, g.Return("ecx"))
	g.Store(EDX, g.Return("edx"))
	g.RET()
}
