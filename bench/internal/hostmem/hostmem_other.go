//go:build !linux

package hostmem

// mapHuge is Linux only: elsewhere every buffer comes from the Go heap.
func (a *Arena) mapHuge(int) []byte { return nil }

func unmap([]byte) {}

func systemMode() string { return "unknown" }
