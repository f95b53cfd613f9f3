//go:build !linux

package worker

import "syscall"

// procAttr puts a worker in a process group of its own: a terminal's
// Ctrl-C reaches peakbench alone, which stops its workers.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
