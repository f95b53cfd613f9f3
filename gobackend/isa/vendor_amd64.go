//go:build !purego

package isa

func readVendor() string {
	b, d, c := cpuVendor()
	var s [12]byte
	for i, w := range []uint32{b, d, c} {
		for j := range 4 {
			s[4*i+j] = byte(w >> (8 * j))
		}
	}
	return string(s[:])
}
