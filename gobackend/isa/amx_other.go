//go:build amd64 && !linux && !purego

package isa

// amxPermitted: peakbench asks for AMX's tile state on Linux only.
func amxPermitted() bool { return false }
