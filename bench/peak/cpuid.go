package peak

import "encoding/binary"

// cpuidFunc executes CPUID with EAX=eaxArg, ECX=ecxArg.
type cpuidFunc func(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// cpuidInfo reads what CPUID tells of the CPU at hand.
func cpuidInfo() (cpuidResult, bool) { return cpuidInfoFrom(hostCPUID) }

// cpuidInfoFrom reads vendor, brand, display family/model, Intel's base
// clock and the cache hierarchy through a CPUID function (the CPU's, or a
// recorded machine's in tests); false when there is none.
func cpuidInfoFrom(cpuid cpuidFunc) (cpuidResult, bool) {
	if cpuid == nil {
		return cpuidResult{}, false
	}
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

// isaFromCPUID reads the vector features of leaves 1 and 7 (the bits a
// recorded machine carries; the CPU at hand is read by x/sys/cpu, which also
// asks the OS): FMA (leaf 1 ECX bit 12), AVX (ECX bit 28), AVX2 (leaf 7 EBX
// bit 5), AVX-512F (EBX bit 16), AMX-TILE (leaf 7 EDX bit 24).
func isaFromCPUID(cpuid cpuidFunc) (isa, []string) {
	f := isa{arch: "amd64"}
	maxLeaf, _, _, _ := cpuid(0, 0)
	var names []string
	has := func(name string, ok bool) bool {
		if ok {
			names = append(names, name)
		}
		return ok
	}
	if maxLeaf >= 1 {
		_, _, c, _ := cpuid(1, 0)
		f.avx = has("avx", c&(1<<28) != 0)
		f.fma = has("fma", c&(1<<12) != 0) && f.avx
	}
	if maxLeaf >= 7 {
		_, b, _, d := cpuid(7, 0)
		has("avx2", b&(1<<5) != 0)
		f.avx512f = has("avx512f", b&(1<<16) != 0)
		has("amxtile", d&(1<<24) != 0)
	}
	return f, names
}
