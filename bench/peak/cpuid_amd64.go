//go:build !purego

package peak

import "encoding/binary"

// cpuid executes CPUID with EAX=eaxArg, ECX=ecxArg (cpuid_amd64.s).
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// cpuidInfo reads vendor, brand, display family/model, Intel's base clock and
// the cache hierarchy from CPUID.
func cpuidInfo() (cpuidResult, bool) {
	var r cpuidResult
	maxLeaf, b, c, d := cpuid(0, 0)
	var v [12]byte
	binary.LittleEndian.PutUint32(v[0:], b)
	binary.LittleEndian.PutUint32(v[4:], d)
	binary.LittleEndian.PutUint32(v[8:], c)
	r.vendor = string(v[:])

	if maxLeaf >= 1 {
		eax, _, _, _ := cpuid(1, 0)
		r.family, r.model = displayFamilyModel(r.vendor, eax)
	}
	maxExt, _, _, _ := cpuid(0x80000000, 0)
	if maxExt >= 0x80000004 {
		var brand [48]byte
		for i := uint32(0); i < 3; i++ {
			a, b, c, d := cpuid(0x80000002+i, 0)
			for j, w := range [4]uint32{a, b, c, d} {
				binary.LittleEndian.PutUint32(brand[16*i+4*uint32(j):], w)
			}
		}
		r.brand = brandString(brand[:])
	}
	if r.vendor == intel && maxLeaf >= 0x16 {
		a, _, _, _ := cpuid(0x16, 0)
		r.baseMHz = int(a & 0xFFFF)
	}

	// Deterministic cache parameters: leaf 4 (Intel) or 0x8000001D (AMD, with
	// TOPOEXT, CPUID 0x80000001 ECX bit 22); same layout.
	leaf := uint32(0)
	switch {
	case r.vendor == intel && maxLeaf >= 4:
		leaf = 4
	case (r.vendor == amd || r.vendor == hygon) && maxExt >= 0x8000001D:
		if _, _, c, _ := cpuid(0x80000001, 0); c&(1<<22) != 0 {
			leaf = 0x8000001D
		}
	}
	if leaf != 0 {
		for sub := uint32(0); sub < 16; sub++ {
			a, b, c, _ := cpuid(leaf, sub)
			typ := a & 0x1F // 0 none, 1 data, 2 instruction, 3 unified
			if typ == 0 {
				break
			}
			if typ == 2 {
				continue
			}
			ways := int(b>>22) + 1
			partitions := int(b>>12&0x3FF) + 1
			line := int(b&0xFFF) + 1
			sets := int(c) + 1
			r.caches = append(r.caches, Cache{
				Level:    int(a >> 5 & 7),
				Bytes:    ways * partitions * line * sets,
				SharedBy: int(a>>14&0xFFF) + 1, // an upper bound (addressable IDs)
			})
		}
	}
	return r, true
}
