package num

// AliasWindow is how far, in page offset, a store may trail a later load
// and still hold it up: a load whose address has the same low 12 bits as
// a store's in the store buffer waits for that store (4K aliasing). An
// AVX-512 daxpy of 1024 elements, y's page offset d bytes past x's, took
// 1.2–1.37× its time at d = 128–1152 against d = 0 or 1280–3968 (the Ice
// Lake VM, best of 30 rounds each, d in steps of 128); pb places its
// operands 576 bytes apart. Past the window the loads are far enough
// ahead.
const AliasWindow = 1536

// trails reports whether a store at out trails a load at in by less than
// AliasWindow in page offset when both walk up from there.
func trails(out, in uintptr) bool {
	d := (out - in) & 4095
	return d != 0 && d < AliasWindow
}

// WalkDown reports whether a kernel that stores at out while it loads at
// ins, each walking its own array at the same pace, should walk from the
// end down: walking up, its stores trail the loads of one of ins within
// AliasWindow of page offset, while walking down they trail none. elem's
// add, mul, relu and axpy have walking-down twins and ask it per call, at
// the sizes where a falling stream is as fast as a rising one
// (tune.Walk).
func WalkDown(out uintptr, ins ...uintptr) bool {
	up := false
	for _, in := range ins {
		if trails(in, out) { // walking down, the store trails this load
			return false
		}
		up = up || trails(out, in)
	}
	return up
}
