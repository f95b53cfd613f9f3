//go:build !linux || !amd64 || purego

package isa

import "errors"

// requestAMX: peakbench asks for AMX's tile state on Linux on amd64 only.
func requestAMX() error { return errors.New("AMX tile state is requested on linux/amd64 only") }
